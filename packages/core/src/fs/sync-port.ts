/**
 * The sync port: what a mirror of the workspace (the disk sync daemon,
 * apps/sync) needs from a `YjsFileSystem` beyond `IFileSystem`, and no more.
 *
 * A mirror keeps its own record of every path it synced (id, content hash,
 * row stamp), so it reads rows by id, turns display paths into ids and back,
 * learns of peers' row changes, and writes disk metadata (mtime, mode) of
 * many rows at once. Everything else (writes, moves, deletes, reads of
 * content) goes through the filesystem's ordinary methods. The port keeps
 * the files table and the path index behind it, so they can change without
 * the mirror noticing.
 *
 * Paths are display paths (path-index.ts): two rows of one name in a folder
 * are shown as `f.txt` and `f (1).txt`, and a row whose stored name breaks
 * the name rules under its safe name; `row.name` stays the stored name.
 *
 * `observeOutvoted` is the one thing a mirror cannot see in row changes:
 * rows merge per field group (files-table.ts), and two content writes of one
 * file still race in the content group. A peer's content announcement that
 * arrives after a newer one of this replica (the mirror's own upload, or the
 * mtime it set) loses, changes no row, and so is never reported by
 * `observeRows`, while its content edit is merged in the content doc all the
 * same. The mirror must compare that file's content (core re-announces
 * merged content later, content-lifecycle.ts, but a mirror cannot wait for it).
 *
 * @example
 * const port = createSyncPort(fs)
 * const stop = port.observeRows((changes, local) => { if (!local) for (const id of changes.keys()) mark(id) })
 * port.setMetadata(new Map([[id, { updatedAt: mtime, mode: 0o755 }]]))
 */
import type { FileRow, FileRowChange } from '../files-table.js'
import type { FileId } from '../ids.js'
import { FS_ORIGIN } from './fs-context.js'
import type { YjsFileSystem } from './yjs-file-system.js'

/** The metadata a mirror writes from disk: the file's mtime and mode. */
export type RowMetadata = Partial<Pick<FileRow, 'updatedAt' | 'mode'>>

/** A mirror's view of a workspace's rows and paths (see the module comment). */
export interface SyncPort {
  /** The row of `id`, trashed or not; undefined when there is none. */
  row(id: FileId): FileRow | undefined
  /** The id shown at the display path `path` (`ROOT_ID` for `/`), without following symlinks. */
  idAt(path: string): FileId | undefined
  /** The row shown at `path` (as `idAt`). */
  rowAt(path: string): FileRow | undefined
  /** The display path of `id`; undefined when trashed, inside a trashed folder, or unknown. */
  pathOf(id: FileId): string | undefined
  /** Calls `fn` for every row shown in the tree (not trashed, nor inside a trashed folder), the root excepted. */
  forEachVisible(fn: (row: FileRow, path: string) => void): void
  /** The ids a folder shows or holds in its trash (its effective children, trashed ones included). */
  childrenOf(folder: FileId): ReadonlySet<FileId>
  /**
   * Row changes, once per transaction: `local` for this replica's own writes (a create has no
   * `before`), false for rows a peer changed. Returns the unsubscribe function.
   */
  observeRows(fn: (changes: ReadonlyMap<FileId, FileRowChange>, local: boolean) => void): () => void
  /**
   * File rows whose content announcement from a peer lost to another (the row's content metadata
   * now is not what the peer's entry said): their content may hold an edit no row change reported.
   * Called once the transaction that brought the entries is done (a microtask later), with each id
   * once per call. Returns the unsubscribe function.
   */
  observeOutvoted(fn: (ids: FileId[]) => void): () => void
  /** Write the metadata of many rows in one main-doc transaction (this filesystem's origin); rows gone are skipped. */
  setMetadata(patches: ReadonlyMap<FileId, RowMetadata>): void
}

/** The sync port of `fs` (stateless: observers are the only thing it holds, until unsubscribed). */
export function createSyncPort(fs: Pick<YjsFileSystem, 'table' | 'index'>): SyncPort {
  const { table, index } = fs
  return {
    row: (id) => table.get(id),
    idAt: (path) => index.lookup(path),
    rowAt(path) {
      const id = index.lookup(path)
      return id === undefined ? undefined : table.get(id)
    },
    pathOf: (id) => index.pathOf(id),
    forEachVisible(fn) {
      table.forEach((row) => {
        if (row.trashedAt !== null) return
        const path = index.pathOf(row.id)
        if (path !== undefined && path !== '/') fn(row, path)
      })
    },
    childrenOf: (folder) => index.allChildren(folder),
    observeRows: (fn) => table.observe((changes, source) => fn(changes, source.local)),
    observeOutvoted(fn) {
      // Entries are reported before the table picks the winner: looked at once the transaction is done.
      let arrived: FileRow[] = []
      return table.observeRemoteEntries((entry) => {
        if (entry.type !== 'file') return
        if (arrived.length === 0)
          queueMicrotask(() => {
            const entries = arrived
            arrived = []
            const ids = new Set<FileId>()
            for (const e of entries) {
              const row = table.get(e.id)
              if (!row || (row.updatedAt === e.updatedAt && row.size === e.size && row.sv === e.sv)) continue
              ids.add(e.id)
            }
            if (ids.size > 0) fn([...ids])
          })
        arrived.push(entry)
      })
    },
    setMetadata(patches) {
      table.batch(() => {
        for (const [id, patch] of patches) if (table.get(id)) table.update(id, patch, FS_ORIGIN)
      }, FS_ORIGIN)
    },
  }
}
