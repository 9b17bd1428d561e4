/**
 * `yfs sync <dir> --server URL --workspace W --token T`: connect to a sync
 * server and mirror the workspace into `<dir>` until SIGINT/SIGTERM, which
 * finish in-flight writes, flush to the server and exit 0.
 *
 * Mounted into the `yfs` command by apps/cli (like `yfs mcp`); also runs
 * alone through src/main.ts. Every option has an environment fallback
 * (YFS_SERVER, YFS_WORKSPACE, YFS_TOKEN), so the token need not appear in
 * process listings.
 */
import { hostname } from 'node:os'
import { connectWorkspace } from '@yfs/client'
import { markdownCodec } from '@yfs/markdown'
import { Command, Option } from 'commander'
import { createReporter } from './output.js'
import { syncFolder } from './sync-folder.js'

interface SyncFlags {
  server?: string
  workspace: string
  token?: string
  data?: string
  postgres?: string
  pgSchema: string
  verbose: boolean
  json: boolean
  ignore: string[]
  defaultIgnores: boolean
  poll: boolean
  progress: boolean
}

/** A server for the command's run on a store (`--data`, `--postgres`): its URL and a token for `workspace`. */
export interface LocalServer {
  url: string
  token: string
  close(): Promise<void>
}

/** Serves a data folder or PostgreSQL store for one run of `yfs sync` (apps/cli gives it; the daemon has no server). */
export type ServeStore = (flags: {
  data?: string
  postgres?: string
  pgSchema: string
  workspace: string
}) => Promise<LocalServer>

/**
 * The `sync` subcommand (commander). With `serveStore` it also takes `--data` / `--postgres`: a
 * workspace in a store with no server running, served on loopback for the run.
 */
export function createSyncCommand(serveStore?: ServeStore): Command {
  const command = new Command('sync')
    .description('mirror a workspace to a folder, both ways, until stopped')
    .argument('<dir>', 'folder to mirror into (created when missing)')
    .addOption(new Option('--server <url>', 'sync server WebSocket URL').env('YFS_SERVER'))
    .addOption(new Option('--workspace <id>', 'workspace id').env('YFS_WORKSPACE').makeOptionMandatory())
    .addOption(new Option('--token <t>', 'workspace token, with --server').env('YFS_TOKEN'))
  if (serveStore)
    command
      .addOption(
        new Option('--data <dir>', 'or: a SQLite data folder with no server running on it').conflicts(
          'server',
        ),
      )
      .addOption(new Option('--postgres <url>', 'or: a PostgreSQL store').conflicts(['server', 'data']))
      .addOption(new Option('--pg-schema <name>', 'PostgreSQL schema').default('yfs'))
  return command
    .option('--verbose', 'one line per change, with its direction', false)
    .option('--json', 'one JSON line per event', false)
    .option('--ignore <pattern...>', 'extra ignore patterns (.gitignore syntax)', [])
    .option('--no-default-ignores', 'do not ignore .git/ and node_modules/ by default')
    .option('--poll', 'poll the folder instead of native file events', false)
    .option('--no-progress', 'no progress bar for the initial pass')
    .action(async (dir: string, flags: SyncFlags) => {
      const local =
        serveStore && (flags.data !== undefined || flags.postgres !== undefined)
          ? await serveStore({
              ...(flags.data !== undefined ? { data: flags.data } : {}),
              ...(flags.postgres !== undefined ? { postgres: flags.postgres } : {}),
              pgSchema: flags.pgSchema,
              workspace: flags.workspace,
            })
          : undefined
      const url = local?.url ?? flags.server
      const token = local?.token ?? flags.token
      if (!url || !token) {
        command.error(
          serveStore
            ? 'error: yfs sync needs --server URL and --token T, or --data DIR (or --postgres URL)'
            : 'error: yfs sync needs --server URL and --token T',
          { exitCode: 2 },
        )
      }
      const reporter = createReporter({
        verbose: flags.verbose,
        json: flags.json,
        ...(flags.progress ? {} : { progress: false }),
      })
      let stopping = false
      let started = false
      const connection = await connectWorkspace({
        url: url!,
        workspace: flags.workspace,
        token: token!,
        fs: { codecs: [markdownCodec], author: `disk:${hostname()}` },
      })
      const stop = async (signal: string, code = 0) => {
        if (stopping) process.exit(1)
        stopping = true
        try {
          // Signals are taken from the `ready` event on, when syncFolder is about to resolve.
          const sync = await syncing
          await sync.close()
          await connection.close(10_000)
          await local?.close()
          reporter.stop()
          process.exit(code)
        } catch (error) {
          process.stderr.write(
            `yfs sync: ${signal}: ${error instanceof Error ? error.message : String(error)}\n`,
          )
          process.exit(1)
        }
      }
      const syncing = syncFolder({
        fs: connection.fs,
        dir,
        workspace: flags.workspace,
        ignore: flags.ignore,
        useDefaultIgnores: flags.defaultIgnores,
        usePolling: flags.poll,
        onEvent: (event) => {
          // From the `in sync` line on, a signal finishes in-flight work (before it, the initial
          // pass, the process ends at once): handlers first, so a caller that signals as soon as
          // it reads the line is never too early.
          if (event.type === 'ready') {
            process.on('SIGINT', () => void stop('SIGINT'))
            process.on('SIGTERM', () => void stop('SIGTERM'))
          }
          reporter(event)
          // The sync stops on its own when its folder is removed: exit 1 then.
          if (event.type === 'stopped' && started && !stopping) void stop('stopped', 1)
        },
      })
      await syncing.catch(async (error: unknown) => {
        await connection.close()
        await local?.close()
        throw error
      })
      started = true
    })
}
