/**
 * `GET /healthz`: liveness for anyone, counts for the admin.
 *
 * - Anyone: `200 {status: 'ok'}`, or `503 {status: 'shutting down'}` while
 *   the server closes. Nothing else: no workspace id, no count.
 * - With `Authorization: Bearer <adminToken>` (admin-auth.ts, constant-time):
 *   the server's counts as well (`stats()`: documents, sockets, memory, …);
 *   `?detail=1` adds, per workspace, its loaded documents and connections;
 *   `?gc=1` collects garbage first when the process runs with `--expose-gc`
 *   (benchmarks measuring live memory).
 * - `?detail=1` or `?gc=1` without it, or a wrong `Authorization` header: 401.
 *
 * Invariant: an answer costs O(loaded documents) at most and encodes no
 * document (an encoded size per doc cost ~90 ms per request with 44 MB
 * loaded, and anyone could ask). Not here: the counts themselves (server.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Hocuspocus } from '@hocuspocus/server'
import { parseDocName } from '@yfs/protocol'
import { createAdminCheck } from './admin-auth.js'
import { sendJson } from './json.js'
import { requestUrl } from './request-url.js'

/** What the server reports about itself to an admin (`/healthz` with the admin token). */
export interface ServerStats {
  name: string
  store: string
  /** Documents loaded in memory. */
  documents: number
  /** Open WebSockets (both kinds). */
  sockets: number
  /** Workspaces whose main doc is held for content-doc checks. */
  heldWorkspaces: number
  uptimeSec: number
  rssBytes: number
  heapUsedBytes: number
}

export interface HealthOptions {
  /** The admin token; without one, only liveness is ever answered. */
  adminToken: string | undefined
  hocuspocus: Hocuspocus
  stats: () => ServerStats
  /** True once the server is shutting down (503). */
  closing: () => boolean
}

/** Loaded documents and their connections per workspace: counts only, O(loaded documents). */
export interface WorkspaceHealth {
  documents: number
  connections: number
}

function workspaceDetail(hocuspocus: Hocuspocus): Record<string, WorkspaceHealth> {
  const out = new Map<string, WorkspaceHealth>()
  for (const [docName, document] of hocuspocus.documents) {
    const ws = parseDocName(docName)?.workspace ?? '?'
    let entry = out.get(ws)
    if (entry === undefined) {
      entry = { documents: 0, connections: 0 }
      out.set(ws, entry)
    }
    entry.documents++
    entry.connections += document.getConnectionsCount()
  }
  return Object.fromEntries(out)
}

/** A handler that answers `/healthz` (see the module comment) and returns `false` for other paths. */
export function createHealthEndpoint(options: HealthOptions) {
  const check = createAdminCheck(options.adminToken)
  return function handleHealth(request: IncomingMessage, response: ServerResponse): boolean {
    const url = requestUrl(request)
    if (url.pathname !== '/healthz') return false
    const detail = url.searchParams.get('detail') === '1'
    const gcAsked = url.searchParams.get('gc') === '1'
    const credential = check(request)
    if (credential === 'wrong' || (credential === 'none' && (detail || gcAsked))) {
      sendJson(response, 401, { error: 'admin token required' })
      return true
    }
    const status = options.closing() ? 'shutting down' : 'ok'
    const code = options.closing() ? 503 : 200
    if (credential === 'none') {
      sendJson(response, code, { status })
      return true
    }
    const gc = (globalThis as { gc?: () => void }).gc
    if (gcAsked && gc) gc()
    const workspaces = detail ? { workspaces: workspaceDetail(options.hocuspocus) } : {}
    sendJson(response, code, { status, ...options.stats(), ...workspaces })
    return true
  }
}
