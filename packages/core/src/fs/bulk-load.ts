/**
 * Bulk loads: write a whole tree (many files and folders) at once, for
 * imports, the disk daemon's first ingest and checkpoint restores.
 *
 * All or nothing, like `fs.transaction`: every entry is checked first
 * (names, limits, a file where a folder must go, writes into system paths);
 * the first failing entry throws its FsError with `opIndex` set and nothing
 * is written. Then, as for any write:
 * 1. content first: new files get their content doc and first history
 *    version (built lazily in memory mode, stored in batches through the
 *    `storeContent` hook with a server, or opened one by one through the
 *    provider otherwise); existing files are overwritten like `writeFile`;
 * 2. then every row (new folders, new files, changed sizes) in ONE
 *    main-doc transaction, which peers receive as one update. Change events
 *    carry the load's `transactionId`.
 *
 * Missing parent folders are created (like `mkdir -p`). A path given twice
 * takes its last content. Paths through symlinks are followed for folders
 * that exist already.
 *
 * Deliberately not here: deleting what the tree does not list (a restore
 * that must remove files trashes them itself) and stale-write merging (a
 * bulk load replaces content; it is not an edit of what a caller read).
 */
import type { FileContent } from 'just-bash'
import { nanoid } from 'nanoid'
import { utf8Length } from '../encoding.js'
import { efbig, einval, eisdir, enametoolong, enospc, enotdir, FsError } from '../errors.js'
import type { FileRow, FilesTable } from '../files-table.js'
import { createFileId, type FileId, ROOT_ID } from '../ids.js'
import type { FileSystemLimits } from '../limits.js'
import * as paths from '../path.js'
import type { FileSystemIndex } from '../path-index.js'
import { contentValueSize } from './content-codecs.js'
import { validateName } from './names.js'

/**
 * One entry of a bulk load: a file with its content, or a folder. A file may
 * carry its permission bits (`mode`, stored as `mode & 0o7777` like `chmod`)
 * and its modification time (`mtime`, ms; default now), so a caller that
 * mirrors a disk (the sync daemon) sets them in the same row transaction.
 */
export type BulkEntry =
  | { path: string; content: FileContent; mode?: number; mtime?: number }
  | { path: string; folder: true }

export interface BulkLoadResult {
  /** Id carried by the change events of this load. */
  transactionId: string
  /** Files created. */
  created: number
  /** Existing files whose content was replaced. */
  updated: number
  /** Folders created (listed or missing parents). */
  folders: number
  /** Bytes of content written. */
  bytes: number
}

/** Text or bytes, as the filesystem stores them. */
export interface BulkContent {
  text?: string
  bytes?: Uint8Array
}

/** What a bulk load needs from the filesystem (YjsFileSystem provides it). */
export interface BulkLoadHost {
  readonly table: FilesTable
  readonly index: FileSystemIndex
  readonly limits: FileSystemLimits
  /** Origin of the row transaction. */
  readonly origin: unknown
  clock(): number
  /** True for paths of the local system layer (/bin, /dev …). */
  isSystemPath(path: string): boolean
  /** Resolve an existing path (following symlinks) to a shared node; throws ENOENT/ENOTDIR/ELOOP. */
  locate(path: string, syscall: string, original: string): FileId
  toContent(content: FileContent): BulkContent
  /** Write new files' content (first version); resolves when it is stored. Returns each file's byte size. */
  createContents(files: { id: FileId; name: string; value: BulkContent; size: number }[]): Promise<number[]>
  /** Overwrite an existing file's content (a new version). Returns its byte size. */
  replaceContent(id: FileId, name: string, value: BulkContent): Promise<number>
  /** Row fields of a content change of `id` (size, mtime, content version). */
  contentPatch(id: FileId, size: number): Pick<FileRow, 'size' | 'updatedAt' | 'sv'>
  /** Run `fn` with change events tagged `transactionId`. */
  tagEvents(transactionId: string, fn: () => void): void
}

