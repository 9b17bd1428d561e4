/**
 * The files table: one row per file, folder or symlink, stored on the main
 * `Y.Doc` as a last-writer-wins map (`lww-map.ts`) in `Y.Array(FILES_TABLE_KEY)`.
 *
 * Rows are validated by hand-written checks (`isValidRow`, `rowProblems`): rows
 * are checked on every read, and arktype's compiled schema was several times
 * slower and cost ~100 ms to build at import in the browser. The arktype
 * schema stays as the reference (`FileRowSchema` in @yfs/core/testing); a
 * property test keeps the three equal. A local write of an invalid row is a bug
 * (TypeError); an invalid row from a peer is ignored (treated as absent) so one
 * bad client cannot break everybody's tree.
 *
 * Paths are never stored: a row knows its `parentId` and `name`, and
 * `path-index.ts` derives paths at run time. A valid row may hold a name that
 * breaks the name rules (names.ts: a peer or an old store wrote it); it is shown
 * under its safe name, and `set` stores that safe name when it rewrites the row.
 *
 * Stored entries (see lww-map.ts): rows written since format 1 are array entries
 * `[1, id, ts, name, parentId, type, size, createdAt, updatedAt, trashedAt, mode?, target?, sv?]`
 * (`rowCodec`); older rows are object entries `{ key: id, val: row, ts }`, and a row with
 * keys this version does not know is still written that way, so nothing is dropped.
 * Readers accept both.
 *
 * Rows merge per field group (`ROW_GROUPS`, lww-map.ts "Groups"): placement (name and
 * parent, one register, so a move is atomic), trash state, mode, symlink target, and
 * content metadata (size, mtime, content version). A content edit writes only the last
 * group's stamp, a rename only the first's, so concurrent actions on different groups
 * all survive. Stamps are stored after the row fields as `ts - stamp` per group (slots
 * 13–17, so `mode`, `target`, `sv` take their slots, `undefined` when absent); an entry
 * without them (every group changed at once, and every entry written before groups) has
 * every group at its `ts`. Readers from before groups read such an entry as the whole
 * row it holds, and a row merged from several entries is written back as one entry
 * (`writeBack`), so they read what everyone else reads.
 */
import type * as Y from 'yjs'
import type { FileId } from './ids.js'
import {
  attachLwwMap,
  type LwwChange,
  type LwwChangeSource,
  type LwwCodec,
  type LwwEntry,
  type LwwGroups,
  type LwwMap,
  type LwwObserver,
  type StoredEntry,
  storedEntryKey,
} from './lww-map.js'
import { isValidName, nameProblem, safeName } from './names.js'

/** Name of the `Y.Array` on the main doc that holds the files table. */
export const FILES_TABLE_KEY = 'files'

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

/** The Yjs transaction of a change, or `{ local: true, origin }` for a held local write (lww-map.ts). */
export type FileRowChangeSource = LwwChangeSource

export type FilesTableObserver = (changes: Map<FileId, FileRowChange>, source: FileRowChangeSource) => void

