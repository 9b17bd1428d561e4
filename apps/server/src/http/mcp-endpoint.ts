/**
 * `/mcp`: the agent tools over MCP Streamable HTTP, served by the sync server.
 *
 * A session is opened with `Authorization: Bearer <workspace write token>`;
 * its tools work in that token's workspace, opened through `@yfs/client` on
 * this server's own WebSocket, so people and other agents see the changes
 * live and the server stores them like any client's. Read tokens are
 * refused (403): the tools write.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createMcpHttpHandler, createServerStores, McpHttpRefusal } from '@yfs/agent'
import type { DocumentStore } from '../persistence/document-store.js'

export interface McpEndpoint {
  handle(request: IncomingMessage, response: ServerResponse): Promise<void>
  close(): Promise<void>
}

export function createMcpEndpoint(options: {
  store: DocumentStore
  wsUrl: () => string | undefined
}): McpEndpoint {
  const providers = new Set<{ close(): Promise<void> }>()
  const handler = createMcpHttpHandler(async (req) => {
    const auth = req.headers.authorization
    const token = auth?.startsWith('Bearer ') ? auth.slice('Bearer '.length).trim() : undefined
    if (!token) throw new McpHttpRefusal(401, 'missing token: send Authorization: Bearer <workspace token>')
    const grant = await options.store.resolveToken(token)
    if (!grant) throw new McpHttpRefusal(401, 'invalid token')
    if (grant.role !== 'write') throw new McpHttpRefusal(403, 'the agent tools need a write token')
    const url = options.wsUrl()
    if (!url) throw new McpHttpRefusal(503, 'the server is not listening yet')
    const stores = createServerStores({ url, token })
    providers.add(stores)
    return { stores, store: grant.workspace }
  })
  return {
    handle: handler,
    async close() {
      await handler.close()
      for (const p of providers) await p.close()
      providers.clear()
    },
  }
}
