/**
 * Stores (seed 002): a store is a named workspace. Each MCP session starts in
 * a private workspace of its own; opening a named store (the `store` option,
 * or the `stores` tool) puts the session into a workspace shared by every
 * session that opens the same name. With a sync server, `open` returns the
 * server's workspace, so people in the browser see the agent's changes live.
 */
import { createFileSystem, type Searcher, type YjsFileSystem } from '@yfs/core'
import { markdownCodec } from '@yfs/markdown'

export interface StoreProvider {
  /** A fresh private workspace for one session. */
  createPrivate(): Promise<YjsFileSystem> | YjsFileSystem
  /** The shared workspace called `name` (created on first open). */
  open(name: string): Promise<YjsFileSystem> | YjsFileSystem
  /** Names of the shared stores this provider knows. */
  list(): Promise<string[]> | string[]
  /** What answers `search` on a filesystem of this provider (default: its in-process index). */
  searcherOf?(fs: YjsFileSystem): Searcher | undefined
  /**
   * The shared store a session starts in when none is named, instead of a private
   * workspace (a persistent provider: its files outlive the session and the process).
   */
  defaultStore?: string
  /**
   * Called after each tool call on `fs`; resolves once the call's changes are durable (a local
   * data folder: stored). A rejection is reported with the call's result, which still stands.
   */
  settle?(fs: YjsFileSystem): Promise<void>
}

/** Stores kept in this process's memory. */
export function createMemoryStores(): StoreProvider {
  const stores = new Map<string, YjsFileSystem>()
  const make = () => createFileSystem({ codecs: [markdownCodec], author: 'agent' })
  return {
    createPrivate: make,
    open(name) {
      let fs = stores.get(name)
      if (!fs) {
        fs = make()
        stores.set(name, fs)
      }
      return fs
    },
    list: () => [...stores.keys()].sort(),
  }
}
