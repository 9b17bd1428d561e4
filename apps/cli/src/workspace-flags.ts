/**
 * The workspace a command works on, from its flags: through a yfs server
 * (`--server URL --token T`), or a data folder / PostgreSQL store served in
 * process for the length of the command with a token made for it (no other
 * server may run on a SQLite folder). Used by `log`, `undo` and `bash`.
 */
import { randomUUID } from 'node:crypto'
import { userInfo } from 'node:os'
import { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from '@yfs/agent'
import { connectWorkspace } from '@yfs/client'
import type { Searcher, YjsFileSystem } from '@yfs/core'
import { markdownCodec } from '@yfs/markdown'
import { createServer, silentLogger } from '@yfs/server'
import type { LocalServer } from '@yfs/sync'
import { type Command, Option } from 'commander'
import { openStore } from './open-store.js'

export interface WorkspaceFlags {
  server?: string
  token?: string
  workspace: string
  data?: string
  postgres?: string
  pgSchema?: string
}

export interface OpenedWorkspace {
  fs: YjsFileSystem
  /** What answers searches: the server's index where it has one (PostgreSQL), else this process's. */
  searcher: Searcher
  close(): Promise<void>
}

/** Open the workspace the flags name: through a server, or a data folder served in process for the command. */
export async function openWorkspace(flags: WorkspaceFlags, role: 'read' | 'write'): Promise<OpenedWorkspace> {
  const connect = async (url: string, token: string) =>
    connectWorkspace({
      url,
      workspace: flags.workspace,
      token,
      // A person at a terminal: their versions are signed as theirs, not an agent's.
      fs: { codecs: [markdownCodec], author: terminalUser() },
    })
  if (flags.server) {
    if (!flags.token) throw new Error('--server needs --token')
    const ws = await connect(String(flags.server).replace(/^http/, 'ws'), flags.token)
    return { fs: ws.fs, searcher: ws.searcher, close: () => ws.close() }
  }
  const local = await serveStore(flags, role)
  try {
    const ws = await connect(local.url, local.token)
    return { fs: ws.fs, searcher: ws.searcher, close: () => ws.close().finally(() => local.close()) }
  } catch (error) {
    await local.close()
    throw error
  }
}

/**
 * `openWorkspace` for a command's action: when the workspace cannot be opened (no server, wrong
 * token, no such workspace) it says why as `yfs <command>: …` and sets exit code 2; `undefined` then.
 */
export async function openWorkspaceOrExit(
  command: string,
  flags: WorkspaceFlags,
  role: 'read' | 'write',
): Promise<OpenedWorkspace | undefined> {
  try {
    return await openWorkspace(flags, role)
  } catch (error) {
    process.stderr.write(`yfs ${command}: ${(error as Error).message}\n`)
    process.exitCode = 2
    return undefined
  }
}

/**
 * Serve the workspace of a store (a data folder, PostgreSQL) on loopback for one command's run, with
 * a token of `role` made for it and revoked when it closes: the command's changes are stored as any
 * client's. Throws when the store has no such workspace.
 */
export async function serveStore(
  flags: Pick<WorkspaceFlags, 'workspace' | 'data' | 'postgres' | 'pgSchema'>,
  role: 'read' | 'write',
): Promise<LocalServer> {
  const store = await openStore(flags)
  try {
    if (!(await store.hasWorkspace(flags.workspace)))
      throw new Error(`no workspace '${flags.workspace}' in this store`)
    const server = createServer({ store, logger: silentLogger })
    const { port } = await server.listen(0, '127.0.0.1')
    const token = await store.createToken(flags.workspace, role)
    return {
      url: `ws://127.0.0.1:${port}`,
      token,
      async close() {
        await store.revokeToken(token)
        await server.close()
        await store.close()
      },
    }
  } catch (error) {
    await store.close()
    throw error
  }
}

/** The flags that name a workspace (and `--json`). */
export function workspaceOptions(command: Command): Command {
  return command
    .addOption(new Option('--server <url>', 'yfs server (ws://host:port)').env('YFS_SERVER'))
    .addOption(new Option('--token <token>', 'workspace token, with --server').env('YFS_TOKEN'))
    .addOption(new Option('--workspace <id>', 'the workspace').env('YFS_WORKSPACE').makeOptionMandatory())
    .addOption(
      new Option('--data <dir>', 'or: a SQLite data folder (no server running on it)').conflicts('server'),
    )
    .addOption(new Option('--postgres <url>', 'or: a PostgreSQL store').conflicts(['server', 'data']))
    .addOption(new Option('--pg-schema <name>', 'PostgreSQL schema').default('yfs'))
    .option('--json', 'print JSON')
}

/** Who a command run from a terminal acts as: `cli:<user>` (its versions and activity entries). */
export const terminalUser = (): string => `cli:${userInfo().username}`

/** The agents' tools for one command run from a terminal: one activity session, in the user's name. */
export function terminalTools(fs: YjsFileSystem, options: ToolRegistryOptions = {}): ToolRegistry {
  const who = terminalUser()
  return createToolRegistry(fs, { ...options, activity: { session: `cli-${randomUUID()}`, who: () => who } })
}
