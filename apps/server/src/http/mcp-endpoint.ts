/**
 * `/mcp`: the agent tools over MCP Streamable HTTP, served by the sync server.
 *
 * A session is opened with `Authorization: Bearer <workspace write token>`;
 * its tools work in that token's workspace, opened through `@yfs/client` on
 * a connection to this server inside its process (protocol/in-process-socket.ts:
 * the same guard, authentication and Hocuspocus as a network client, no TCP),
 * so people and other agents see the changes live and the server stores them
 * like any client's. Read tokens are
 * refused (403): the tools write. Before any of that, every request passes
 * the Origin/Host check of @yfs/agent (403 naming the header): loopback on
 * this server's port, `publicUrl`, and `allowedOrigins`.
 *
 * Invariant: a session's workspace connection (one connection to this server,
 * and the documents it loads) lives exactly as long as the session: it is
 * closed on `DELETE`, idle timeout, a refused initialize and `close()`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  bearerToken,
  createMcpHttpHandler,
  createServerStores,
  keepShellWorkersWarm,
  McpHttpRefusal,
} from '@yfs/agent'
import type { DocumentStore } from '../persistence/document-store.js'

export interface McpEndpoint {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>
  close(): Promise<void>
}

export interface McpEndpointOptions {
  store: DocumentStore
  /** This server's own WebSocket URL, once it listens. */
  wsUrl: () => string | undefined
  /** WebSocket class the sessions connect with (default: the network's, to `wsUrl`). */
  WebSocket?: unknown
  /** Close sessions with no request for this long (default 30 minutes). */
  idleTimeoutMs?: number
  /** This server's public URL: its host is allowed as Host and its origin as Origin. */
  publicUrl?: string
  /** More web origins allowed to call `/mcp`. */
  allowedOrigins?: readonly string[]
}

/** The `/mcp` request handler of the sync server; `close()` ends every session and its connection. */
export function createMcpEndpoint(options: McpEndpointOptions): McpEndpoint {
  const handler = createMcpHttpHandler(async (req) => {
    const token = bearerToken(req)
    if (!token) throw new McpHttpRefusal(401, 'missing token: send Authorization: Bearer <workspace token>')
    const grant = await options.store.resolveToken(token)
    if (!grant) throw new McpHttpRefusal(401, 'invalid token')
    if (grant.role !== 'write') throw new McpHttpRefusal(403, 'the agent tools need a write token')
    const url = options.wsUrl()
    if (!url) throw new McpHttpRefusal(503, 'the server is not listening yet')
    const stores = createServerStores({
      url,
      token,
      ...(options.WebSocket === undefined ? {} : { WebSocket: options.WebSocket }),
    })
    // Agents are logged under their MCP client's name, else the token's.
    return {
      stores,
      store: grant.workspace,
      ...(grant.name !== undefined ? { who: grant.name } : {}),
      release: () => stores.close(),
    }
  }, options)
  // Agents' sessions come and go; a bash worker ended between them would start cold for the next
  // one (a new V8 isolate: an agent's first loops ran about twice as slow until just-bash was
  // compiled again). The server keeps its idle workers (at most two, see the pool) while it runs.
  const releaseWorkers = keepShellWorkersWarm()
  return {
    handle: handler,
    async close() {
      try {
        await handler.close()
      } finally {
        releaseWorkers()
      }
    },
  }
}
