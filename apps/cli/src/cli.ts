/**
 * The `yfs` command line (commander). `serve` starts the sync server;
 * `start` starts it with the web app and a demo workspace (`pnpm start`);
 * `mcp` (from @yfs/agent, given the local data folder's stores:
 * mcp-local-stores.ts) and `sync` (from @yfs/sync) are mounted here;
 * `search` queries a server workspace's search index (search-command.ts);
 * `log` and `undo` show and take back agents' work (activity-command.ts);
 * `workspace create` and `token create` administer a store directly (no
 * server needed), for set-up scripts and recovery.
 *
 * Every option of `serve` has an environment fallback (YFS_PORT, YFS_HOST,
 * YFS_DATA, YFS_POSTGRES_URL, YFS_REDIS_URL, YFS_ADMIN_TOKEN, ...), so
 * secrets need not appear in process listings.
 */
import { collectOrigins, createMcpCommand, originArgument } from '@yfs/agent'
import {
  containUnhandledRejections,
  createLogger,
  createServer,
  type DataLock,
  type DocumentStore,
  type Logger,
  type LogLevel,
  lockDataFolder,
  type Role,
  workspaceIdProblem,
  type YfsServer,
} from '@yfs/server'
import { createSyncCommand } from '@yfs/sync'
import { Command, InvalidArgumentError, Option } from 'commander'
import { createLogCommand, createUndoCommand } from './activity-command.js'
import { defaultAppDir, runsInstalled } from './app-dir.js'
import { createBackupCommand } from './backup-command.js'
import { createBashCommand } from './bash-command.js'
import { applyConfigFile, CONFIG_FILE_DOC } from './config-file.js'
import { createFileCommands } from './file-commands.js'
import { openLocalStores } from './mcp-local-stores.js'
import { openStore, type StoreFlags } from './open-store.js'
import { createSearchCommand } from './search-command.js'
import { startDemo } from './start.js'
import { createExportCommand, createImportCommand } from './transfer-command.js'
import { serveStore } from './workspace-flags.js'

export { openStore } from './open-store.js'

/** The built web app: `dist/web` in the installed package, `apps/web/dist` in the repository (app-dir.ts). */
export const DEFAULT_APP_DIR = defaultAppDir()

/**
 * Shut down gracefully on SIGTERM/SIGINT (a second signal exits at once); an
 * unhandled rejection is logged and the server keeps serving (process-guards.ts).
 */
function stopOnSignals(server: YfsServer, store: DocumentStore, logger: Logger, lock?: DataLock): void {
  containUnhandledRejections(logger)
  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) {
      logger.warn('forced exit', { signal })
      process.exit(1)
    }
    stopping = true
    logger.info('signal', { signal })
    try {
      await server.close()
      await store.close()
      lock?.release()
      process.exit(0)
    } catch (error) {
      logger.error('shutdown failed', { error })
      process.exit(1)
    }
  }
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))
}

function integer(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer')
  return n
}

/**
 * A server's shared lock on its SQLite data folder (none with `--postgres`): other servers may
 * share it, a `yfs mcp` may not (persistence/data-lock.ts). Throws `DataFolderBusy`.
 */
function lockServerData(flags: StoreFlags, holder: string): DataLock | undefined {
  if (flags.postgres) return undefined
  return lockDataFolder(flags.data ?? './.yfs', {
    mode: 'shared',
    holder,
    advice:
      'stop it and let agents join the server with yfs mcp --server instead, or pass another --data folder',
  })
}

function storeOptions(command: Command): Command {
  return command
    .addOption(new Option('--data <dir>', 'SQLite data folder').env('YFS_DATA').conflicts('postgres'))
    .addOption(new Option('--postgres <url>', 'PostgreSQL connection string').env('YFS_POSTGRES_URL'))
    .addOption(
      new Option('--pg-schema <name>', 'PostgreSQL schema for the tables')
        .env('YFS_PG_SCHEMA')
        .default('yfs'),
    )
}

/**
 * Usage errors exit 2, as the documented exit codes say (commander's own status is 1, which the
 * file commands use for a failed operation); `--help` and `--version` still exit 0. Set on every
 * command: commands made apart and added with `addCommand` do not inherit it.
 */
export function exitTwoOnUsageErrors(command: Command): Command {
  command.exitOverride((error) => {
    process.exit(error.exitCode === 0 ? 0 : 2)
  })
  for (const sub of command.commands) exitTwoOnUsageErrors(sub)
  return command
}