interface PlannedFile {
  id: FileId
  name: string
  parentId: FileId
  value: BulkContent
  size: number
  existing: boolean
  /** Row fields given by the entry (mode, updatedAt). */
  meta: Partial<Pick<FileRow, 'mode' | 'updatedAt'>>
}

const SYSCALL = 'open'

function fail(error: FsError, opIndex: number): never {
  Object.defineProperty(error, 'opIndex', { value: opIndex })
  throw error
}

/** The row fields a file entry sets itself; EINVAL for a mode or mtime that is not a count. */
function metaOf(
  entry: { mode?: number; mtime?: number },
  i: number,
  original: string,
): Partial<Pick<FileRow, 'mode' | 'updatedAt'>> {
  const meta: Partial<Pick<FileRow, 'mode' | 'updatedAt'>> = {}
  const { mode, mtime } = entry
  if (mode !== undefined) {
    if (!Number.isSafeInteger(mode) || mode < 0)
      fail(einval(SYSCALL, original, 'mode must be an integer ≥ 0'), i)
    meta.mode = mode & 0o7777
  }
  if (mtime !== undefined) {
    if (!Number.isFinite(mtime) || mtime < 0)
      fail(einval(SYSCALL, original, 'mtime must be a time ≥ 0 (ms)'), i)
    meta.updatedAt = Math.round(mtime)
  }
  return meta
}