export interface FilesTable {
  readonly doc: Y.Doc
  get(id: FileId): FileRow | undefined
  has(id: FileId): boolean
  /**
   * Insert or replace a whole row (validated: TypeError for an invalid row). A row whose name
   * breaks the name rules is stored under its `safeName` (names.ts).
   */
  set(row: FileRow, origin?: unknown): void
  /** Replace the row with `{ ...row, ...patch }`. Throws TypeError when the row does not exist. */
  update(id: FileId, patch: Partial<Omit<FileRow, 'id'>>, origin?: unknown): FileRow
  /** Permanently delete rows (empty trash). */
  delete(ids: Iterable<FileId>, origin?: unknown): void
  /** Several writes in one Yjs transaction. */
  batch(fn: () => void, origin?: unknown): void
  /**
   * Hold row writes until the returned function is called (a write batch, `fs.batch`): a row
   * written meanwhile is in the table at once and reaches the main doc with the batch's others,
   * in one transaction (lww-map.ts, "Held writes"). Holds nest.
   */
  hold(): () => void
  /** Keep `id`'s held row writes held until `unpin` (its content is still to be stored; lww-map.ts `pin`). */
  pin(id: FileId): void
  /** Let the held row writes of `ids` be stored (now when nothing holds the table). */
  unpin(ids: Iterable<FileId>): void
  /** Store held row writes in the main doc now: before reading the doc itself during a batch. */
  flush(): void
  rows(): IterableIterator<FileRow>
  /** Calls `fn` for every valid row; cheaper than iterating `rows()`. */
  forEach(fn: (row: FileRow) => void): void
  /**
   * Calls `fn` for every valid row with the fields that place it in the tree, without making
   * the row objects of rows not read yet (a peer's index build over 100k rows).
   */
  forEachPlacement(fn: (id: FileId, parentId: FileId | null, type: FileType, size: number) => void): void
  readonly size: number
  /** When `group` of the row last changed (its stamp, a hybrid-clock ms); `undefined` for no row. */
  stampOf(id: FileId, group: RowGroup): number | undefined
  /** Rows of `id`'s stale entries: writes that lost, not swept yet (lww-map `staleValues`). */
  staleRowsOf(id: FileId): FileRow[]
  /** Local and remote row changes, once per transaction. */
  observe(fn: FilesTableObserver): () => void
  /** Every valid row entry a peer added (winning the LWW or not), as it arrives. */
  observeRemoteEntries(fn: (row: FileRow, source: FileRowChangeSource) => void): () => void
  destroy(): void
}

/**
 * The field groups of a row, in stamp order (see the module comment). `id`, `type` and
 * `createdAt` never change.
 */
export const ROW_GROUPS = ['placement', 'trash', 'mode', 'target', 'content'] as const

export type RowGroup = (typeof ROW_GROUPS)[number]

const PLACEMENT = 0
const TRASH = 1
const MODE = 2
const TARGET = 3
const CONTENT = 4
/** Slot of the first group stamp in an array entry. */
const STAMPS_AT = 13
const ENTRY_WITH_STAMPS = STAMPS_AT + ROW_GROUPS.length

const rowGroups: LwwGroups<FileRow> = {
  count: ROW_GROUPS.length,
  differs(a, b, g) {
    switch (g) {
      case PLACEMENT:
        return a.name !== b.name || a.parentId !== b.parentId
      case TRASH:
        return a.trashedAt !== b.trashedAt
      case MODE:
        return a.mode !== b.mode
      case TARGET:
        return a.target !== b.target
      default:
        return a.size !== b.size || a.updatedAt !== b.updatedAt || a.sv !== b.sv
    }
  },
  combine(parts) {
    const row: FileRow = { ...parts[PLACEMENT]! }
    row.trashedAt = parts[TRASH]!.trashedAt
    const { mode } = parts[MODE]!
    if (mode === undefined) delete row.mode
    else row.mode = mode
    const { target } = parts[TARGET]!
    if (target === undefined) delete row.target
    else row.target = target
    const content = parts[CONTENT]!
    row.size = content.size
    row.updatedAt = content.updatedAt
    if (content.sv === undefined) delete row.sv
    else row.sv = content.sv
    return row
  },
}

