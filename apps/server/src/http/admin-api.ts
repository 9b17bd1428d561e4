/**
 * The admin API, behind `Authorization: Bearer <adminToken>`:
 *
 *   POST   /api/workspaces                 {"id"}           → 201 {id, created: true} | 200 {id, created: false}
 *                                                             (400 with the reason for an invalid id, `constructor` included)
 *   GET    /api/workspaces                                  → 200 {workspaces: [id]}
 *   POST   /api/workspaces/:id/tokens      {"role", "name"?} → 201 {token, workspace, role, name?}   (404: no workspace;
 *                                                             400: bad role or name. The name is whom agents
 *                                                             using the token are logged as, when their MCP
 *                                                             client gives none)
 *   DELETE /api/tokens                     {"token"}        → 200 {revoked: boolean}
 *   GET    /api/workspaces/:id/quarantine                   → 200 {rows: [{doc, reason, at, bytes, data}]}
 *                                                             (404: no workspace. Stored updates a salvage set
 *                                                             aside, persistence/salvage.ts; `data` in base64,
 *                                                             `at` an ISO date)
 *
 * Without a configured admin token every route answers 404. Token values
 * appear only in the response that creates them, never in logs.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../logger.js'
import {
  type DocumentStore,
  ROLES,
  type Role,
  tokenNameProblem,
  workspaceIdProblem,
} from '../persistence/document-store.js'
import { createAdminCheck } from './admin-auth.js'
import { HttpError, readJson, sendJson } from './json.js'
import { requestUrl } from './request-url.js'

export interface AdminApiOptions {
  store: DocumentStore
  adminToken: string | undefined
  logger: Logger
}

/** Returns a handler that answers `/api/*` requests and resolves `false` for anything else. */
export function createAdminApi(options: AdminApiOptions) {
  const { store, logger } = options
  const check = createAdminCheck(options.adminToken)

  async function route(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    if (!options.adminToken) throw new HttpError(404, 'not found')
    if (check(request) !== 'admin') throw new HttpError(401, 'admin token required')
    const method = request.method ?? 'GET'

    if (path === '/api/workspaces' && method === 'GET') {
      return sendJson(response, 200, { workspaces: await store.listWorkspaces() })
    }
    if (path === '/api/workspaces' && method === 'POST') {
      const { id } = await readJson(request)
      if (typeof id !== 'string') throw new HttpError(400, 'id must be a string')
      const problem = workspaceIdProblem(id)
      if (problem !== undefined) throw new HttpError(400, problem)
      const created = await store.createWorkspace(id)
      if (created) logger.info('workspace created', { workspace: id })
      return sendJson(response, created ? 201 : 200, { id, created })
    }
    const tokens = /^\/api\/workspaces\/([^/]+)\/tokens$/.exec(path)
    if (tokens && method === 'POST') {
      const workspace = decodeURIComponent(tokens[1]!)
      const { role, name } = await readJson(request)
      if (!ROLES.includes(role as Role)) throw new HttpError(400, `role must be one of ${ROLES.join(', ')}`)
      if (name !== undefined) {
        const problem = typeof name === 'string' ? tokenNameProblem(name) : 'must be a string'
        if (problem) throw new HttpError(400, `name ${problem}`)
      }
      if (!(await store.hasWorkspace(workspace))) throw new HttpError(404, `no such workspace '${workspace}'`)
      const token = await store.createToken(workspace, role as Role, name as string | undefined)
      logger.info('token created', { workspace, role, ...(name !== undefined ? { name } : {}) })
      return sendJson(response, 201, { token, workspace, role, ...(name !== undefined ? { name } : {}) })
    }
    const quarantine = /^\/api\/workspaces\/([^/]+)\/quarantine$/.exec(path)
    if (quarantine && method === 'GET') {
      const workspace = decodeURIComponent(quarantine[1]!)
      if (!(await store.hasWorkspace(workspace))) throw new HttpError(404, `no such workspace '${workspace}'`)
      const rows = (await store.quarantined(workspace)).map((row) => ({
        doc: row.doc,
        reason: row.reason,
        at: new Date(row.at).toISOString(),
        bytes: row.data.byteLength,
        data: Buffer.from(row.data.buffer, row.data.byteOffset, row.data.byteLength).toString('base64'),
      }))
      return sendJson(response, 200, { rows })
    }
    if (path === '/api/tokens' && method === 'DELETE') {
      const { token } = await readJson(request)
      if (typeof token !== 'string') throw new HttpError(400, 'token must be a string')
      const revoked = await store.revokeToken(token)
      if (revoked) logger.info('token revoked')
      return sendJson(response, 200, { revoked })
    }
    throw new HttpError(404, 'not found')
  }

  return async function handleAdmin(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const path = requestUrl(request).pathname
    if (path !== '/api' && !path.startsWith('/api/')) return false
    try {
      await route(request, response, path)
    } catch (error) {
      if (error instanceof HttpError) sendJson(response, error.status, { error: error.message })
      else {
        logger.error('admin api failed', { path, error })
        sendJson(response, 500, { error: 'internal error' })
      }
    }
    return true
  }
}
