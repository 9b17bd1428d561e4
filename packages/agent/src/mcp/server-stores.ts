/**
 * Stores on a yfs sync server: each store is a server workspace, opened
 * with `@yfs/client`, so people in the browser and other agents see an
 * agent's changes live. A token is scoped to workspaces, so there is no
 * private workspace here: the session starts in the store named by
 * `--store`, and `stores open` reaches any other workspace the token allows.
 *
 * A tool call's result means stored (`settle`): it goes back once the server
 * has acknowledged the call's changes (rows, content, the activity entry), so
 * another agent or a person reading right after finds them, and neither a
 * server nor a `yfs mcp` killed right after loses them. Offline, or when the
 * server does not answer within `SETTLE_TIMEOUT_MS`, the result goes back
 * with a warning (the changes are kept and sent when the server is back).
 */
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import type { Searcher, YjsFileSystem } from '@yfs/core'
import { markdownCodec } from '@yfs/markdown'
import { ToolError } from '../tool-error.js'
import type { StoreProvider } from './stores.js'

export interface ServerStoresOptions {
  /** ws:// or http:// URL of the sync server. */
  url: string
  token: string
  author?: string
  /** WebSocket class for the connections (`connectWorkspace`'s option); the server's own sessions pass an in-process one. */
  WebSocket?: unknown
}

/** Server stores: close them to flush and disconnect every workspace. */
export interface ServerStores extends StoreProvider {
  /** Wait until the server has acknowledged (stored) every change of `fs` (rejects after `timeoutMs`, default 10 s). */
  flush(fs: YjsFileSystem, timeoutMs?: number): Promise<void>
  /** The workspace connection behind `fs` (its `status()`: online, unacknowledged documents). */
  connectionOf(fs: YjsFileSystem): WorkspaceConnection | undefined
  close(): Promise<void>
}

/** How long a tool call's result waits for the server to acknowledge its changes. */
export const SETTLE_TIMEOUT_MS = 10_000

export function createServerStores(options: ServerStoresOptions): ServerStores {
  const url = options.url.replace(/^http/, 'ws')
  const open = new Map<string, Promise<WorkspaceConnection>>()
  // The server's index answers `search` on a store (in process when the server has none).
  const searchers = new WeakMap<YjsFileSystem, Searcher>()
  const connections = new WeakMap<YjsFileSystem, WorkspaceConnection>()
  return {
    createPrivate() {
      throw new ToolError(
        'EINVAL',
        'with a sync server, name the workspace to use (yfs mcp --server URL --token T --store NAME)',
      )
    },
    async open(name) {
      let conn = open.get(name)
      if (!conn) {
        conn = connectWorkspace({
          url,
          workspace: name,
          token: options.token,
          ...(options.WebSocket === undefined ? {} : { WebSocket: options.WebSocket }),
          // At most 64 idle content docs (a person's client keeps 512): on a server each is a
          // document loaded there, and each provider on the socket makes every close slower
          // (Hocuspocus scans its listeners), which `sed -i` over 1,000 files paid per file.
          fs: { codecs: [markdownCodec], author: options.author ?? 'agent', maxIdle: 64 },
        })
        open.set(name, conn)
        // A failed connection is not cached: the next open tries again.
        conn.catch(() => open.delete(name))
      }
      const ws = await conn
      searchers.set(ws.fs, ws.searcher)
      connections.set(ws.fs, ws)
      return ws.fs
    },
    async flush(fs, timeoutMs) {
      await connections.get(fs)?.flush(timeoutMs)
    },
    connectionOf: (fs) => connections.get(fs),
    async settle(fs) {
      const connection = connections.get(fs)
      if (!connection) return
      if (!connection.status().online)
        throw new Error('offline: they are kept here and sent when the server is back')
      await connection.flush(SETTLE_TIMEOUT_MS)
    },
    searcherOf: (fs) => searchers.get(fs),
    list: () => [...open.keys()].sort(),
    async close() {
      for (const c of open.values())
        await c.then(
          (w) => w.close(),
          () => undefined,
        )
      open.clear()
    },
  }
}
