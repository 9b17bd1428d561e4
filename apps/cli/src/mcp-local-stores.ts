/**
 * The stores of `yfs mcp` without `--server`: workspaces kept in a local data
 * folder (the SQLite file `yfs serve --data` uses), so an MCP client that
 * restarts the command finds its files again.
 *
 * It runs the sync server in process on a loopback port and opens each
 * workspace through `@yfs/client` (as the server's own `/mcp` does), so the
 * documents are stored exactly as `yfs serve` stores them: the same rows,
 * checks and compaction, and `yfs serve --data <same folder>` later shows the
 * agent's files in the browser. Each opened workspace gets a write token,
 * revoked on close (only its hash is stored; one left by a crash is unusable).
 *
 * The folder is locked for the process (persistence/data-lock.ts): a second
 * `yfs mcp` on it, or one on a folder a `yfs serve` uses, fails at start with
 * an error naming the folder and the holder.
 *
 * A session starts in the store named by `--store`, else in `DEFAULT_LOCAL_STORE`. Each
 * tool call's changes are stored before its result goes back (`settle`), so a client that
 * kills the process right after a result still finds the change.
 */
import { join } from 'node:path'
import {
  createMemoryStores,
  createServerStores,
  type ServerStores,
  type StoreProvider,
  ToolError,
} from '@yfs/agent'
import type { YjsFileSystem } from '@yfs/core'
import {
  createLogger,
  createServer,
  createSqliteStore,
  type Logger,
  lockDataFolder,
  workspaceIdProblem,
} from '@yfs/server'

/** The workspace a local `yfs mcp` session starts in when `--store` names none. */
export const DEFAULT_LOCAL_STORE = 'default'

/** The SQLite file of a data folder (`yfs serve --data`, `yfs mcp --data`). */
export const sqliteFileOf = (dataDir: string): string => join(dataDir, 'yfs.sqlite')

export interface LocalStoresOptions {
  /** The data folder (created if needed). */
  dataDir: string
  /** Server log lines (default: warnings and errors on stderr; stdout is the MCP channel). */
  logger?: Logger
}

export type LocalStores = StoreProvider & { close(): Promise<void> }

/**
 * Lock `dataDir`, open its store and serve it on loopback. Throws `DataFolderBusy` when another
 * process holds the folder. `close()` flushes every workspace, then releases everything.
 */
export async function openLocalStores(options: LocalStoresOptions): Promise<LocalStores> {
  const lock = lockDataFolder(options.dataDir, {
    mode: 'exclusive',
    holder: 'yfs mcp',
    advice:
      'stop it, or pass another --data folder (or --memory); beside a running yfs serve, use yfs mcp --server URL --token T --store W',
  })
  const store = createSqliteStore({ file: sqliteFileOf(lock.folder) })
  const logger =
    options.logger ?? createLogger({ level: 'warn', write: (line) => process.stderr.write(line) })
  const server = createServer({ store, logger })
  let address: Awaited<ReturnType<typeof server.listen>>
  try {
    address = await server.listen(0, '127.0.0.1')
  } catch (error) {
    await store.close()
    lock.release()
    throw error
  }
  const url = `ws://127.0.0.1:${address.port}`
  const opened = new Map<string, Promise<{ stores: ServerStores; token: string }>>()
  const owners = new Map<YjsFileSystem, ServerStores>()

  const connect = async (name: string) => {
    const problem = workspaceIdProblem(name)
    if (problem !== undefined) throw new ToolError('EINVAL', `invalid store name '${name}': ${problem}`)
    await store.createWorkspace(name)
    const token = await store.createToken(name, 'write')
    return { stores: createServerStores({ url, token }), token }
  }

  return {
    defaultStore: DEFAULT_LOCAL_STORE,
    // Unused while defaultStore is set; a throwaway workspace if a caller asks anyway.
    createPrivate: () => createMemoryStores().createPrivate(),
    async open(name) {
      let entry = opened.get(name)
      if (!entry) {
        entry = connect(name)
        opened.set(name, entry)
        // A failed open is not cached: the next one tries again.
        entry.catch(() => opened.delete(name))
      }
      const { stores } = await entry
      const fs = await stores.open(name)
      owners.set(fs, stores)
      return fs
    },
    list: () => store.listWorkspaces(),
    searcherOf: (fs) => owners.get(fs)?.searcherOf?.(fs),
    // A tool result means stored: the in-process server has appended the call's changes.
    settle: async (fs) => owners.get(fs)?.settle?.(fs),
    async close() {
      const entries = await Promise.allSettled(opened.values())
      opened.clear()
      for (const entry of entries) {
        if (entry.status !== 'fulfilled') continue
        // close() flushes: every acknowledged edit is in the store before the server stops.
        await entry.value.stores.close()
        await store.revokeToken(entry.value.token)
      }
      await server.close()
      await store.close()
      lock.release()
    },
  }
}