/** True for the keys of `FileRow` (a switch: no lookup per key). */
const isRowKey = (key: string): boolean => {
  switch (key) {
    case 'id':
    case 'name':
    case 'parentId':
    case 'type':
    case 'size':
    case 'createdAt':
    case 'updatedAt':
    case 'trashedAt':
    case 'mode':
    case 'target':
    case 'sv':
      return true
    default:
      return false
  }
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && !Number.isNaN(v)
const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0

/**
 * Rows as array entries, format 1: the fields in a fixed order after the map's `[tag, key, ts]`,
 * the id being the key; the optional `mode`, `target`, `sv` last, `undefined` when absent and
 * trailing ones left out unless group stamps follow (slots 13–17: `ts - stamp`, integers ≥ 0).
 * A row with other keys is refused (written as an object entry, stamps in its `gs`).
 * `isValidEntry` is `isValidRow(fromEntry(e, key))` checked on the entry itself, so a peer's
 * first load keeps rows undecoded until read (lww-map.ts, "Lazy winners").
 *
 * @example
 * // { id: 'f1', name: 'a.txt', parentId: null, type: 'file', size: 2, createdAt: 5, updatedAt: 6, trashedAt: null }
 * // at ts 7 ↔ [1, 'f1', 7, 'a.txt', null, 'file', 2, 5, 6, null]
 */
export const rowCodec: LwwCodec<FileRow> = {
  tag: 1,
  toEntry(key, ts, row, stamps) {
    for (const k in row) if (!isRowKey(k)) return undefined
    const { name, parentId, type, size, createdAt, updatedAt, trashedAt, mode, target, sv } = row
    // Stamps only when a group is older than the entry: without them every group is at `ts`.
    if (stamps?.some((stamp) => stamp !== ts)) {
      const e: unknown[] = [
        1,
        key,
        ts,
        name,
        parentId,
        type,
        size,
        createdAt,
        updatedAt,
        trashedAt,
        mode,
        target,
        sv,
      ]
      for (const stamp of stamps) e.push(ts - stamp)
      return e
    }
    if (sv !== undefined)
      return [1, key, ts, name, parentId, type, size, createdAt, updatedAt, trashedAt, mode, target, sv]
    if (target !== undefined)
      return [1, key, ts, name, parentId, type, size, createdAt, updatedAt, trashedAt, mode, target]
    if (mode !== undefined)
      return [1, key, ts, name, parentId, type, size, createdAt, updatedAt, trashedAt, mode]
    return [1, key, ts, name, parentId, type, size, createdAt, updatedAt, trashedAt]
  },
  fromEntry(e, key) {
    const row: Record<string, unknown> = {
      id: key,
      name: e[3],
      parentId: e[4],
      type: e[5],
      size: e[6],
      createdAt: e[7],
      updatedAt: e[8],
      trashedAt: e[9],
    }
    if (e.length > 10) {
      if (e[10] !== undefined) row.mode = e[10]
      if (e[11] !== undefined) row.target = e[11]
      if (e[12] !== undefined) row.sv = e[12]
    }
    return row
  },
  stampsOf(e) {
    if (e.length !== ENTRY_WITH_STAMPS) return undefined
    const ts = e[2] as number
    const stamps: number[] = []
    for (let i = STAMPS_AT; i < ENTRY_WITH_STAMPS; i++) stamps.push(ts - (e[i] as number))
    return stamps
  },
  isValidEntry(e, key) {
    if (key.length === 0) return false
    if (e.length > STAMPS_AT && e.length !== ENTRY_WITH_STAMPS) return false
    for (let i = STAMPS_AT; i < e.length; i++) if (!isCount(e[i])) return false
    const name = e[3]
    const parentId = e[4]
    const type = e[5]
    const trashedAt = e[9]
    if (typeof name !== 'string' || name.length === 0) return false
    if (parentId !== null && typeof parentId !== 'string') return false
    if (type !== 'file' && type !== 'folder' && type !== 'symlink') return false
    if (!isCount(e[6]) || !isNumber(e[7]) || !isNumber(e[8])) return false
    if (trashedAt !== null && !isNumber(trashedAt)) return false
    if (e.length > 10) {
      if (e[10] !== undefined && !isCount(e[10])) return false
      if (e[11] !== undefined && typeof e[11] !== 'string') return false
      if (e[12] !== undefined && typeof e[12] !== 'string') return false
    }
    return true
  },
}

/** `rowCodec` as versions before groups wrote and read it: whole rows, stamps neither written nor read. */
const wholeRowCodec: LwwCodec<FileRow> = {
  tag: rowCodec.tag,
  toEntry: (key, ts, row) => rowCodec.toEntry(key, ts, row),
  fromEntry: rowCodec.fromEntry,
  isValidEntry: rowCodec.isValidEntry,
}

/**
 * True when `value` is a valid row: a few ns (arktype's compiled check cost ~30–40 ns, a
 * WeakMap of results more). The rules of `FileRowSchema` (testing/file-row-schema.ts):
 * NaN is not a number, ±Infinity is; optional keys, when present, must hold a value of
 * their type (not `undefined`); other keys are allowed.
 */
export function isValidRow(value: unknown): value is FileRow {
  if (typeof value !== 'object' || value === null) return false
  const r = value as Record<string, unknown>
  const { id, name, parentId, type, trashedAt } = r
  if (typeof id !== 'string' || id.length === 0 || typeof name !== 'string' || name.length === 0) return false
  if (parentId !== null && typeof parentId !== 'string') return false
  if (type !== 'file' && type !== 'folder' && type !== 'symlink') return false
  if (!isCount(r.size) || !isNumber(r.createdAt) || !isNumber(r.updatedAt)) return false
  if (trashedAt !== null && !isNumber(trashedAt)) return false
  const { mode, target, sv } = r
  if (mode !== undefined ? !isCount(mode) : 'mode' in r) return false
  if (target !== undefined ? typeof target !== 'string' : 'target' in r) return false
  if (sv !== undefined ? typeof sv !== 'string' : 'sv' in r) return false
  return true
}

const shown = (v: unknown): string =>
  typeof v === 'string'
    ? JSON.stringify(v)
    : v === null || typeof v !== 'object'
      ? String(v)
      : Array.isArray(v)
        ? 'an array'
        : 'an object'

/** What is wrong with a row, one line per field (empty when `isValidRow`). */
export function rowProblems(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [`a row must be an object (was ${shown(value)})`]
  const r = value as Record<string, unknown>
  const out: string[] = []
  const check = (key: string, ok: (v: unknown) => boolean, what: string, optional = false) => {
    const present = key in r
    if (optional && !present) return
    if (!ok(r[key])) out.push(`${key} must be ${what} (was ${present ? shown(r[key]) : 'missing'})`)
  }
  const nonEmpty = (v: unknown) => typeof v === 'string' && v.length > 0
  check('id', nonEmpty, 'a non-empty string')
  check('name', nonEmpty, 'a non-empty string')
  check('parentId', (v) => v === null || typeof v === 'string', 'a string or null')
  check('type', (v) => v === 'file' || v === 'folder' || v === 'symlink', '"file", "folder" or "symlink"')
  check('size', isCount, 'an integer ≥ 0')
  check('createdAt', isNumber, 'a number')
  check('updatedAt', isNumber, 'a number')
  check('trashedAt', (v) => v === null || isNumber(v), 'a number or null')
  check('mode', isCount, 'an integer ≥ 0', true)
  check('target', (v) => typeof v === 'string', 'a string', true)
  check('sv', (v) => typeof v === 'string', 'a string', true)
  return out
}

/** Fields of the row problems (`rowProblems` lines start with the field), without the values. */
const problemFields = (value: unknown): string =>
  rowProblems(value)
    .map((line) => line.slice(0, line.indexOf(' ')))
    .join(', ')

/**
 * Why `value`, a value stored in the files array, is not an entry core takes whole, or
 * `undefined` when it is: an entry in either stored form (lww-map.ts) of a valid row
 * (`isValidRow`, its id the entry's key; array entries of 10–13 fields, or 18 with group stamps) whose name keeps the
 * name rules (names.ts). Anything the table would ignore as garbage is a problem too. For
 * servers checking clients' rows; the answer is short and never quotes the value (a name
 * may be megabytes).
 *
 * @example storedRowProblem([1, 'f1', 7, '..', null, 'folder', 0, 1, 1, null]) === "invalid name: reserved file name '..'"
 */
export function storedRowProblem(value: unknown): string | undefined {
  const key = storedEntryKey(value, rowCodec)
  if (key === undefined) return 'not a row entry'
  let name: unknown
  if (Array.isArray(value)) {
    if (value.length < 10 || (value.length > STAMPS_AT && value.length !== ENTRY_WITH_STAMPS))
      return 'not a row entry'
    if (!rowCodec.isValidEntry!(value, key))
      return `invalid row: ${problemFields(rowCodec.fromEntry(value, key))}`
    name = value[3]
  } else {
    const row = (value as LwwEntry<unknown>).val
    if (!isValidRow(row)) return `invalid row: ${problemFields(row)}`
    if (row.id !== key) return 'invalid row: id differs from the entry key'
    name = row.name
  }
  const problem = nameProblem(name as string)
  return problem === undefined ? undefined : `invalid name: ${problem}`
}

/**
 * The key of `value` when the files table reads it as an entry (in either stored form, valid
 * or not), `undefined` for anything it ignores as garbage.
 */
export const rowEntryKey = (value: unknown): string | undefined => storedEntryKey(value, rowCodec)

/** Attach the files table to the main doc. */
export interface FilesTableOptions {
  clock?: () => number
  /**
   * Write a row merged from several entries by a peer's change back as one entry (see the module
   * comment). For replicas that may write; never for a server's or a read-only replica's table.
   */
  writeBack?: boolean
  /**
   * `false`: read and write rows whole, one last-writer-wins value each, as versions before
   * groups did (no stamps written, stamps read ignored). Only to test workspaces shared with
   * such versions. Default true.
   */
  groups?: boolean
}

/** Origin of the table's write-backs of merged rows (see `FilesTableOptions.writeBack`). */
export const WRITE_BACK_ORIGIN = Symbol('yfs-row-write-back')

export function createFilesTable(doc: Y.Doc, options: FilesTableOptions = {}): FilesTable {
  const yarray = doc.getArray<StoredEntry<FileRow>>(FILES_TABLE_KEY)
  // Peers may send anything: an entry counts only if its value is a valid row for its key.
  // Checked once per entry as it arrives (local rows are checked in `set`), not on reads.
  const map: LwwMap<FileRow> = attachLwwMap<FileRow>(yarray, {
    clock: options.clock,
    writeBack: options.writeBack,
    writeBackOrigin: WRITE_BACK_ORIGIN,
    ...(options.groups === false ? { codec: wholeRowCodec } : { groups: rowGroups, codec: rowCodec }),
    isValid: (key, v): v is FileRow => isValidRow(v) && v.id === key,
  })

  const table: FilesTable = {
    doc,
    get: (id) => map.get(id),
    has: (id) => map.has(id),
    set(row, origin) {
      if (!isValidRow(row)) throw new TypeError(`invalid file row: ${rowProblems(row).join('; ')}`)
      // A row with an invalid stored name (from before servers checked names) is written back
      // under the name it is shown by: servers refuse invalid names (names.ts).
      map.set(row.id, isValidName(row.name) ? row : { ...row, name: safeName(row.name) }, origin)
    },
    update(id, patch, origin) {
      const row = map.get(id)
      if (!row) throw new TypeError(`update of a missing row ${id}`)
      const next = { ...row, ...patch, id }
      table.set(next, origin)
      return isValidName(next.name) ? next : map.get(id)!
    },
    delete: (ids, origin) => map.deleteMany(ids, origin),
    batch: (fn, origin) => map.batch(fn, origin),
    hold: () => map.hold(),
    pin: (id) => map.pin(id),
    unpin: (ids) => map.unpin(ids),
    flush: () => map.flush(),
    rows: () => map.values(),
    forEach(fn) {
      map.forEach((row) => {
        fn(row)
      })
    },
    forEachPlacement(fn) {
      map.scan((key, row, e) => {
        if (row !== undefined) fn(row.id, row.parentId, row.type, row.size)
        else {
          // A valid row entry (`rowCodec.isValidEntry`): [1, id, ts, name, parentId, type, size, …].
          const entry = e as readonly unknown[]
          fn(key as FileId, entry[4] as FileId | null, entry[5] as FileType, entry[6] as number)
        }
      })
    },
    get size() {
      return map.size
    },
    stampOf: (id, group) => map.stampOf(id, ROW_GROUPS.indexOf(group)),
    staleRowsOf: (id) => map.staleValues(id),
    observe: (fn) => map.observe(fn as LwwObserver<FileRow>),
    observeRemoteEntries: (fn) =>
      map.observeEntries((_key, row, tr) => {
        if (!tr.local) fn(row, tr)
      }),
    destroy: () => map.destroy(),
  }
  return table
}
