/**
 * Stores on a yfs sync server: each store is a server workspace, opened
 * with `@yfs/client`, so people in the browser and other agents see an
 * agent's changes live. A token is scoped to workspaces, so there is no
 * private workspace here: the session starts in the store named by
 * `--store`, and `stores open` reaches any other workspace the token allows.
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
  close(): Promise<void>
}

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
