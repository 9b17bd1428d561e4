/**
 * Backup and restore of one workspace over HTTP (`yfs backup|restore --server`), in the backup
 * file format of persistence/backup.ts:
 *
 *   GET  /api/workspaces/:id/backup    → 200 the backup file (application/x-ndjson)
 *        who: the admin token, or a `read` or `write` token of :id (anyone who may read the
 *        workspace may copy it: a read token already syncs every document)
 *   POST /api/workspaces/:id/restore   body: a backup file → 201 {workspace, documents, bytes}
 *        who: the admin token (creates :id when missing), or a `write` token of :id; never a
 *        read token
 *
 * A restore is refused, with nothing written, when the file is not a valid backup (400 EINVAL),
 * when :id already has stored documents (409 EEXIST: restore into a new or never-opened
 * workspace), when one of its documents is open on this server (409 EBUSY) or when the body
 * is over `maxBytes` (413 EFBIG). Errors are `{error: "<CODE>: <why>", code}`.
 * 401: no or unknown token; 403: a token of another workspace, or a read token restoring.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from '../logger.js'
import { decodeBackup, encodeBackup, toBackupDocuments, toStoredDocuments } from '../persistence/backup.js'
import { type DocumentStore, StoreError } from '../persistence/document-store.js'
import { createAdminCheck } from './admin-auth.js'
import { requestUrl } from './request-url.js'

export interface BackupApiOptions {
  store: DocumentStore
  adminToken: string | undefined
  logger: Logger
  /** Whether a document of `workspace` is loaded on this server now. */
  isOpen(workspace: string): boolean
  /** Largest restore body. Default 256 MiB. */
  maxBytes?: number
}

const ROUTE = /^\/api\/workspaces\/([^/]+)\/(backup|restore)$/

class ApiError extends Error {
  readonly status: number
  readonly code: string
  constructor(status: number, code: string, message: string) {
    super(message)
    this.status = status
    this.code = code
  }
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  })
  response.end(text)
}

async function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    size += (chunk as Buffer).byteLength
    if (size > limit) throw new ApiError(413, 'EFBIG', `backup larger than ${limit} bytes`)
    chunks.push(chunk as Buffer)
  }
  return Buffer.concat(chunks)
}

/** Returns a handler for the two routes; it resolves `false` for any other request. */
export function createBackupApi(options: BackupApiOptions) {
  const { store, logger } = options
  const isAdmin = createAdminCheck(options.adminToken)
  const maxBytes = options.maxBytes ?? 256 * 1024 * 1024

  /** Throws unless the request's bearer token may do `need` in `workspace`. */
  async function authorize(request: IncomingMessage, workspace: string, need: 'read' | 'write') {
    if (isAdmin(request) === 'admin') return
    const match = /^Bearer\s+(\S{1,1024})$/i.exec(request.headers.authorization ?? '')
    if (!match) throw new ApiError(401, 'EACCES', 'a token is required')
    const grant = await store.resolveToken(match[1]!)
    if (!grant) throw new ApiError(401, 'EACCES', 'unknown token')
    if (grant.workspace !== workspace) throw new ApiError(403, 'EACCES', 'the token is for another workspace')
    if (need === 'write' && grant.role !== 'write') {
      throw new ApiError(403, 'EACCES', 'restoring needs a write token (or the admin token)')
    }
  }

  async function backup(request: IncomingMessage, response: ServerResponse, workspace: string) {
    await authorize(request, workspace, 'read')
    if (!(await store.hasWorkspace(workspace))) {
      throw new ApiError(404, 'ENOENT', `no such workspace '${workspace}'`)
    }
    const stored = await store.snapshotWorkspace(workspace)
    const file = encodeBackup({ workspace, store: store.kind }, toBackupDocuments(workspace, stored))
    logger.info('workspace backed up', { workspace, documents: stored.length, bytes: file.byteLength })
    response.writeHead(200, { 'content-type': 'application/x-ndjson', 'content-length': file.byteLength })
    response.end(file)
  }

  async function restore(request: IncomingMessage, response: ServerResponse, workspace: string) {
    // The admin may name a new workspace; a write token implies that it exists.
    await authorize(request, workspace, 'write')
    const body = await readBody(request, maxBytes)
    let parsed: ReturnType<typeof decodeBackup>
    try {
      parsed = decodeBackup(body)
    } catch (error) {
      throw new ApiError(400, 'EINVAL', (error as Error).message.replace(/^EINVAL: /, ''))
    }
    const notEmpty = () =>
      new ApiError(409, 'EEXIST', `workspace '${workspace}' is not empty: restore into a new workspace`)
    if ((await store.logLength(workspace, workspace)) > 0) throw notEmpty()
    if (options.isOpen(workspace)) {
      throw new ApiError(409, 'EBUSY', `workspace '${workspace}' is open on this server`)
    }
    try {
      await store.restoreWorkspace(workspace, toStoredDocuments(workspace, parsed.documents))
    } catch (error) {
      if (error instanceof StoreError && error.code === 'EEXIST') {
        throw new ApiError(
          409,
          'EEXIST',
          `${error.message.replace(/^EEXIST: /, '')}: restore into a new workspace`,
        )
      }
      throw error
    }
    logger.info('workspace restored', { workspace, documents: parsed.documents.length, bytes: parsed.bytes })
    send(response, 201, { workspace, documents: parsed.documents.length, bytes: parsed.bytes })
  }

  return async function handleBackup(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const match = ROUTE.exec(requestUrl(request).pathname)
    if (!match) return false
    const workspace = decodeURIComponent(match[1]!)
    const method = request.method ?? 'GET'
    try {
      if (match[2] === 'backup' && method === 'GET') await backup(request, response, workspace)
      else if (match[2] === 'restore' && method === 'POST') await restore(request, response, workspace)
      else throw new ApiError(405, 'EINVAL', `${method} not allowed here`)
    } catch (error) {
      if (error instanceof ApiError) {
        // Drain what the client still sends, so it reads our answer instead of a reset.
        if (!request.complete) request.resume()
        send(response, error.status, { error: `${error.code}: ${error.message}`, code: error.code })
      } else if (error instanceof RangeError) {
        send(response, 400, { error: `EINVAL: ${error.message}`, code: 'EINVAL' })
      } else {
        logger.error('backup api failed', { workspace, error })
        send(response, 500, { error: 'EIO: internal error', code: 'EIO' })
      }
    }
    return true
  }
}
