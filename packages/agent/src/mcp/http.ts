/**
 * MCP over Streamable HTTP: one endpoint (`/mcp`), one session per MCP
 * client, each with its own private workspace. Exported as a request handler
 * so the yfs server can mount it; `listenMcpHttp` runs it standalone.
 *
 * A client that goes away without `DELETE` would keep its session (and its
 * private workspace) forever, so sessions with no request for
 * `idleTimeoutMs` are closed; a later request with that id gets 404.
 *
 * Every request (POST, GET stream, DELETE, preflight) first passes the
 * Origin/Host check (origin-guard.ts: 403 naming the header), then, with a
 * `token`, the bearer check (401). Allowed cross-origin callers get CORS
 * headers naming their own origin, never `*`.
 *
 * Invariant: whatever a session's resolver opened (`release`) is released
 * exactly once, however the session ends: `DELETE`, idle timeout, an
 * initialize the transport refuses, a failure while opening, or `close()`.
 */
import { randomUUID } from 'node:crypto'
import { createServer, type Server as HttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import { bearerToken, generateToken, sameSecret } from './bearer.js'
import { checkOriginAndHost, type OriginPolicy } from './origin-guard.js'
import { createMcpSession, type McpSessionOptions } from './server.js'

const MAX_BODY = 4 * 1024 * 1024

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of req) {
    size += (chunk as Buffer).length
    if (size > MAX_BODY) throw new Error('request body too large')
    chunks.push(chunk as Buffer)
  }
  return chunks.length === 0 ? undefined : JSON.parse(Buffer.concat(chunks).toString('utf8'))
}

function reply(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }))
}

export type McpHttpHandler = ((req: IncomingMessage, res: ServerResponse) => Promise<void>) & {
  close(): Promise<void>
}

/** Refuses a request with an HTTP status and a reason (thrown by a session-options resolver). */
export class McpHttpRefusal extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message)
  }
}

/** Session options plus what to release when the session ends (resources the resolver opened for it). */
export interface McpHttpSessionOptions extends McpSessionOptions {
  /** Called once when the session ends, however it ends. */
  release?: () => Promise<void> | void
}

/**
 * Session options, fixed or derived from the request that opens the session
 * (e.g. from its bearer token). Later requests of a session must present the
 * same `authorization` header as the one that opened it.
 */
export type McpSessionResolver = (
  req: IncomingMessage,
) => Promise<McpHttpSessionOptions> | McpHttpSessionOptions

const credentialOf = (req: IncomingMessage) => req.headers.authorization ?? ''

const CORS_HEADERS = {
  'access-control-allow-methods': 'GET, POST, DELETE',
  'access-control-allow-headers':
    'authorization, content-type, accept, mcp-session-id, mcp-protocol-version, last-event-id',
  'access-control-expose-headers': 'mcp-session-id, mcp-protocol-version',
  'access-control-max-age': '600',
}

interface HttpSession {
  transport: StreamableHTTPServerTransport
  credential: string
  lastSeen: number
  /** Tool calls and other POSTs being answered: a session is not idle while one runs. */
  inFlight: number
}

export interface McpHttpOptions extends OriginPolicy {
  /** Close sessions with no request for this long (default 30 minutes; never while a call runs). */
  idleTimeoutMs?: number
  /** When set, every request must carry `Authorization: Bearer <token>` (else 401). */
  token?: string
}

export const DEFAULT_MCP_IDLE_TIMEOUT_MS = 30 * 60_000