/** Check every entry, then write the tree: content first, all rows in one transaction. */
export async function bulkLoad(host: BulkLoadHost, entries: readonly BulkEntry[]): Promise<BulkLoadResult> {
  const { table, index, limits } = host
  // Folders created by this load, by normalised path; files planned, by normalised path.
  const newFolders = new Map<string, FileRow>()
  const files = new Map<string, PlannedFile>()
  let newNodes = 0
  let sizeDelta = 0

  /** The folder at `path`: existing (symlinks followed), planned, or planned now. */
  const folderAt = (path: string, i: number, original: string): FileId => {
    if (path === '/') return ROOT_ID
    const planned = newFolders.get(path)
    if (planned) return planned.id
    if (files.has(path)) fail(enotdir(SYSCALL, original), i)
    const existing = index.lookup(path)
    if (existing !== undefined || index.symlinkCount > 0) {
      let id: FileId | undefined
      try {
        id = host.locate(path, SYSCALL, original)
      } catch (error) {
        if (!(error instanceof FsError) || error.code !== 'ENOENT') throw error
      }
      if (id !== undefined) {
        if (id !== ROOT_ID && table.get(id)?.type !== 'folder') fail(enotdir(SYSCALL, original), i)
        return id
      }
    }
    const parentId = folderAt(paths.dirname(path), i, original)
    const name = paths.basename(path)
    checkName(name, i, original)
    const now = host.clock()
    const row: FileRow = {
      id: createFileId(),
      name,
      parentId: parentId === ROOT_ID ? null : parentId,
      type: 'folder',
      size: 0,
      createdAt: now,
      updatedAt: now,
      trashedAt: null,
    }
    newFolders.set(path, row)
    newNodes++
    return row.id
  }

  const checkName = (name: string, i: number, original: string) => {
    try {
      validateName(name, SYSCALL, original)
    } catch (error) {
      if (error instanceof FsError) fail(error, i)
      throw error
    }
    if (utf8Length(name) > limits.maxNameLength)
      fail(enametoolong(SYSCALL, original, `name longer than ${limits.maxNameLength} bytes`), i)
  }

  // 1. Plan and check every entry; nothing is written yet.
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!
    const original = entry.path
    if (original.includes('\0'))
      fail(new FsError('ENOENT', SYSCALL, original, undefined, 'path contains null byte'), i)
    const path = paths.resolve('/', original)
    if (host.isSystemPath(path)) fail(new FsError('EACCES', SYSCALL, original), i)
    if (paths.split(path).length > limits.maxPathDepth)
      fail(einval(SYSCALL, original, `path deeper than ${limits.maxPathDepth} levels`), i)
    if (utf8Length(path) > limits.maxPathLength)
      fail(enametoolong(SYSCALL, original, `path longer than ${limits.maxPathLength} bytes`), i)
    if ('folder' in entry) {
      if (path !== '/') folderAt(path, i, original)
      continue
    }
    if (path === '/' || newFolders.has(path)) fail(eisdir(SYSCALL, original), i)
    const value = host.toContent(entry.content)
    const size = contentValueSize(value)
    const meta = metaOf(entry, i, original)
    if (size > limits.maxFileSize)
      fail(efbig(SYSCALL, original, `file larger than ${limits.maxFileSize} bytes`), i)
    const planned = files.get(path)
    if (planned) {
      // Given twice: the last content wins.
      sizeDelta += size - planned.size
      planned.value = value
      planned.size = size
      planned.meta = meta
      continue
    }
    const parentId = folderAt(paths.dirname(path), i, original)
    const name = paths.basename(path)
    // A folder made by this load has no children yet.
    const existingId = newFolders.has(paths.dirname(path)) ? undefined : index.child(parentId, name)
    let existingRow = existingId === undefined ? undefined : table.get(existingId)
    if (existingRow?.type === 'symlink') {
      // Writing through a symlink writes its target (like writeFile); only an existing target is supported here.
      const target = host.locate(path, SYSCALL, original)
      existingRow = table.get(target)
      if (existingRow === undefined) fail(eisdir(SYSCALL, original), i)
    }
    if (existingRow?.type === 'folder') fail(eisdir(SYSCALL, original), i)
    if (existingRow) {
      sizeDelta += size - existingRow.size
      files.set(path, {
        id: existingRow.id,
        name: existingRow.name,
        parentId,
        value,
        size,
        existing: true,
        meta,
      })
    } else {
      checkName(name, i, original)
      sizeDelta += size
      newNodes++
      files.set(path, { id: createFileId(), name, parentId, value, size, existing: false, meta })
    }
    if (index.nodeCount + newNodes > limits.maxNodeCount)
      fail(enospc(SYSCALL, original, `workspace holds the maximum of ${limits.maxNodeCount} nodes`), i)
    if (index.totalBytes + sizeDelta > limits.maxTotalSize)
      fail(
        enospc(
          SYSCALL,
          original,
          `workspace larger than ${limits.maxTotalSize} bytes (empty the trash to free space)`,
        ),
        i,
      )
  }

  // 2. Content first: a peer never sees a row whose content is still to come.
  const fresh = [...files.values()].filter((f) => !f.existing)
  const sizes = await host.createContents(
    fresh.map(({ id, name, value, size }) => ({ id, name, value, size })),
  )
  fresh.forEach((f, k) => {
    f.size = sizes[k]!
  })
  for (const f of files.values()) if (f.existing) f.size = await host.replaceContent(f.id, f.name, f.value)

  // 3. Every row in one main-doc transaction.
  const transactionId = nanoid(12)
  let bytes = 0
  host.tagEvents(transactionId, () => {
    table.batch(() => {
      for (const row of newFolders.values()) table.set(row, host.origin)
      for (const f of files.values()) {
        bytes += f.size
        const content = host.contentPatch(f.id, f.size)
        const patch = { ...content, ...f.meta }
        if (f.existing) {
          table.update(f.id, patch, host.origin)
          continue
        }
        table.set(
          {
            id: f.id,
            name: f.name,
            parentId: f.parentId === ROOT_ID ? null : f.parentId,
            type: 'file',
            ...patch,
            createdAt: content.updatedAt,
            trashedAt: null,
          },
          host.origin,
        )
      }
    }, host.origin)
  })
  return {
    transactionId,
    created: fresh.length,
    updated: files.size - fresh.length,
    folders: newFolders.size,
    bytes,
  }
}
