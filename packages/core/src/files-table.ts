/**
 * The files table: one row per file, folder or symlink, stored on the main
 * `Y.Doc` as a last-writer-wins map (`lww-map.ts`) in `Y.Array(FILES_TABLE_KEY)`.
 *
 * Rows are validated with arktype. A local write of an invalid row is a bug
 * (TypeError); an invalid row from a peer is ignored (treated as absent) so
 * one bad client cannot break everybody's tree.
 *
 * Paths are never stored: a row knows its `parentId` and `name`, and
 * `path-index.ts` derives paths at run time.
 */
import { type } from 'arktype'
import type * as Y from 'yjs'
import type { FileId } from './ids.js'
import { attachLwwMap, type LwwChange, type LwwEntry, type LwwMap } from './lww-map.js'

/** Name of the `Y.Array` on the main doc that holds the files table. */
export const FILES_TABLE_KEY = 'files'

export const FileRowSchema = type({
  id: 'string > 0',
  name: 'string > 0',
  parentId: 'string | null',
  type: "'file' | 'folder' | 'symlink'",
  size: 'number.integer >= 0',
  createdAt: 'number',
  updatedAt: 'number',
  trashedAt: 'number | null',
  'mode?': 'number.integer >= 0',
  'target?': 'string',
  'sv?': 'string',
})

export type FileType = 'file' | 'folder' | 'symlink'

export interface FileRow {
  id: FileId
  name: string
  parentId: FileId | null
  type: FileType
  /** Byte length of the content (files), of the target (symlinks), 0 for folders. */
  size: number
  createdAt: number
  /** Last content or metadata change, ms; `stat().mtime`. */
  updatedAt: number
  /** `null` while active; the time it was moved to the trash otherwise. */
  trashedAt: number | null
  /** Permission bits; absent means the default (0o644 files, 0o755 folders, 0o777 symlinks). */
  mode?: number
  /** Symlink target, as given to `symlink()`. */
  target?: string
  /**
   * Files written through a provider: the base64 state vector of the content doc
   * after the change this row announces. Peers use it to tell whether the
   * content they hold (or cached) includes that change.
   */
  sv?: string
}

export type FileRowChange = LwwChange<FileRow>

export type FilesTableObserver = (changes: Map<FileId, FileRowChange>, transaction: Y.Transaction) => void

export interface FilesTable {
  readonly doc: Y.Doc
  get(id: FileId): FileRow | undefined
  has(id: FileId): boolean
  /** Insert or replace a whole row (validated). */
  set(row: FileRow, origin?: unknown): void
  /** Replace the row with `{ ...row, ...patch }`. Throws TypeError when the row does not exist. */
  update(id: FileId, patch: Partial<Omit<FileRow, 'id'>>, origin?: unknown): FileRow
  /** Permanently delete rows (empty trash). */
  delete(ids: Iterable<FileId>, origin?: unknown): void
  /** Several writes in one Yjs transaction. */
  batch(fn: () => void, origin?: unknown): void
  rows(): IterableIterator<FileRow>
  readonly size: number
  /** Local and remote row changes, once per transaction. */
  observe(fn: FilesTableObserver): () => void
  /** Every valid row entry a peer added (winning the LWW or not), as it arrives. */
  observeRemoteEntries(fn: (row: FileRow, transaction: Y.Transaction) => void): () => void
  destroy(): void
}

// Checked on every read: arktype's compiled validator costs ~30 ns a row once warm,
// less than remembering results per object in a WeakMap.
function isValidRow(value: unknown): value is FileRow {
  return typeof value === 'object' && value !== null && !(FileRowSchema(value) instanceof type.errors)
}

/** Attach the files table to the main doc. */
export function createFilesTable(doc: Y.Doc, options: { clock?: () => number } = {}): FilesTable {
  const yarray = doc.getArray<LwwEntry<unknown>>(FILES_TABLE_KEY)
  // Peers may send anything: keep only entries whose value is a valid row for that key.
  const map = attachLwwMap<unknown>(yarray, options) as LwwMap<unknown>
  const valid = (v: unknown, key: string): FileRow | undefined =>
    isValidRow(v) && v.id === key ? v : undefined

  const table: FilesTable = {
    doc,
    get: (id) => valid(map.get(id), id),
    has: (id) => valid(map.get(id), id) !== undefined,
    set(row, origin) {
      const result = FileRowSchema(row)
      if (result instanceof type.errors) throw new TypeError(`invalid file row: ${result.summary}`)
      map.set(row.id, row, origin)
    },
    update(id, patch, origin) {
      const row = table.get(id)
      if (!row) throw new TypeError(`update of a missing row ${id}`)
      const next = { ...row, ...patch, id }
      table.set(next, origin)
      return next
    },
    delete: (ids, origin) => map.deleteMany(ids, origin),
    batch: (fn, origin) => map.batch(fn, origin),
    *rows() {
      for (const [key, value] of map.entries()) {
        const row = valid(value, key)
        if (row) yield row
      }
    },
    get size() {
      return map.size
    },
    observe(fn) {
      return map.observe((changes, tr) => {
        const out = new Map<FileId, FileRowChange>()
        for (const [key, c] of changes) {
          const before = valid(c.before, key)
          const after = valid(c.after, key)
          if (before !== after) out.set(key as FileId, { before, after })
        }
        if (out.size > 0) fn(out, tr)
      })
    },
    observeRemoteEntries(fn) {
      return map.observeEntries((key, val, tr) => {
        if (tr.local) return
        const row = valid(val, key)
        if (row) fn(row, tr)
      })
    },
    destroy: () => map.destroy(),
  }
  return table
}
