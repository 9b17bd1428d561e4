/**
 * The `mcp` subcommand: the MCP server on stdio (default) or Streamable HTTP,
 * on private in-memory workspaces or on a sync server's workspaces. A
 * commander command, so the one `yfs` CLI (apps/server) can mount it.
 *
 * Over HTTP every request needs a bearer token (`--http-token`, env
 * YFS_MCP_HTTP_TOKEN, or one generated at start and printed with a
 * ready-to-paste client configuration) and passes the Origin/Host check;
 * it binds 127.0.0.1 unless `--host` says otherwise (then it warns).
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { Command, InvalidArgumentError, Option } from 'commander'
import { listenMcpHttp } from './mcp/http.js'
import { normalizeOrigin } from './mcp/origin-guard.js'
import { createMcpSession } from './mcp/server.js'
import { createServerStores } from './mcp/server-stores.js'
import { createMemoryStores } from './mcp/stores.js'

/** commander parser for an http(s) origin or URL (`--allow-origin`, `--public-url`). */
export function originArgument(value: string): string {
  try {
    return normalizeOrigin(value)
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message)
  }
}

/** commander parser for a repeatable origin flag; the env fallback may hold several, comma-separated. */
export function collectOrigins(value: string, previous: string[] = []): string[] {
  const given = value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean)
  return [...previous, ...given.map(originArgument)]
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1'])

interface McpFlags {
  store?: string
  http?: string
  host: string
  server?: string
  token?: string
  httpToken?: string
  publicUrl?: string
  allowOrigin?: string[]
}

/** What a person pastes into an MCP client's configuration to reach this server. */
function clientConfig(url: string, token: string): string {
  return JSON.stringify(
    { mcpServers: { yfs: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } } } },
    null,
    2,
  )
}

export function createMcpCommand(): Command {
  return new Command('mcp')
    .description('serve the yfs agent tools over MCP (stdio unless --http)')
    .option('--store <name>', 'start in this shared store instead of a private workspace')
    .option('--http <port>', 'serve Streamable HTTP on this port (0 = any) instead of stdio')
    .addOption(
      new Option(
        '--host <addr>',
        'address to bind with --http (other than loopback: reachable from the network)',
      )
        .env('YFS_MCP_HOST')
        .default('127.0.0.1'),
    )
    .addOption(
      new Option(
        '--http-token <token>',
        'bearer token clients must send with --http (default: a random one, printed)',
      ).env('YFS_MCP_HTTP_TOKEN'),
    )
    .addOption(
      new Option(
        '--public-url <url>',
        'with --http: the public URL clients use (its host and origin are allowed)',
      )
        .env('YFS_MCP_PUBLIC_URL')
        .argParser(originArgument),
    )
    .addOption(
      new Option(
        '--allow-origin <origin>',
        'with --http: also accept requests from this web origin (repeatable)',
      )
        .env('YFS_MCP_ALLOW_ORIGINS')
        .argParser(collectOrigins),
    )
    .option('--server <url>', 'use the workspaces of a yfs sync server (ws://host:port)')
    .option('--token <token>', 'workspace token for --server')
    .action(async (opts: McpFlags) => {
      if (opts.server && (!opts.token || !opts.store)) {
        process.stderr.write('yfs mcp: --server needs --token and --store (the workspace to work in)\n')
        process.exit(2)
      }
      const stores = opts.server
        ? createServerStores({ url: opts.server, token: opts.token! })
        : createMemoryStores()
      if (opts.http !== undefined) {
        if (opts.httpToken !== undefined && opts.httpToken.length < 16) {
          process.stderr.write('yfs mcp: --http-token must be at least 16 characters\n')
          process.exit(2)
        }
        if (!LOOPBACK_HOSTS.has(opts.host))
          process.stderr.write(
            `yfs mcp: warning: binding ${opts.host}: the agent tools are reachable from the network by anyone with the token; prefer 127.0.0.1\n`,
          )
        const served = await listenMcpHttp({
          stores,
          store: opts.store,
          port: Number(opts.http),
          host: opts.host,
          token: opts.httpToken,
          publicUrl: opts.publicUrl,
          allowedOrigins: opts.allowOrigin,
        })
        process.stderr.write(`yfs mcp: listening on ${served.url}\n`)
        // stdout is the person's: the token (when generated) and a configuration to paste.
        const shown = opts.httpToken === undefined ? served.token : '<your --http-token>'
        process.stdout.write(
          `${opts.httpToken === undefined ? `token: ${served.token}\n` : ''}MCP client configuration:\n${clientConfig(served.url, shown)}\n`,
        )
        return
      }
      const session = await createMcpSession({ stores, store: opts.store })
      await session.server.connect(new StdioServerTransport())
    })
}