/** A request handler for `/mcp` that keeps one transport and session per MCP session id. */
export function createMcpHttpHandler(
  options: McpSessionOptions | McpSessionResolver,
  { idleTimeoutMs = DEFAULT_MCP_IDLE_TIMEOUT_MS, token, publicUrl, allowedOrigins }: McpHttpOptions = {},
): McpHttpHandler {
  const resolve: McpSessionResolver = typeof options === 'function' ? options : () => options
  const sessions = new Map<string, HttpSession>()
  // Every transport not yet closed (initialized or not), and releases still running.
  const open = new Set<StreamableHTTPServerTransport>()
  const releasing = new Set<Promise<void>>()
  let sweeper: NodeJS.Timeout | undefined
  let closed = false
  const sweep = () => {
    const now = Date.now()
    for (const s of sessions.values())
      if (s.inFlight === 0 && now - s.lastSeen > idleTimeoutMs) {
        if (s.transport.sessionId) sessions.delete(s.transport.sessionId)
        // Closing fires the session's onclose, which destroys its private workspace.
        void s.transport.close()
      }
    if (sessions.size === 0) {
      clearInterval(sweeper)
      sweeper = undefined
    }
  }
  const watchIdle = () => {
    if (sweeper) return
    sweeper = setInterval(sweep, Math.max(10, Math.min(idleTimeoutMs / 2, 60_000)))
    sweeper.unref()
  }
  const policy: OriginPolicy = { publicUrl, allowedOrigins }
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    try {
      // A web page the user visits must not reach this server (DNS rebinding, cross-site requests).
      const verdict = checkOriginAndHost(req.headers, req.socket.localPort ?? 0, policy)
      if (!verdict.ok) return reply(res, 403, verdict.message)
      if (req.headers.origin) {
        res.setHeader('access-control-allow-origin', req.headers.origin)
        res.setHeader('vary', 'Origin')
        for (const [k, v] of Object.entries(CORS_HEADERS)) res.setHeader(k, v)
        if (req.method === 'OPTIONS') {
          res.writeHead(204)
          return void res.end()
        }
      }
      if (token !== undefined) {
        const given = bearerToken(req)
        const challenge = { 'www-authenticate': 'Bearer' }
        if (given === undefined)
          return reply(res, 401, 'missing token: send Authorization: Bearer <token>', challenge)
        if (!sameSecret(given, token)) return reply(res, 401, 'invalid token', challenge)
      }
      const sessionId = req.headers['mcp-session-id']
      const id = Array.isArray(sessionId) ? sessionId[0] : sessionId
      const body = req.method === 'POST' ? await readJson(req) : undefined
      const existing = id ? sessions.get(id) : undefined
      if (existing && !sameSecret(credentialOf(req), existing.credential))
        return reply(res, 403, 'this MCP session was opened with another credential')
      if (existing) {
        existing.lastSeen = Date.now()
        // A POST (a tool call) may run longer than the idle timeout: the session is busy until it
        // is answered. A GET (the server's event stream) stays open for the session's life and
        // does not count, or an abandoned session would never time out.
        if (req.method === 'POST') {
          // Busy until the answer is sent (the transport answers a call after handleRequest returns).
          const session = existing
          session.inFlight++
          res.once('close', () => {
            session.inFlight--
            session.lastSeen = Date.now()
          })
        }
        return await existing.transport.handleRequest(req, res, body)
      }
      if (id) return reply(res, 404, 'unknown MCP session')
      if (closed) return reply(res, 503, 'the MCP server is shutting down')
      if (req.method !== 'POST' || !isInitializeRequest(body))
        return reply(res, 400, 'start a session with an initialize request')
      const sessionOptions = await resolve(req)
      const credential = credentialOf(req)
      let released = false
      const release = () => {
        if (released) return
        released = true
        const done = Promise.resolve()
          .then(() => sessionOptions.release?.())
          .catch(() => undefined)
          .finally(() => releasing.delete(done))
        releasing.add(done)
      }
      const created = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => {
          sessions.set(sid, { transport: created, credential, lastSeen: Date.now(), inFlight: 0 })
          watchIdle()
        },
      })
      open.add(created)
      created.onclose = () => {
        open.delete(created)
        if (created.sessionId) sessions.delete(created.sessionId)
        release()
      }
      try {
        const session = await createMcpSession(sessionOptions)
        await session.server.connect(created)
        await created.handleRequest(req, res, body)
      } finally {
        // Refused (bad headers, bad initialize) or failed: nobody can reach this session again.
        if (!created.sessionId || !sessions.has(created.sessionId)) {
          await created.close()
          release()
        }
      }
    } catch (error) {
      // One client's garbage must not take the server down.
      const status = error instanceof McpHttpRefusal ? error.status : 400
      if (!res.headersSent) reply(res, status, error instanceof Error ? error.message : 'bad request')
    }
  }
  return Object.assign(handler, {
    async close() {
      closed = true
      clearInterval(sweeper)
      sweeper = undefined
      for (const t of [...open]) await t.close()
      sessions.clear()
      await Promise.all([...releasing])
    },
  })
}

/** A standalone MCP HTTP server (`listenMcpHttp`). */
export interface McpHttpServer {
  server: HttpServer
  url: string
  /** The bearer token every request must carry (given, or generated at start). */
  token: string
  close(): Promise<void>
}

/**
 * Serve MCP at http://host:port/mcp until closed: on 127.0.0.1 unless told
 * otherwise, every request checked for Origin/Host and for the bearer
 * `token` (a random one when not given).
 */
export async function listenMcpHttp(
  options: McpSessionOptions & McpHttpOptions & { port?: number; host?: string },
): Promise<McpHttpServer> {
  const token = options.token ?? generateToken()
  const handler = createMcpHttpHandler(options, { ...options, token })
  const server = createServer((req, res) => {
    if (req.url?.split('?')[0] === '/mcp') void handler(req, res)
    else {
      res.writeHead(req.url === '/healthz' ? 200 : 404)
      res.end(req.url === '/healthz' ? 'ok' : 'not found')
    }
  })
  const host = options.host ?? '127.0.0.1'
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  const port = typeof address === 'object' && address ? address.port : options.port
  // A wildcard or IPv6 bind is still reached as 127.0.0.1 from this machine.
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host
  return {
    server,
    url: `http://${urlHost}:${port}/mcp`,
    token,
    async close() {
      await handler.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