export function createProgram(): Command {
  const program = new Command('yfs')
    .description('yfs: a collaborative filesystem for agents and people')
    .addOption(
      new Option(
        '--config <file>',
        'config file with defaults for --server, --token, --workspace, --data (default: $XDG_CONFIG_HOME/yfs/config.json, else ~/.config/yfs/config.json)',
      ).env('YFS_CONFIG'),
    )
    // Flags > environment > config file (config-file.ts).
    .hook('preSubcommand', applyConfigFile)
    .addHelpText('after', `\n${CONFIG_FILE_DOC}`)
  // `yfs mcp`: the agent tools over MCP (stdio or HTTP), from @yfs/agent; files in the data folder.
  program.addCommand(createMcpCommand({ openLocalStores: (dataDir) => openLocalStores({ dataDir }) }))
  // `yfs sync <dir>`: the disk sync daemon, from @yfs/sync.
  // With --data / --postgres the store is served on loopback for the run (workspace-flags.ts).
  program.addCommand(createSyncCommand((flags) => serveStore(flags, 'write')))
  // `yfs search <query>`: ranked search of a server workspace (search-command.ts).
  program.addCommand(createSearchCommand())
  // `yfs log` and `yfs undo`: the activity log and undo of a session (activity-command.ts).
  program.addCommand(createLogCommand())
  program.addCommand(createUndoCommand())
  // `yfs bash [script]`: the agents' bash tool from a terminal (bash-command.ts).
  program.addCommand(createBashCommand())
  // `yfs import` and `yfs export`: whole trees in and out, folders or tar (transfer-command.ts).
  program.addCommand(createImportCommand())
  program.addCommand(createExportCommand())
  // `yfs backup <file>` (and `yfs restore <file>`, in file-commands.ts): a whole workspace (backup-command.ts).
  program.addCommand(createBackupCommand())
  // `yfs ls|tree|stat|cat|history|diff|restore|trash|checkpoint` (file-commands.ts).
  for (const c of createFileCommands()) program.addCommand(c)

  storeOptions(program.command('serve').description('run the sync server'))
    .addOption(
      new Option('--port <n>', 'port (0: any free port)').env('YFS_PORT').default(4321).argParser(integer),
    )
    .addOption(new Option('--host <addr>', 'address to bind').env('YFS_HOST').default('127.0.0.1'))
    .addOption(
      new Option('--redis <url>', 'Redis URL, to share live edits between processes').env('YFS_REDIS_URL'),
    )
    .addOption(new Option('--redis-prefix <p>', 'Redis key prefix').env('YFS_REDIS_PREFIX').default('yfs'))
    .addOption(new Option('--admin-token <t>', 'token for the admin API').env('YFS_ADMIN_TOKEN'))
    .addOption(
      new Option('--max-message-bytes <n>', 'largest WebSocket message')
        .env('YFS_MAX_MESSAGE_BYTES')
        .argParser(integer),
    )
    .addOption(
      new Option('--log-level <level>', 'debug | info | warn | error')
        .env('YFS_LOG_LEVEL')
        .choices(['debug', 'info', 'warn', 'error'])
        .default('info'),
    )
    .addOption(new Option('--name <name>', 'instance name in logs').env('YFS_NAME'))
    .addOption(
      new Option('--app <dir>', 'built web app served at /').env('YFS_APP_DIR').default(DEFAULT_APP_DIR),
    )
    .addOption(
      new Option(
        '--public-url <url>',
        'the URL clients use to reach this server (its host and origin are allowed at /mcp)',
      )
        .env('YFS_PUBLIC_URL')
        .argParser(originArgument),
    )
    .addOption(
      new Option('--allow-origin <origin>', 'also accept /mcp requests from this web origin (repeatable)')
        .env('YFS_ALLOW_ORIGINS')
        .argParser(collectOrigins),
    )
    .action(async (flags) => {
      const logger = createLogger({ level: flags.logLevel as LogLevel })
      const lock = lockServerData(flags, 'yfs serve')
      const store = await openStore(flags)
      const server = createServer({
        store,
        logger,
        adminToken: flags.adminToken,
        redisUrl: flags.redis,
        redisPrefix: flags.redisPrefix,
        maxMessageBytes: flags.maxMessageBytes,
        name: flags.name,
        appDir: flags.app,
        publicUrl: flags.publicUrl,
        allowedOrigins: flags.allowOrigin,
      })
      stopOnSignals(server, store, logger, lock)
      await server.listen(flags.port, flags.host)
    })

  program
    .command('start')
    .description('run the server with the web app and a demo workspace (SQLite), and print its URL')
    .addOption(
      new Option('--port <n>', 'port (0: any free port)').env('YFS_PORT').default(4321).argParser(integer),
    )
    .addOption(new Option('--host <addr>', 'address to bind').env('YFS_HOST').default('127.0.0.1'))
    .addOption(new Option('--data <dir>', 'SQLite data folder').env('YFS_DATA').default('./.yfs'))
    .addOption(
      new Option('--app <dir>', 'built web app served at /').env('YFS_APP_DIR').default(DEFAULT_APP_DIR),
    )
    .addOption(new Option('--admin-token <t>', 'token for the admin API').env('YFS_ADMIN_TOKEN'))
    .addOption(
      new Option('--log-level <level>', 'server log lines on stderr: debug | info | warn | error')
        .env('YFS_LOG_LEVEL')
        .choices(['debug', 'info', 'warn', 'error'])
        .default('warn'),
    )
    .action(async (flags) => {
      // Logs on stderr: stdout keeps only the lines a person reads (the URL above all).
      const logger = createLogger({
        level: flags.logLevel as LogLevel,
        write: (line) => process.stderr.write(line),
      })
      const lock = lockServerData({ data: flags.data }, 'yfs start')
      const store = await openStore({ data: flags.data })
      try {
        const { server } = await startDemo({
          store,
          dataDir: flags.data,
          port: flags.port,
          host: flags.host,
          appDir: flags.app,
          logger,
          adminToken: flags.adminToken,
          // The agent command it prints: the installed package's bin, or the repository's script.
          yfsCommand: runsInstalled() ? 'npx yfs' : 'pnpm --silent yfs',
        })
        stopOnSignals(server, store, logger, lock)
      } catch (error) {
        await store.close()
        lock?.release()
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new Error(
            `port ${flags.port} is in use: stop what uses it, or pick another (--port N or YFS_PORT=N)`,
          )
        }
        throw error
      }
    })

  const workspace = program.command('workspace').description('administer workspaces in a store')
  storeOptions(workspace.command('create <id>').description('create a workspace')).action(
    async (id, flags) => {
      // Before a store is opened (or created): a clear reason, nothing touched.
      const problem = workspaceIdProblem(id)
      if (problem !== undefined) throw new Error(`invalid workspace id: ${problem}`)
      const store = await openStore(flags)
      try {
        const created = await store.createWorkspace(id)
        process.stdout.write(`${JSON.stringify({ id, created })}\n`)
      } finally {
        await store.close()
      }
    },
  )

  const token = program.command('token').description('administer tokens in a store')
  storeOptions(
    token
      .command('create <workspace>')
      .description('create a token and print it')
      .addOption(new Option('--role <role>', 'read | write').choices(['read', 'write']).default('write'))
      .option(
        '--name <name>',
        'whose token it is: agents using it are logged under this name (unless their MCP client names itself)',
      ),
  ).action(async (ws, flags) => {
    const store = await openStore(flags)
    try {
      const value = await store.createToken(ws, flags.role as Role, flags.name)
      const name = flags.name === undefined ? {} : { name: flags.name }
      process.stdout.write(`${JSON.stringify({ workspace: ws, role: flags.role, ...name, token: value })}\n`)
    } finally {
      await store.close()
    }
  })

  addExamples(program)
  return program
}

// `--help` examples for the commands defined without their own (the others add theirs).
const EXAMPLES: Record<string, string[]> = {
  serve: [
    'yfs serve --port 4321 --admin-token "$ADMIN"',
    'yfs serve --postgres postgres://127.0.0.1/yfs --redis redis://127.0.0.1:6379 --name node-1',
  ],
  start: ['yfs start', 'yfs start --port 8080 --data ./my-workspaces'],
  sync: ['yfs sync ./mirror --server ws://127.0.0.1:4321 --workspace team --token "$T"'],
  'workspace create': ['yfs workspace create team --data ./.yfs'],
  'token create': [
    'yfs token create team --role read --data ./.yfs',
    'yfs token create team --name "build-bot" --data ./.yfs   # its agents are logged as build-bot',
  ],
}

function addExamples(program: Command): void {
  const walk = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      const name = [...path, sub.name()].join(' ')
      const examples = EXAMPLES[name]
      if (examples) sub.addHelpText('after', `\nExamples:\n${examples.map((e) => `  ${e}`).join('\n')}`)
      walk(sub, [...path, sub.name()])
    }
  }
  walk(program, [])
}
