/**
 * The `mcp` subcommand: the MCP server on stdio (default) or Streamable HTTP,
 * on private in-memory workspaces or on a sync server's workspaces. A
 * commander command, so the one `yfs` CLI (apps/server) can mount it.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { Command } from 'commander'
import { listenMcpHttp } from './mcp/http.js'
import { createMcpSession } from './mcp/server.js'
import { createServerStores } from './mcp/server-stores.js'
import { createMemoryStores } from './mcp/stores.js'

export function createMcpCommand(): Command {
  return new Command('mcp')
    .description('serve the yfs agent tools over MCP (stdio unless --http)')
    .option('--store <name>', 'start in this shared store instead of a private workspace')
    .option('--http <port>', 'serve Streamable HTTP on this port (0 = any) instead of stdio')
    .option('--server <url>', 'use the workspaces of a yfs sync server (ws://host:port)')
    .option('--token <token>', 'workspace token for --server')
    .action(async (opts: { store?: string; http?: string; server?: string; token?: string }) => {
      if (opts.server && (!opts.token || !opts.store)) {
        process.stderr.write('yfs mcp: --server needs --token and --store (the workspace to work in)\n')
        process.exit(2)
      }
      const stores = opts.server
        ? createServerStores({ url: opts.server, token: opts.token! })
        : createMemoryStores()
      if (opts.http !== undefined) {
        const { url } = await listenMcpHttp({ stores, store: opts.store, port: Number(opts.http) })
        process.stderr.write(`yfs mcp: listening on ${url}\n`)
        return
      }
      const session = await createMcpSession({ stores, store: opts.store })
      await session.server.connect(new StdioServerTransport())
    })
}
