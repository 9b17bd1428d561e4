/**
 * The `mcp` subcommand: the MCP server on stdio (default) or Streamable HTTP,
 * on workspaces in a local data folder (when the mounting CLI passes
 * `openLocalStores`: the full `yfs` of apps/cli does), on throwaway
 * in-memory ones (`--memory`, and the only kind this package's own bin has),
 * or on a sync server's (`--server`). A commander command, so the one `yfs`
 * CLI (apps/cli) can mount it.
 *
 * On stdio it exits when its standard input closes (the MCP client is gone)
 * or on SIGTERM/SIGINT, after closing its stores: a local data folder gets
 * every edit stored and its lock released, a server connection its pending
 * edits flushed and its socket closed.
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
import { createMemoryStores, type StoreProvider } from './mcp/stores.js'

/** Stores the command closes when it stops (flushing what they hold). */
export type ClosableStores = StoreProvider & { close?(): Promise<void> }

export interface McpCommandOptions {
  /**
   * Open the workspaces of a local data folder; with it the command takes `--data` (default
   * `./.yfs`, env YFS_DATA) and keeps its files there unless `--memory`. Without it (this
   * package's own bin, which has no storage) every run is in memory.
   */
  openLocalStores?: (dataDir: string) => Promise<ClosableStores>
}

/** How long a stopping `yfs mcp` waits for its stores to flush and close before it exits anyway. */
const STOP_TIMEOUT_MS = 10_000

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
  data?: string
  memory?: boolean
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

/**
 * Close `stores` and exit when stdin ends, or on SIGTERM/SIGINT (a second signal exits at once).
 * `extra` runs first (the HTTP listener). Exit code 0, or 1 when closing failed or timed out.
 */
function stopOnStdinEndOrSignal(stores: ClosableStores, watchStdin: boolean, extra?: () => Promise<void>) {
  let stopping = false
  const stop = async (signal: boolean) => {
    if (stopping) {
      // A second signal exits at once; stdin's 'end' and 'close' both arrive once it closes.
      if (signal) process.exit(1)
      return
    }
    stopping = true
    const timer = setTimeout(() => {
      process.stderr.write('yfs mcp: stores did not close in time; exiting\n')
      process.exit(1)
    }, STOP_TIMEOUT_MS)
    timer.unref()
    try {
      await extra?.()
      await stores.close?.()
      process.exit(0)
    } catch (error) {
      process.stderr.write(`yfs mcp: closing failed: ${(error as Error).message}\n`)
      process.exit(1)
    }
  }
  if (watchStdin) {
    // 'end' when the client closes the pipe; 'close' also covers a destroyed stream.
    process.stdin.once('end', () => void stop(false))
    process.stdin.once('close', () => void stop(false))
  }
  process.on('SIGTERM', () => void stop(true))
  process.on('SIGINT', () => void stop(true))
}

const HELP_EXAMPLES = `
Examples:
  yfs mcp                                   files in ./.yfs (SQLite), store 'default'
  yfs mcp --data ~/agent-files --store notes
  yfs mcp --memory                          throwaway workspaces, gone on exit
  yfs mcp --server ws://127.0.0.1:4321 --token T --store team
  yfs mcp --http 8765                       Streamable HTTP on 127.0.0.1:8765

MCP client configuration (stdio; give an absolute --data: clients start it in any folder):
  {"mcpServers": {"yfs": {"command": "yfs", "args": ["mcp", "--data", "/home/me/.yfs"]}}}

It exits when its standard input closes (the client is gone) or on SIGTERM/SIGINT,
after storing every edit. One yfs mcp per data folder, and none beside a yfs serve on it
(join the server with --server). Exit codes: 0 stopped, 1 failed (e.g. the data folder
is in use), 2 bad options.
`

const MEMORY_HELP_EXAMPLES = `
Examples:
  yfs mcp                                   a private in-memory workspace, gone on exit
  yfs mcp --server ws://127.0.0.1:4321 --token T --store team
  yfs mcp --http 8765                       Streamable HTTP on 127.0.0.1:8765

It exits when its standard input closes or on SIGTERM/SIGINT. To keep files in a
local data folder use the full \`yfs\` CLI (apps/server), whose \`yfs mcp\` stores them.
`

export function createMcpCommand(options: McpCommandOptions = {}): Command {
  const local = options.openLocalStores
  const command = new Command('mcp')
    .description(
      local
        ? 'serve the yfs agent tools over MCP (stdio unless --http), files kept in a local data folder'
        : 'serve the yfs agent tools over MCP (stdio unless --http), in memory',
    )
    .option(
      '--store <name>',
      local
        ? "the store (workspace) to start in (default 'default'; with --memory: a private one)"
        : 'start in this shared store instead of a private workspace',
    )
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
  if (local)
    command
      .addOption(
        new Option(
          '--data <dir>',
          'local data folder (SQLite), as yfs serve --data; unused with --server or --memory',
        )
          .env('YFS_DATA')
          // No conflicts(): a YFS_DATA in the environment must not break --server or --memory.
          .default('./.yfs'),
      )
      .addOption(
        new Option('--memory', 'keep workspaces in memory only: they vanish on exit').conflicts('server'),
      )
  return command
    .addHelpText('after', local ? HELP_EXAMPLES : MEMORY_HELP_EXAMPLES)
    .action(async (opts: McpFlags) => {
      if (opts.server && (!opts.token || !opts.store)) {
        process.stderr.write('yfs mcp: --server needs --token and --store (the workspace to work in)\n')
        process.exit(2)
      }
      if (opts.http !== undefined && opts.httpToken !== undefined && opts.httpToken.length < 16) {
        process.stderr.write('yfs mcp: --http-token must be at least 16 characters\n')
        process.exit(2)
      }
      // Options are checked before this: opening a data folder locks it and starts a server.
      let stores: ClosableStores
      if (opts.server) stores = createServerStores({ url: opts.server, token: opts.token! })
      else if (local && !opts.memory) stores = await local(opts.data ?? './.yfs')
      else stores = createMemoryStores()
      if (opts.http !== undefined) {
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
        stopOnStdinEndOrSignal(stores, false, () => served.close())
        return
      }
      const session = await createMcpSession({ stores, store: opts.store })
      await session.server.connect(new StdioServerTransport())
      stopOnStdinEndOrSignal(stores, true, () => session.server.close())
    })
}
