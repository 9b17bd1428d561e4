/**
 * YjsFileSystem: just-bash's `IFileSystem` on the files table and content docs.
 *
 * It orchestrates and owns no state of its own: rows live in the files table,
 * paths in the path index, content in the content-doc pool.
 *
 * Where it differs from POSIX (and from just-bash's InMemoryFs):
 * - `rm` is a soft delete: rows get `trashedAt` and can be restored
 *   (`fs.trash`); `trash.empty()` deletes for good.
 * - Writing into a missing folder is ENOENT (InMemoryFs creates parents).
 * - `mv` onto an existing file or empty folder moves the replaced node to
 *   the trash instead of destroying it.
 * - `link` (hard links) is ENOSYS; symlinks are rows of type `symlink`.
 * - Concurrent creates of one name by two peers show display suffixes
 *   (`a (1).md`); the stored names are not rewritten.
 * - `/bin`, `/usr`, `/dev`, `/proc` and `/tmp` are a per-instance local
 *   layer (local-layer.ts over a MemoryFs; core loads no just-bash code at
 *   runtime) that is never shared: command stubs, `/dev/null`
 *   writes and scratch files in `/tmp` of one peer are invisible to others,
 *   like on a real machine, where `/tmp` belongs to the machine. `/tmp`
 *   obeys the workspace's rules and limits (as its own quota) and lasts as
 *   long as the instance; `isLocalPath` tells these paths apart. Copies and
 *   moves between `/tmp` and the workspace work (a move is copy, then
 *   remove, as across two filesystems). Shared folders with those names are
 *   hidden behind the layer.
 * - mtime (`updatedAt`) also changes on rename/move, which is what the
 *   concurrent-move rule of the path index orders by.
 * - A file whose content was written by a codec this filesystem lacks (a
 *   `.md` file on a filesystem created without `markdownCodec`) is ENOSYS
 *   to read (unless empty) and to write, with the missing codec named; it is
 *   never read as empty text, and plain text is never written into it.
 */

import { createTwoFilesPatch } from 'diff'
import type { CpOptions, FileContent, FsStat, IFileSystem, MkdirOptions, RmOptions } from 'just-bash'
import { nanoid } from 'nanoid'
import * as Y from 'yjs'
import { decodeTextOrBinary, readBinary } from '../content/binary.js'
import type { ContentCodec } from '../content/codec.js'
import { ContentAnnouncements, contentVersionOf } from '../content/content-versions.js'
import { type ConnectContentDoc, ContentDocPool } from '../content/doc-pool.js'
import { textCodec } from '../content/text-codec.js'
import { encodeUtf8, fromBytes, getEncoding, latin1FromBytes, utf8Length } from '../encoding.js'
import { eexist, einval, eisdir, enoent, enosys, enotdir, enotempty, FsError, isFsError } from '../errors.js'
import { createFilesTable, type FileRow, type FileRowChange, type FilesTable } from '../files-table.js'
import {
  type FileVersion,
  hasUnversionedChanges,
  listStoredVersions,
  toFileVersion,
} from '../history/file-history.js'
import { createFileId, type FileId, ROOT_ID } from '../ids.js'
import { DEFAULT_LIMITS, type FileSystemLimits } from '../limits.js'
import * as paths from '../path.js'
import { createFileSystemIndex, type FileSystemIndex } from '../path-index.js'
import { suffixedName } from '../sibling-names.js'
import { type BulkEntry, type BulkLoadResult, bulkLoad } from './bulk-load.js'
import {
  codecFor,
  contentSize,
  type FileContentValue,
  missingCodec,
  noCodec,
  readText,
  recordFileVersion,
  sameContent,
  versionContent,
} from './content-codecs.js'
import { compactContent, onContentClose, onContentOpen, onRemoteRow } from './content-lifecycle.js'
import { createEventHub, type FsEvent, type FsEventHandler, type FsEventType } from './events.js'
import { assertWritable, exclusive, FS_ORIGIN, type FsContext } from './fs-context.js'
import { LastSeenTracker } from './last-seen.js'
import { checkName, checkNewPath, checkSize, missingFolders } from './limit-checks.js'
import { isTmpPath, LocalLayer, SYSTEM_ROOTS, TMP_PATH } from './local-layer.js'
import {
  fileAt,
  isFolder,
  isSystemPath,
  type Location,
  locate,
  normalizePath,
  parentFolder,
  resolveWriteTarget,
  rowOf,
} from './locate.js'
import { MemoryFs } from './memory-fs.js'
import { readContent, readNode } from './read-content.js'
import type { WriteBase, WriteOptions, WriteReport } from './stale-write.js'
import { type FsOp, runOp, type TransactionResult } from './transaction.js'
import {
  canSeed,
  contentPatch,
  createContents,
  seedContent,
  toContentValue,
  withWrittenSv,
  writeContent,
} from './write-content.js'

type ReadFileOptions = Parameters<IFileSystem['readFile']>[1]
type WriteFileOptions = Parameters<IFileSystem['writeFile']>[2]
type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem['readdirWithFileTypes']>>>[number]

export { FS_ORIGIN } from './fs-context.js'
export { SYSTEM_ROOTS } from './local-layer.js'

const DEFAULT_FILE_MODE = 0o644
const DEFAULT_DIR_MODE = 0o755
const SYMLINK_MODE = 0o777

export interface CreateFileSystemOptions {
  /** The main doc; a new one when omitted. The caller connects it to a provider. */
  doc?: Y.Doc
  /** Provider hook for content docs (see ContentDocPool). */
  connect?: ConnectContentDoc
  limits?: Partial<FileSystemLimits>
  /** Wall clock (ms) for timestamps; injectable for tests. */
  clock?: () => number
  /** Content codecs by priority; the text codec is always the fallback. */
  codecs?: ContentCodec[]
  /** Content-doc pool tuning. */
  idleMs?: number
  maxIdle?: number
  /** Who this instance writes as in file history (e.g. `agent:claude`, `user:ana`). Default `'agent'`. */
  author?: string
  /** Editor edits (made straight on content docs) get at most one version per this many ms. Default 30 s. */
  historyIntervalMs?: number
  /**
   * Every change to the workspace fails with EACCES (e.g. a read-only token on a sync
   * server). Reads work; the local system paths (/dev/null, command stubs) stay writable.
   */
  readOnly?: boolean
  /**
   * Merge whole-file writes from this instance with changes made since it last read the
   * file (see `write`). Default true; false replaces, as writes did before (a baseline for
   * benchmarks, or a caller that merges by itself).
   */
  mergeStaleWrites?: boolean
  /**
   * With `connect`: store many new content docs at once (a server's batched write, see
   * @yfs/client); resolves once every update is stored. `writeTree` uses it instead of
   * opening each new file's doc through the provider.
   */
  storeContent?: (docs: { id: FileId; update: Uint8Array }[]) => Promise<void>
  /**
   * With `connect`: the stored states of many content docs at once, in order (`undefined`
   * where refused). Reads of files whose doc is not loaded fetch their folder's files in
   * one call and fill the plaintext cache; anything it cannot serve is opened as usual.
   */
  loadContent?: (ids: FileId[]) => Promise<(Uint8Array | undefined)[]>
}

export interface TrashEntry {
  id: FileId
  name: string
  type: FileRow['type']
  trashedAt: number
  /** Where it was, when its folder is still visible. */
  originalPath: string | undefined
}

/** Root key of the checkpoints map on the main doc. */
export const CHECKPOINTS_KEY = 'checkpoints'

interface StoredCheckpoint {
  id: string
  label: string
  ts: number
  author: string
  rows: FileRow[]
  /** File id → version id holding its content at the checkpoint. */
  versions: Record<string, string>
}

export interface CheckpointInfo {
  id: string
  label: string
  ts: number
  author: string
  files: number
}

export interface CheckpointDiff {
  added: string[]
  removed: string[]
  moved: { from: string; to: string }[]
  changed: { path: string; diff: string }[]
}

function checkpointInfo(c: StoredCheckpoint): CheckpointInfo {
  return {
    id: c.id,
    label: c.label,
    ts: c.ts,
    author: c.author,
    files: c.rows.filter((r) => r.type === 'file').length,
  }
}

/** Device number of every node in the workspace (one filesystem). */
const WORKSPACE_DEV = 0x79f5

/** A stable inode number for a file id (FNV-1a, 53 bits): the same on every replica. */
function inodeOf(id: string): number {
  let h = 0xcbf29ce484222325n
  for (let i = 0; i < id.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(id.charCodeAt(i))) * 0x100000001b3n)
  return Number(h & 0x1fffffffffffffn)
}

export class YjsFileSystem implements IFileSystem {
  readonly doc: Y.Doc
  readonly table: FilesTable
  readonly index: FileSystemIndex
  readonly pool: ContentDocPool
  readonly limits: FileSystemLimits
  readonly codecs: readonly ContentCodec[]
  readonly author: string
  readonly readOnly: boolean
  // Everything the modules of this folder share (fs-context.ts); this class holds no other state.
  readonly #ctx: FsContext

  constructor(options: CreateFileSystemOptions = {}) {
    const doc = options.doc ?? new Y.Doc()
    const clock = options.clock ?? Date.now
    const limits = { ...DEFAULT_LIMITS, ...options.limits }
    const table = createFilesTable(doc, { clock })
    const index = createFileSystemIndex(table)
    const ctx: FsContext = {
      doc,
      table,
      index,
      pool: new ContentDocPool({
        connect: options.connect,
        idleMs: options.idleMs,
        maxIdle: options.maxIdle,
        onOpen: (id, doc) => onContentOpen(ctx, id, doc),
        compact: (state, id) => compactContent(ctx, state, id),
        onClose: (id, doc) => onContentClose(ctx, id, doc),
      }),
      limits,
      codecs: [...(options.codecs ?? []), textCodec],
      // just-bash writes command stubs and /dev, /proc entries here; scripts write scratch files to /tmp.
      local: new LocalLayer(new MemoryFs(), limits),
      clock,
      author: options.author ?? 'agent',
      readOnly: options.readOnly ?? false,
      historyIntervalMs: options.historyIntervalMs ?? 30_000,
      events: createEventHub(),
      pendingSize: new Set(),
      docCleanup: new Map(),
      seen: new LastSeenTracker(FS_ORIGIN, options.mergeStaleWrites ?? true),
      lazyContent: options.connect === undefined,
      announced: new ContentAnnouncements(),
      writtenSv: new Map(),
      storeContent: options.connect ? options.storeContent : undefined,
      loadContent: options.connect ? options.loadContent : undefined,
      fetching: new Map(),
      queue: Promise.resolve(),
      transactionId: undefined,
      unsubscribe: undefined,
    }
    this.#ctx = ctx
    this.doc = doc
    this.table = table
    this.index = index
    this.pool = ctx.pool
    this.limits = limits
    this.codecs = ctx.codecs
    this.author = ctx.author
    this.readOnly = ctx.readOnly
    table.observeRemoteEntries((row) => onRemoteRow(ctx, row))
  }

  // ---------------------------------------------------------------- events

  /** Subscribe to change events (local and remote); returns an unsubscribe. */
  watch(handler: FsEventHandler): () => void {
    this.#ctx.unsubscribe ??= this.index.onChange((changes, oldPaths, tr) =>
      this.#emitRowEvents(changes, oldPaths, tr),
    )
    const off = this.#ctx.events.subscribe(handler)
    return () => {
      off()
      if (!this.#ctx.events.active) {
        this.#ctx.unsubscribe?.()
        this.#ctx.unsubscribe = undefined
      }
    }
  }

  /** Subscribe to one kind of change event; returns an unsubscribe. */
  on(type: FsEventType, handler: FsEventHandler): () => void {
    return this.watch((e) => {
      if (e.type === type) handler(e)
    })
  }

  // ------------------------------------------------------------ resolution

  // ------------------------------------------------------------ exclusive

  // ---------------------------------------------------------------- limits

  // --------------------------------------------------------------- content

  /** The codec that owns files with this name. */
  codecFor(name: string): ContentCodec {
    return codecFor(this.#ctx, name)
  }

  // ----------------------------------------------------------------- reads

  async readFile(path: string, options?: ReadFileOptions): Promise<string> {
    const encoding = getEncoding(options)
    const normalized = normalizePath(path, 'open')
    const loc = locate(this.#ctx, normalized, true, 'open', path)
    if (loc.kind === 'system') return this.#ctx.local.readFile(loc.path, options)
    const row = rowOf(this.#ctx, loc.id)
    if (!row || row.type === 'folder') throw eisdir('read', path)
    const content = await readContent(this.#ctx, loc.id, row, true)
    if (content.text !== undefined) {
      if (encoding === 'utf8' || encoding === 'utf-8') return content.text
      return fromBytes(encodeUtf8(content.text), encoding)
    }
    return fromBytes(content.bytes!, encoding)
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    const normalized = normalizePath(path, 'open')
    const loc = locate(this.#ctx, normalized, true, 'open', path)
    if (loc.kind === 'system') return this.#ctx.local.readFileBuffer(loc.path)
    const row = rowOf(this.#ctx, loc.id)
    if (!row || row.type === 'folder') throw eisdir('read', path)
    const content = await readContent(this.#ctx, loc.id, row, true)
    return content.bytes ?? encodeUtf8(content.text ?? '')
  }

  async readFileBytes(path: string): Promise<never> {
    const normalized = normalizePath(path, 'open')
    const loc = locate(this.#ctx, normalized, true, 'open', path)
    if (loc.kind === 'system') return (await this.#ctx.local.readFileBytes(loc.path)) as never
    const row = rowOf(this.#ctx, loc.id)
    if (!row || row.type === 'folder') throw eisdir('read', path)
    const content = await readContent(this.#ctx, loc.id, row, true)
    let latin1: string
    if (content.bytes) latin1 = latin1FromBytes(content.bytes)
    // ASCII text is its own byte string; only non-ASCII needs encoding.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII range check
    else if (/^[\x00-\x7f]*$/.test(content.text ?? '')) latin1 = content.text ?? ''
    else latin1 = latin1FromBytes(encodeUtf8(content.text ?? ''))
    // ByteString is an opaque brand over a latin1 string (just-bash encoding.ts).
    return latin1 as never
  }

  async exists(path: string): Promise<boolean> {
    if (path.includes('\0')) return false
    try {
      const loc = locate(this.#ctx, paths.resolve('/', path), true, 'access', path)
      if (loc.kind === 'system') return this.#ctx.local.exists(loc.path)
      return true
    } catch (error) {
      if (error instanceof FsError) return false
      throw error
    }
  }

  #statOf(id: FileId): FsStat {
    if (id === ROOT_ID) {
      return {
        isFile: false,
        isDirectory: true,
        isSymbolicLink: false,
        mode: DEFAULT_DIR_MODE,
        size: 0,
        mtime: new Date(0),
      }
    }
    const row = this.table.get(id)!
    const isLink = row.type === 'symlink'
    return {
      isFile: row.type === 'file',
      isDirectory: row.type === 'folder',
      isSymbolicLink: isLink,
      mode:
        row.mode ?? (isLink ? SYMLINK_MODE : row.type === 'folder' ? DEFAULT_DIR_MODE : DEFAULT_FILE_MODE),
      size: row.size,
      mtime: new Date(row.updatedAt),
      identity: row.id,
      dev: WORKSPACE_DEV,
      ino: inodeOf(row.id),
    }
  }

  async stat(path: string): Promise<FsStat> {
    const loc = locate(this.#ctx, normalizePath(path, 'stat'), true, 'stat', path)
    if (loc.kind === 'system') return this.#ctx.local.stat(loc.path)
    return this.#statOf(loc.id)
  }

  async lstat(path: string): Promise<FsStat> {
    const loc = locate(this.#ctx, normalizePath(path, 'lstat'), false, 'lstat', path)
    if (loc.kind === 'system') return this.#ctx.local.lstat(loc.path)
    return this.#statOf(loc.id)
  }

  async readdir(path: string): Promise<string[]> {
    const { id, system } = this.#dir(path)
    if (system !== undefined) return this.#ctx.local.readdir(system)
    const names = this.index.childNames(id)
    if (id !== ROOT_ID) return [...names]
    return [...new Set([...names.filter((n) => !SYSTEM_ROOTS.includes(n)), ...SYSTEM_ROOTS])].sort()
  }

  async readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    const { id, system } = this.#dir(path)
    if (system !== undefined) return this.#ctx.local.readdirWithFileTypes(system)
    const out: DirentEntry[] = []
    for (const name of this.index.childNames(id)) {
      if (id === ROOT_ID && SYSTEM_ROOTS.includes(name)) continue
      const row = this.table.get(this.index.child(id, name)!)!
      out.push({
        name,
        isFile: row.type === 'file',
        isDirectory: row.type === 'folder',
        isSymbolicLink: row.type === 'symlink',
      })
    }
    if (id === ROOT_ID) {
      for (const name of SYSTEM_ROOTS)
        out.push({ name, isFile: false, isDirectory: true, isSymbolicLink: false })
      out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    }
    return out
  }

  #dir(path: string): { id: FileId; system?: string } {
    const loc = locate(this.#ctx, normalizePath(path, 'scandir'), true, 'scandir', path)
    if (loc.kind === 'system') return { id: ROOT_ID, system: loc.path }
    if (!isFolder(this.#ctx, loc.id)) throw enotdir('scandir', path)
    return { id: loc.id }
  }

  // ---------------------------------------------------------------- writes

  async writeFile(path: string, content: FileContent, options?: WriteFileOptions): Promise<void> {
    const normalized = normalizePath(path, 'write')
    if (isSystemPath(normalized)) return this.#ctx.local.writeFile(normalized, content, options)
    await this.write(path, content, { encoding: getEncoding(options) })
  }

  /**
   * Write a whole file and say what happened. When the file changed since this
   * instance last read or wrote it (or since `options.base`), the write is a
   * three-way merge: edits that do not overlap all survive; where both changed
   * the same lines (Markdown: blocks) the written version wins, the replaced
   * content is kept as a history version (`replacedVersion`) and a `conflict`
   * event names the lines. Binary content and empty writes replace the whole
   * file (the previous content becomes a version). A file this instance never
   * saw is replaced, like `writeFile` always did. Throws like `writeFile`.
   * @example
   * const r = await fs.write('/notes.md', text)
   * if (r.conflict) await fs.diff('/notes.md', r.replacedVersion!.id)
   */
  async write(path: string, content: FileContent, options: WriteOptions = {}): Promise<WriteReport> {
    const normalized = normalizePath(path, 'write')
    const report: WriteReport = {
      path: normalized,
      size: 0,
      created: false,
      merged: false,
      conflict: false,
      conflicts: [],
    }
    if (isSystemPath(normalized)) {
      await this.#ctx.local.writeFile(normalized, content, options.encoding)
      report.size = (await this.#ctx.local.stat(normalized)).size
      return report
    }
    assertWritable(this.#ctx, 'open', path)
    const value = toContentValue(content, options.encoding ?? 'utf8')
    const stale = { base: options.base, report }
    await exclusive(this.#ctx, () => this.#write(normalized, path, value, 'write', stale))
    return report
  }

  /** Encoded Yjs snapshot of a file's content doc now: a `base` for a later `write` (`{ snapshot }`). */
  async contentSnapshot(path: string): Promise<Uint8Array> {
    const row = fileAt(this.#ctx, path, 'open')
    const handle = await this.pool.acquire(row.id)
    try {
      return Y.encodeSnapshot(Y.snapshot(handle.doc))
    } finally {
      handle.release()
    }
  }

  /** Create or overwrite a file at `normalized` (symlinks followed). */
  async #write(
    normalized: string,
    original: string,
    value: FileContentValue,
    syscall: string,
    stale?: { base?: WriteBase; report: WriteReport },
  ): Promise<FileId> {
    const target = resolveWriteTarget(this.#ctx, normalized, syscall, original)
    const newSize = value.bytes ? value.bytes.byteLength : utf8Length(value.text ?? '')
    if (stale) stale.report.path = target.path
    if (target.id !== undefined) {
      const row = this.table.get(target.id)!
      if (row.type === 'folder') throw eisdir('open', original)
      checkSize(this.#ctx, newSize, row.size, syscall, original)
      const size = await writeContent(this.#ctx, target.id, row.name, value, 'write', stale)
      this.table.update(target.id, contentPatch(this.#ctx, target.id, size), FS_ORIGIN)
      if (stale) {
        stale.report.size = size
        this.#emitMerge(target.id, stale.report)
      }
      return target.id
    }
    if (stale) stale.report.created = true
    checkName(this.#ctx, target.name, syscall, original)
    checkNewPath(this.#ctx, target.path, syscall, original)
    checkSize(this.#ctx, newSize, 0, syscall, original)
    const id = createFileId()
    // Content first, row last: a peer never sees a row whose content is still to come.
    const size = canSeed(this.#ctx, target.name, value)
      ? seedContent(this.#ctx, id, target.name, value, 'write')
      : await writeContent(this.#ctx, id, target.name, value)
    if (stale) stale.report.size = size
    const { updatedAt: now, ...content } = contentPatch(this.#ctx, id, size)
    this.table.set(
      {
        id,
        name: target.name,
        parentId: target.parentId === ROOT_ID ? null : target.parentId,
        type: 'file',
        ...content,
        createdAt: now,
        updatedAt: now,
        trashedAt: null,
      },
      FS_ORIGIN,
    )
    return id
  }

  async appendFile(path: string, content: FileContent, options?: WriteFileOptions): Promise<void> {
    const normalized = normalizePath(path, 'append')
    if (isSystemPath(normalized)) return this.#ctx.local.appendFile(normalized, content, options)
    assertWritable(this.#ctx, 'open', path)
    const value = toContentValue(content, getEncoding(options))
    return exclusive(this.#ctx, async () => {
      const target = resolveWriteTarget(this.#ctx, normalized, 'append', path)
      if (target.id === undefined) {
        await this.#write(normalized, path, value, 'append')
        return
      }
      const row = this.table.get(target.id)!
      if (row.type === 'folder') throw eisdir('write', path)
      const addSize = value.bytes ? value.bytes.byteLength : utf8Length(value.text ?? '')
      checkSize(this.#ctx, row.size + addSize, row.size, 'append', path)
      const handle = await this.pool.acquire(target.id)
      let size: number
      try {
        const doc = handle.doc
        const existingBytes = readBinary(doc)
        const codec = codecFor(this.#ctx, row.name)
        const missing = existingBytes ? undefined : missingCodec(this.#ctx, doc, row.name)
        if (missing !== undefined) throw noCodec(this.#ctx, 'open', target.id, row.name, missing)
        if (!existingBytes && value.text !== undefined && codec === textCodec) {
          // A true append: concurrent appends from two peers both survive.
          const ytext = doc.getText('text')
          doc.transact(() => ytext.insert(ytext.length, value.text!), FS_ORIGIN)
          size = utf8Length(ytext.toString())
          this.index.plaintext.set(target.id, ytext.toString(), size)
          recordFileVersion(this.#ctx, doc, row.name, size, 'write')
        } else {
          const before = existingBytes ?? encodeUtf8(readText(this.#ctx, doc, row.name))
          const add = value.bytes ?? encodeUtf8(value.text ?? '')
          const all = new Uint8Array(before.byteLength + add.byteLength)
          all.set(before)
          all.set(add, before.byteLength)
          handle.release()
          const text = decodeTextOrBinary(all)
          size = await writeContent(
            this.#ctx,
            target.id,
            row.name,
            text === undefined ? { bytes: all } : { text },
          )
        }
      } finally {
        handle.release()
      }
      this.table.update(target.id, contentPatch(this.#ctx, target.id, size), FS_ORIGIN)
    })
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    const normalized = normalizePath(path, 'mkdir')
    if (isSystemPath(normalized)) return this.#ctx.local.mkdir(normalized, options)
    // Queued like every other mutation, so it cannot slip between a write's check and its row.
    return exclusive(this.#ctx, () => this.mkdirSync(path, options))
  }

  /** Synchronous mkdir (folders have no content doc); just-bash calls it while setting up. */
  mkdirSync(path: string, options?: MkdirOptions): void {
    const normalized = normalizePath(path, 'mkdir')
    if (isSystemPath(normalized)) {
      this.#ctx.local.mkdirSync(normalized, options)
      return
    }
    assertWritable(this.#ctx, 'mkdir', path)
    if (normalized === '/') {
      if (options?.recursive) return
      throw new FsError('EEXIST', 'mkdir', path, undefined, 'directory already exists')
    }
    const parentPath = paths.dirname(normalized)
    if (options?.recursive && this.index.symlinkCount === 0) {
      // Check the whole chain first: a recursive mkdir that fails creates nothing.
      const missing = missingFolders(this.#ctx, normalized)
      if (missing > 0) {
        for (const name of paths.split(normalized).slice(-missing)) checkName(this.#ctx, name, 'mkdir', path)
        checkNewPath(this.#ctx, normalized, 'mkdir', path, missing)
      }
    }
    let parent: { parentId: FileId; parentPath: string }
    try {
      parent = parentFolder(this.#ctx, normalized, 'mkdir', path)
    } catch (error) {
      if (!(error instanceof FsError) || error.code !== 'ENOENT' || !options?.recursive) throw error
      this.mkdirSync(parentPath, options)
      parent = parentFolder(this.#ctx, normalized, 'mkdir', path)
    }
    const name = paths.basename(normalized)
    const existing = this.index.child(parent.parentId, name)
    if (existing !== undefined) {
      const row = this.table.get(existing)!
      if (row.type === 'folder' || (row.type === 'symlink' && this.#isDirLink(normalized))) {
        if (options?.recursive) return
        throw new FsError('EEXIST', 'mkdir', path, undefined, 'directory already exists')
      }
      throw eexist('mkdir', path)
    }
    checkName(this.#ctx, name, 'mkdir', path)
    checkNewPath(this.#ctx, normalized, 'mkdir', path)
    const now = this.#ctx.clock()
    this.table.set(
      {
        id: createFileId(),
        name,
        parentId: parent.parentId === ROOT_ID ? null : parent.parentId,
        type: 'folder',
        size: 0,
        createdAt: now,
        updatedAt: now,
        trashedAt: null,
      },
      FS_ORIGIN,
    )
  }

  #isDirLink(path: string): boolean {
    try {
      const loc = locate(this.#ctx, path, true, 'mkdir', path)
      return loc.kind === 'system' || isFolder(this.#ctx, loc.id)
    } catch {
      // A dangling link is not a directory.
      return false
    }
  }

  /** Synchronous write used by just-bash only for system paths (command stubs, /dev, /proc). */
  writeFileSync(path: string, content: FileContent): void {
    const normalized = normalizePath(path, 'write')
    if (!isSystemPath(normalized)) throw enosys('write', path, 'synchronous writes are only for system paths')
    this.#ctx.local.writeFileSync(normalized, content)
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const normalized = normalizePath(path, 'rm')
    if (isSystemPath(normalized)) return this.#ctx.local.rm(normalized, options)
    assertWritable(this.#ctx, 'rm', path)
    return exclusive(this.#ctx, () => this.#remove(normalized, path, options))
  }

  /** rm of a normalised path (the caller holds the queue): soft delete in the workspace, gone in the local layer. */
  async #remove(normalized: string, path: string, options?: RmOptions): Promise<void> {
    if (isSystemPath(normalized)) return this.#ctx.local.rm(normalized, options)
    let loc: Location
    try {
      loc = locate(this.#ctx, normalized, false, 'rm', path)
    } catch (error) {
      if (options?.force && error instanceof FsError && error.code === 'ENOENT') return
      throw error
    }
    if (loc.kind === 'system') return this.#ctx.local.rm(loc.path, options)
    const now = this.#ctx.clock()
    if (loc.id === ROOT_ID) {
      if (!options?.recursive) throw eisdir('rm', path)
      this.table.batch(() => {
        for (const name of this.index.childNames(ROOT_ID)) {
          if (SYSTEM_ROOTS.includes(name)) continue
          this.table.update(this.index.child(ROOT_ID, name)!, { trashedAt: now }, FS_ORIGIN)
        }
      }, FS_ORIGIN)
      return
    }
    const row = this.table.get(loc.id)!
    if (row.type === 'folder' && !options?.recursive && this.index.childNames(loc.id).length > 0)
      throw enotempty('rm', path)
    this.table.update(loc.id, { trashedAt: now }, FS_ORIGIN)
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    const srcNorm = normalizePath(src, 'cp')
    const destNorm = normalizePath(dest, 'cp')
    if (!isSystemPath(destNorm)) assertWritable(this.#ctx, 'cp', dest)
    return exclusive(this.#ctx, () => this.#copy(srcNorm, destNorm, src, dest, options))
  }

  async #copy(
    srcNorm: string,
    destNorm: string,
    src: string,
    dest: string,
    options?: CpOptions,
  ): Promise<void> {
    const loc = locate(this.#ctx, srcNorm, false, 'cp', src)
    // Either side may be in the local layer (/tmp): read and write through whichever holds it.
    let kind: FileRow['type']
    let row: FileRow | undefined
    if (loc.kind === 'system') {
      const st = await this.#ctx.local.lstat(loc.path)
      kind = st.isDirectory ? 'folder' : st.isSymbolicLink ? 'symlink' : 'file'
    } else {
      row = rowOf(this.#ctx, loc.id)
      kind = row?.type ?? 'folder'
    }
    const toLocal = isSystemPath(destNorm)
    if (kind === 'folder') {
      if (!options?.recursive) throw new FsError('EISDIR', 'cp', src, undefined, 'is a directory')
      if (paths.isSameOrDescendant(srcNorm, destNorm))
        throw new FsError('EINVAL', 'cp', src, undefined, `cannot copy '${src}' into itself, '${dest}'`)
      if (toLocal) await this.#ctx.local.mkdir(destNorm, { recursive: true })
      else this.mkdirSync(destNorm, { recursive: true })
      const names =
        loc.kind === 'system' ? await this.#ctx.local.readdir(loc.path) : [...this.index.childNames(loc.id)]
      for (const name of names) {
        await this.#copy(
          paths.join(srcNorm, name),
          paths.join(destNorm, name),
          paths.join(srcNorm, name),
          paths.join(destNorm, name),
          options,
        )
      }
      return
    }
    if (kind === 'symlink') {
      const target = loc.kind === 'system' ? await this.#ctx.local.readlink(loc.path) : (row!.target ?? '')
      if (toLocal) await this.#ctx.local.symlink(target, destNorm)
      else await this.#symlink(target, destNorm, dest)
      return
    }
    const content =
      loc.kind === 'system'
        ? toContentValue(await this.#ctx.local.readFileBuffer(loc.path), 'utf8')
        : await readContent(this.#ctx, loc.id, row!)
    if (toLocal) await this.#ctx.local.writeFile(destNorm, content.bytes ?? content.text ?? '')
    else await this.#write(destNorm, dest, content, 'cp')
  }

  async mv(src: string, dest: string): Promise<void> {
    const srcNorm = normalizePath(src, 'mv')
    const destNorm = normalizePath(dest, 'mv')
    if (srcNorm === destNorm) return
    const [srcLocal, destLocal] = [isSystemPath(srcNorm), isSystemPath(destNorm)]
    if (srcLocal && destLocal) return this.#ctx.local.mv(srcNorm, destNorm)
    if (srcLocal || destLocal) {
      // Between /tmp and the workspace: copy, then remove, as between two filesystems.
      const local = srcLocal ? srcNorm : destNorm
      if (local === TMP_PATH) throw new FsError('EBUSY', 'rename', src, dest)
      if (!isTmpPath(local)) throw new FsError('EACCES', 'rename', src, dest)
      assertWritable(this.#ctx, 'rename', srcLocal ? dest : src)
      return exclusive(this.#ctx, () => this.#moveAcross(srcNorm, destNorm, src, dest))
    }
    assertWritable(this.#ctx, 'rename', src)
    return exclusive(this.#ctx, () => this.#move(srcNorm, destNorm, src, dest))
  }

  /** A move between the local layer and the workspace; the replaced destination goes to the trash (or away, in /tmp). */
  async #moveAcross(srcNorm: string, destNorm: string, src: string, dest: string): Promise<void> {
    const from = await this.lstat(srcNorm).catch((error: unknown) => {
      throw isFsError(error, 'ENOENT') ? enoent('rename', src, dest) : error
    })
    const to = await this.lstat(destNorm).catch((error: unknown) => {
      // A missing destination is the usual case; ENOTDIR and the rest surface when writing.
      if (isFsError(error, 'ENOENT')) return undefined
      throw error
    })
    if (to) {
      if (from.isDirectory && !to.isDirectory) throw new FsError('ENOTDIR', 'rename', src, dest)
      if (!from.isDirectory && to.isDirectory) throw new FsError('EISDIR', 'rename', src, dest)
      if (to.isDirectory && (await this.readdir(destNorm)).length > 0)
        throw new FsError('ENOTEMPTY', 'rename', src, dest)
      await this.#remove(destNorm, dest, { recursive: true })
    }
    await this.#copy(srcNorm, destNorm, src, dest, { recursive: true })
    await this.#remove(srcNorm, src, { recursive: true })
  }

  async #move(srcNorm: string, destNorm: string, src: string, dest: string): Promise<void> {
    const loc = locate(this.#ctx, srcNorm, false, 'mv', src)
    if (loc.kind === 'system' || loc.id === ROOT_ID) throw new FsError('EBUSY', 'rename', src, dest)
    const row = this.table.get(loc.id)!
    if (row.type === 'folder' && paths.isSameOrDescendant(srcNorm, destNorm))
      throw new FsError('EINVAL', 'mv', src, undefined, `cannot move '${src}' into itself, '${dest}'`)
    const { parentId, parentPath } = parentFolder(this.#ctx, destNorm, 'rename', dest)
    const name = paths.basename(destNorm)
    const existing = this.index.child(parentId, name)
    if (existing === loc.id) {
      if (row.name === name) return
    } else if (existing !== undefined) {
      const other = this.table.get(existing)!
      if (row.type === 'folder' && other.type !== 'folder') throw new FsError('ENOTDIR', 'rename', src, dest)
      if (row.type !== 'folder' && other.type === 'folder') throw new FsError('EISDIR', 'rename', src, dest)
      if (other.type === 'folder' && this.index.childNames(existing).length > 0)
        throw new FsError('ENOTEMPTY', 'rename', src, dest)
    }
    checkName(this.#ctx, name, 'rename', dest)
    const destPath = paths.join(parentPath, name)
    if (paths.split(destPath).length > this.limits.maxPathDepth)
      throw einval('rename', dest, `path deeper than ${this.limits.maxPathDepth} levels`)
    const fromCodec = codecFor(this.#ctx, row.name)
    const toCodec = codecFor(this.#ctx, name)
    if (row.type === 'file' && fromCodec !== toCodec) {
      // Convert-on-switch: move the content to the new codec's keys before the rename lands.
      const handle = await this.pool.acquire(loc.id)
      try {
        if (!readBinary(handle.doc)) {
          const text = readText(this.#ctx, handle.doc, row.name)
          toCodec.write(handle.doc, text, FS_ORIGIN)
          this.index.plaintext.delete(loc.id)
          recordFileVersion(this.#ctx, handle.doc, name, contentSize(this.#ctx, handle.doc, name), 'write')
        }
      } finally {
        handle.release()
      }
    }
    const now = this.#ctx.clock()
    this.table.batch(() => {
      if (existing !== undefined && existing !== loc.id)
        this.table.update(existing, { trashedAt: now }, FS_ORIGIN)
      const patch: Partial<FileRow> = {
        name,
        parentId: parentId === ROOT_ID ? null : parentId,
        updatedAt: now,
      }
      if (row.type === 'file' && fromCodec !== toCodec) {
        const doc = this.pool.peek(loc.id)
        if (doc) patch.size = contentSize(this.#ctx, doc, name)
        if (doc && !this.#ctx.lazyContent) patch.sv = contentVersionOf(doc)
      }
      this.table.update(loc.id, patch, FS_ORIGIN)
    }, FS_ORIGIN)
  }

  async chmod(path: string, mode: number): Promise<void> {
    const loc = locate(this.#ctx, normalizePath(path, 'chmod'), true, 'chmod', path)
    if (loc.kind === 'system') return this.#ctx.local.chmod(loc.path, mode)
    assertWritable(this.#ctx, 'chmod', path)
    if (loc.id === ROOT_ID) return
    this.table.update(loc.id, { mode: mode & 0o7777 }, FS_ORIGIN)
  }

  async utimes(path: string, _atime: Date, mtime: Date): Promise<void> {
    const loc = locate(this.#ctx, normalizePath(path, 'utime'), true, 'utime', path)
    if (loc.kind === 'system') return this.#ctx.local.utimes(loc.path, _atime, mtime)
    assertWritable(this.#ctx, 'utime', path)
    if (loc.id === ROOT_ID) return
    this.table.update(loc.id, { updatedAt: mtime.getTime() }, FS_ORIGIN)
  }

  async symlink(target: string, linkPath: string): Promise<void> {
    const normalized = normalizePath(linkPath, 'symlink')
    if (isSystemPath(normalized)) return this.#ctx.local.symlink(target, normalized)
    assertWritable(this.#ctx, 'symlink', linkPath)
    return exclusive(this.#ctx, () => this.#symlink(target, normalized, linkPath))
  }

  async #symlink(target: string, normalized: string, linkPath: string): Promise<void> {
    if (normalized === '/') throw eexist('symlink', linkPath)
    const { parentId } = parentFolder(this.#ctx, normalized, 'symlink', linkPath)
    const name = paths.basename(normalized)
    if (this.index.child(parentId, name) !== undefined) throw eexist('symlink', linkPath)
    checkName(this.#ctx, name, 'symlink', linkPath)
    checkNewPath(this.#ctx, normalized, 'symlink', linkPath)
    const now = this.#ctx.clock()
    this.table.set(
      {
        id: createFileId(),
        name,
        parentId: parentId === ROOT_ID ? null : parentId,
        type: 'symlink',
        target,
        size: utf8Length(target),
        createdAt: now,
        updatedAt: now,
        trashedAt: null,
      },
      FS_ORIGIN,
    )
  }

  async link(existingPath: string, _newPath: string): Promise<void> {
    throw enosys('link', existingPath, 'hard links are not supported')
  }

  async readlink(path: string): Promise<string> {
    const loc = locate(this.#ctx, normalizePath(path, 'readlink'), false, 'readlink', path)
    if (loc.kind === 'system') return this.#ctx.local.readlink(loc.path)
    const row = rowOf(this.#ctx, loc.id)
    if (row?.type !== 'symlink') throw einval('readlink', path)
    return row.target ?? ''
  }

  resolvePath(base: string, path: string): string {
    return paths.resolve(base, path)
  }

  async realpath(path: string): Promise<string> {
    const loc = locate(this.#ctx, normalizePath(path, 'realpath'), true, 'realpath', path)
    if (loc.kind === 'system') return this.#ctx.local.realpath(loc.path)
    return this.index.pathOf(loc.id) ?? loc.path
  }

  getAllPaths(): string[] {
    const local = this.#ctx.local.getAllPaths()
    const shared = this.index.allPaths().filter((p) => !isSystemPath(p))
    return [...local, ...shared]
  }

  // --------------------------------------------------------------- history

  /**
   * Versions of a file, oldest first. Pending editor edits are recorded first,
   * so the newest version is always the current content.
   */
  async history(path: string): Promise<FileVersion[]> {
    const row = fileAt(this.#ctx, path, 'history')
    const handle = await this.pool.acquire(row.id)
    try {
      if (!this.readOnly && hasUnversionedChanges(handle.doc))
        recordFileVersion(this.#ctx, handle.doc, row.name, row.size, 'save')
      return listStoredVersions(handle.doc).map(toFileVersion)
    } finally {
      handle.release()
    }
  }

  /**
   * An explicit save (an editor's "save", the end of an agent's task): records a
   * `save` version if the file changed since its last version. Returns the newest version.
   */
  async saveVersion(path: string): Promise<FileVersion> {
    assertWritable(this.#ctx, 'history', path)
    const row = fileAt(this.#ctx, path, 'history')
    const handle = await this.pool.acquire(row.id)
    try {
      let last = listStoredVersions(handle.doc).at(-1)
      if (!last || hasUnversionedChanges(handle.doc))
        last = recordFileVersion(
          this.#ctx,
          handle.doc,
          row.name,
          contentSize(this.#ctx, handle.doc, row.name),
          'save',
        )
      return toFileVersion(last)
    } finally {
      handle.release()
    }
  }

  /** Text (or, for binary versions, bytes) of one version. Throws ENOENT for an unknown version id. */
  async readVersionContent(path: string, versionId: string): Promise<{ text?: string; bytes?: Uint8Array }> {
    const row = fileAt(this.#ctx, path, 'history')
    const handle = await this.pool.acquire(row.id)
    try {
      const version = listStoredVersions(handle.doc).find((v) => v.id === versionId)
      if (!version)
        throw new FsError('ENOENT', 'history', path, undefined, `no version '${versionId}' of this file`)
      return versionContent(this.#ctx, handle.doc, version, row.id, row.name)
    } finally {
      handle.release()
    }
  }

  /** Text of one version (binary versions come back latin1-encoded, one char per byte). */
  async readVersion(path: string, versionId: string): Promise<string> {
    const content = await this.readVersionContent(path, versionId)
    return content.text ?? latin1FromBytes(content.bytes ?? new Uint8Array())
  }

  /** Unified diff between two versions; `toVersion` omitted = the current content. */
  async diff(path: string, fromVersion: string, toVersion?: string): Promise<string> {
    const before = await this.readVersion(path, fromVersion)
    const after =
      toVersion === undefined ? await this.readFile(path) : await this.readVersion(path, toVersion)
    const name = paths.resolve('/', path)
    return createTwoFilesPatch(`a${name}`, `b${name}`, before, after, fromVersion, toVersion ?? 'current')
  }

  /** Write an old version's content as a new change (history is never rewritten). Returns the new version. */
  async restore(path: string, versionId: string): Promise<FileVersion> {
    assertWritable(this.#ctx, 'restore', path)
    const content = await this.readVersionContent(path, versionId)
    const row = fileAt(this.#ctx, path, 'restore')
    return exclusive(this.#ctx, async () => {
      const size = await writeContent(this.#ctx, row.id, row.name, content, 'restore')
      this.table.update(row.id, contentPatch(this.#ctx, row.id, size), FS_ORIGIN)
      const doc = this.pool.peek(row.id)
      const last = doc ? listStoredVersions(doc).at(-1) : undefined
      if (!last) throw new TypeError('restore did not record a version')
      return toFileVersion(last)
    })
  }

  // ---------------------------------------------------------- transactions

  /**
   * Apply `ops` all or nothing (see transaction.ts for the exact guarantee).
   * Throws the failing op's FsError (with `opIndex`) and changes nothing.
   */
  /**
   * Write a whole tree at once (imports, the disk daemon's ingest, checkpoint restores):
   * all or nothing, content first, every row in one main-doc transaction, events tagged
   * with the returned `transactionId`. Throws the first failing entry's FsError (with
   * `opIndex`) and changes nothing. See bulk-load.ts.
   * @example
   * await fs.writeTree([{ path: '/src/a.ts', content: 'x' }, { path: '/empty', folder: true }])
   */
  async writeTree(entries: readonly BulkEntry[]): Promise<BulkLoadResult> {
    assertWritable(this.#ctx, 'open', '/')
    return exclusive(this.#ctx, () =>
      bulkLoad(
        {
          table: this.table,
          index: this.index,
          limits: this.limits,
          origin: FS_ORIGIN,
          clock: this.#ctx.clock,
          isSystemPath,
          locate: (path, syscall, original) => {
            const loc = locate(this.#ctx, path, true, syscall, original)
            if (loc.kind === 'system') throw new FsError('EACCES', syscall, original)
            return loc.id
          },
          toContent: (content) => toContentValue(content, 'utf8'),
          createContents: (files) => createContents(this.#ctx, files),
          replaceContent: (id, name, value) => writeContent(this.#ctx, id, name, value),
          contentPatch: (id, size) => contentPatch(this.#ctx, id, size),
          tagEvents: (transactionId, fn) => {
            this.#ctx.transactionId = transactionId
            try {
              fn()
            } finally {
              this.#ctx.transactionId = undefined
            }
          },
        },
        entries,
      ),
    )
  }

  async transaction(ops: readonly FsOp[]): Promise<TransactionResult> {
    assertWritable(this.#ctx, 'transaction', '/')
    return exclusive(this.#ctx, async () => {
      const stageDoc = new Y.Doc({ guid: 'yfs-staging' })
      Y.applyUpdate(stageDoc, Y.encodeStateAsUpdate(this.doc))
      const stage = new YjsFileSystem({
        doc: stageDoc,
        codecs: this.codecs.filter((c) => c !== textCodec),
        limits: this.limits,
        clock: this.#ctx.clock,
        author: this.author,
        idleMs: Number.POSITIVE_INFINITY,
        maxIdle: Number.POSITIVE_INFINITY,
        connect: (doc) => ({ whenSynced: this.#copyContentInto(doc), destroy() {} }),
      })
      try {
        for (let i = 0; i < ops.length; i++) {
          try {
            await runOp(stage, ops[i]!)
          } catch (error) {
            if (error instanceof FsError) Object.defineProperty(error, 'opIndex', { value: i })
            throw error
          }
        }
        const transactionId = nanoid(12)
        let contentChanges = 0
        const merges: { id: FileId; report: WriteReport }[] = []
        for (const id of [...stage.pool.loaded()]) {
          const row = stage.table.get(id)
          const staged = stage.pool.peek(id)
          if (row?.type !== 'file' || !staged) continue
          const bytes = readBinary(staged)
          const value: FileContentValue = bytes ? { bytes } : { text: readText(stage.#ctx, staged, row.name) }
          const liveRow = this.table.get(id)
          if (liveRow && sameContent(await readContent(this.#ctx, id, liveRow), value)) continue
          // Content read through this instance before the transaction (apply_patch) merges like a stale write.
          const report: WriteReport = {
            path: stage.index.pathOf(id) ?? '/',
            size: 0,
            created: !liveRow,
            merged: false,
            conflict: false,
            conflicts: [],
          }
          report.size = await writeContent(
            this.#ctx,
            id,
            row.name,
            value,
            'write',
            liveRow ? { report } : undefined,
          )
          if (report.merged) merges.push({ id, report })
          contentChanges++
        }
        const changed: FileRow[] = []
        for (const row of stage.table.rows()) {
          const live = this.table.get(row.id)
          if (!live || JSON.stringify(live) !== JSON.stringify(row)) changed.push(row)
        }
        this.#ctx.transactionId = transactionId
        try {
          this.table.batch(() => {
            for (const row of changed) this.table.set(withWrittenSv(this.#ctx, row), FS_ORIGIN)
          }, FS_ORIGIN)
          for (const m of merges) this.#emitMerge(m.id, m.report)
        } finally {
          this.#ctx.transactionId = undefined
        }
        return {
          transactionId,
          contentChanges,
          rowChanges: changed.length,
          merges: merges.map((m) => m.report),
        }
      } finally {
        stage.destroy()
      }
    })
  }

  async #copyContentInto(doc: Y.Doc): Promise<void> {
    const handle = await this.pool.acquire(doc.guid as FileId)
    try {
      Y.applyUpdate(doc, Y.encodeStateAsUpdate(handle.doc))
    } finally {
      handle.release()
    }
  }

  // ----------------------------------------------------------- checkpoints

  get #checkpointMap(): Y.Map<StoredCheckpoint> {
    return this.doc.getMap<StoredCheckpoint>(CHECKPOINTS_KEY)
  }

  /** Record the tree and every file's content (as a version) under `label`. */
  async checkpoint(label: string): Promise<CheckpointInfo> {
    assertWritable(this.#ctx, 'checkpoint', '/')
    return exclusive(this.#ctx, () => this.#checkpoint(label))
  }

  async #checkpoint(label: string): Promise<CheckpointInfo> {
    const rows = [...this.table.rows()]
    const versions: Record<string, string> = {}
    for (const row of rows) {
      if (row.type !== 'file') continue
      const handle = await this.pool.acquire(row.id)
      try {
        let last = listStoredVersions(handle.doc).at(-1)
        if (!last || hasUnversionedChanges(handle.doc))
          last = recordFileVersion(
            this.#ctx,
            handle.doc,
            row.name,
            contentSize(this.#ctx, handle.doc, row.name),
            'checkpoint',
          )
        versions[row.id] = last.id
      } finally {
        handle.release()
      }
    }
    const stored: StoredCheckpoint = {
      id: nanoid(10),
      label,
      ts: this.#ctx.clock(),
      author: this.author,
      rows,
      versions,
    }
    this.doc.transact(() => this.#checkpointMap.set(stored.id, stored), FS_ORIGIN)
    return checkpointInfo(stored)
  }

  /** Checkpoints, oldest first. */
  checkpoints(): CheckpointInfo[] {
    return [...this.#checkpointMap.values()]
      .filter((c) => typeof c === 'object' && c !== null && Array.isArray(c.rows))
      .map(checkpointInfo)
      .sort((a, b) => a.ts - b.ts || (a.id < b.id ? -1 : 1))
  }

  #storedCheckpoint(id: string): StoredCheckpoint {
    const stored = this.#checkpointMap.get(id)
    if (!stored) throw new FsError('ENOENT', 'checkpoint', id, undefined, 'no such checkpoint')
    return stored
  }

  /** The files of a side of a diff: path → { id, content }. */
  async #sideOf(
    id: string | undefined,
  ): Promise<Map<string, { id: FileId; read: () => Promise<FileContentValue> }>> {
    const out = new Map<string, { id: FileId; read: () => Promise<FileContentValue> }>()
    if (id === undefined) {
      for (const path of this.index.allPaths()) {
        const fileId = this.index.lookup(path)!
        const row = this.table.get(fileId)!
        if (row.type !== 'folder') out.set(path, { id: fileId, read: () => readNode(this.#ctx, row) })
      }
      return out
    }
    const stored = this.#storedCheckpoint(id)
    const doc = new Y.Doc({ guid: 'yfs-checkpoint' })
    const table = createFilesTable(doc)
    table.batch(() => {
      for (const row of stored.rows) table.set(row)
    })
    const index = createFileSystemIndex(table)
    for (const path of index.allPaths()) {
      const fileId = index.lookup(path)!
      const row = table.get(fileId)!
      if (row.type === 'folder') continue
      out.set(path, {
        id: fileId,
        read: async () => {
          if (row.type === 'symlink') return { text: row.target ?? '' }
          return this.#readVersionById(fileId, stored.versions[fileId])
        },
      })
    }
    index.destroy()
    table.destroy()
    return out
  }

  async #readVersionById(id: FileId, versionId: string | undefined): Promise<FileContentValue> {
    if (versionId === undefined) return { text: '' }
    const handle = await this.pool.acquire(id)
    try {
      const version = listStoredVersions(handle.doc).find((v) => v.id === versionId)
      if (!version)
        throw new FsError('ENOENT', 'checkpoint', id, undefined, `version '${versionId}' is missing`)
      return versionContent(this.#ctx, handle.doc, version, id, version.name)
    } finally {
      handle.release()
    }
  }

  /** What changed from checkpoint `a` to checkpoint `b` (or to the live workspace when `b` is omitted). */
  async diffCheckpoint(a: string, b?: string): Promise<CheckpointDiff> {
    const [from, to] = [await this.#sideOf(a), await this.#sideOf(b)]
    const fromById = new Map([...from].map(([path, f]) => [f.id, { path, ...f }]))
    const toById = new Map([...to].map(([path, f]) => [f.id, { path, ...f }]))
    const diff: CheckpointDiff = { added: [], removed: [], moved: [], changed: [] }
    for (const [id, f] of fromById) if (!toById.has(id)) diff.removed.push(f.path)
    for (const [id, t] of toById) {
      const f = fromById.get(id)
      if (!f) {
        diff.added.push(t.path)
        continue
      }
      if (f.path !== t.path) diff.moved.push({ from: f.path, to: t.path })
      const [before, after] = [await f.read(), await t.read()]
      if (!sameContent(before, after)) {
        const asText = (v: FileContentValue) => v.text ?? `(binary, ${v.bytes?.byteLength ?? 0} bytes)\n`
        diff.changed.push({
          path: t.path,
          diff: createTwoFilesPatch(
            `a${f.path}`,
            `b${t.path}`,
            asText(before),
            asText(after),
            a,
            b ?? 'current',
          ),
        })
      }
    }
    for (const list of [diff.added, diff.removed]) list.sort()
    diff.moved.sort((x, y) => (x.to < y.to ? -1 : 1))
    diff.changed.sort((x, y) => (x.path < y.path ? -1 : 1))
    return diff
  }

  /**
   * Make the live workspace equal to a checkpoint, as ordinary new changes that
   * sync to every peer. A safety checkpoint of the current state is taken first.
   */
  async restoreCheckpoint(id: string): Promise<{ safetyCheckpoint: CheckpointInfo }> {
    assertWritable(this.#ctx, 'checkpoint', '/')
    return exclusive(this.#ctx, async () => {
      const stored = this.#storedCheckpoint(id)
      const safetyCheckpoint = await this.#checkpoint(`before restoring '${stored.label}'`)
      const target = new Map(stored.rows.map((r) => [r.id, r]))
      for (const row of stored.rows) {
        if (row.type !== 'file') continue
        const wanted = await this.#readVersionById(row.id, stored.versions[row.id])
        const live = this.table.get(row.id)
        if (
          live?.type === 'file' &&
          live.name === row.name &&
          sameContent(await readContent(this.#ctx, row.id, live), wanted)
        )
          continue
        await writeContent(this.#ctx, row.id, row.name, wanted, 'restore')
      }
      const now = this.#ctx.clock()
      this.table.batch(() => {
        for (const row of this.table.rows()) {
          if (!target.has(row.id) && row.trashedAt === null)
            this.table.update(row.id, { trashedAt: now }, FS_ORIGIN)
        }
        for (const row of stored.rows) {
          const live = this.table.get(row.id)
          // A file whose content was rewritten gets a row entry even when its row is unchanged:
          // the entry announces the change to peers (see content-versions.ts).
          if (!live || this.#ctx.writtenSv.has(row.id) || JSON.stringify(live) !== JSON.stringify(row))
            this.table.set(withWrittenSv(this.#ctx, row), FS_ORIGIN)
        }
      }, FS_ORIGIN)
      return { safetyCheckpoint }
    })
  }

  // ----------------------------------------------------------------- trash

  readonly trash = {
    /** Rows in the trash (the ones trashed themselves, not their descendants). */
    list: (): TrashEntry[] => {
      const out: TrashEntry[] = []
      for (const row of this.table.rows()) {
        if (row.trashedAt === null) continue
        const parent = this.index.effectiveParent(row.id) ?? ROOT_ID
        const parentPath = this.index.pathOf(parent)
        out.push({
          id: row.id,
          name: row.name,
          type: row.type,
          trashedAt: row.trashedAt,
          originalPath: parentPath === undefined ? undefined : paths.join(parentPath, row.name),
        })
      }
      return out.sort((a, b) => b.trashedAt - a.trashedAt)
    },
    /** Bring a row back; to the root if its folder is gone, with a free name if its name is taken. Returns the new path. */
    restore: (id: FileId): string => {
      assertWritable(this.#ctx, 'restore', id)
      const row = this.table.get(id)
      if (!row) throw enoent('restore', id)
      if (row.trashedAt === null) return this.index.pathOf(id) ?? '/'
      let parentId = this.index.effectiveParent(id) ?? ROOT_ID
      if (this.index.pathOf(parentId) === undefined) parentId = ROOT_ID
      let name = row.name
      for (let n = 1; this.index.child(parentId, name) !== undefined; n++) name = suffixedName(row.name, n)
      this.table.update(
        id,
        { trashedAt: null, name, parentId: parentId === ROOT_ID ? null : parentId },
        FS_ORIGIN,
      )
      return this.index.pathOf(id) ?? '/'
    },
    /** Delete every trashed row and everything below it, for good. */
    empty: (): number => {
      assertWritable(this.#ctx, 'rm', '/')
      const doomed = new Set<FileId>()
      const collect = (id: FileId) => {
        if (doomed.has(id)) return
        doomed.add(id)
        for (const child of this.index.allChildren(id)) collect(child)
      }
      for (const row of this.table.rows()) if (row.trashedAt !== null) collect(row.id)
      this.table.delete(doomed, FS_ORIGIN)
      // Content a checkpoint still references stays restorable.
      const referenced = new Set<string>()
      for (const c of this.#checkpointMap.values())
        for (const id of Object.keys(c.versions ?? {})) referenced.add(id)
      for (const id of doomed) {
        if (!referenced.has(id)) this.pool.forget(id)
        this.index.plaintext.delete(id)
        this.#ctx.seen.forget(id)
      }
      return doomed.size
    },
  }

  // ---------------------------------------------------------------- events

  #emitRowEvents(
    changes: Map<FileId, FileRowChange>,
    oldPaths: Map<FileId, string | undefined>,
    tr: Y.Transaction,
  ): void {
    if (!this.#ctx.events.active) return
    const origin = tr.local ? 'local' : 'remote'
    for (const [id, { before, after }] of changes) {
      const oldPath = oldPaths.get(id)
      const path = after ? this.index.pathOf(id) : undefined
      const base = { id, origin, size: after?.size, transactionId: this.#ctx.transactionId } as const
      let event: FsEvent | undefined
      if (path !== undefined && oldPath === undefined) {
        const restored = before !== undefined && before.trashedAt !== null && after!.trashedAt === null
        event = { ...base, type: restored ? 'restore' : after!.type === 'folder' ? 'mkdir' : 'write', path }
      } else if (path === undefined && oldPath !== undefined) {
        event = { ...base, type: 'delete', path: oldPath }
      } else if (path !== undefined && oldPath !== undefined) {
        if (path !== oldPath) event = { ...base, type: 'rename', path, oldPath }
        else if (
          before &&
          after &&
          (before.size !== after.size || before.updatedAt !== after.updatedAt) &&
          after.type === 'file'
        )
          event = { ...base, type: 'write', path }
      }
      if (event) this.#ctx.events.emit(event)
    }
  }

  /** `merge` / `conflict` event of a stale write (after its `write` event). */
  #emitMerge(id: FileId, report: WriteReport): void {
    if (!this.#ctx.events.active || !report.merged) return
    const base = {
      id,
      origin: 'local',
      path: report.path,
      size: report.size,
      transactionId: this.#ctx.transactionId,
    } as const
    if (!report.conflict) this.#ctx.events.emit({ ...base, type: 'merge' })
    else
      this.#ctx.events.emit({
        ...base,
        type: 'conflict',
        conflicts: report.conflicts,
        versionId: report.replacedVersion?.id,
      })
  }

  /** Stop observing; the docs stay usable by their owner. */
  destroy(): void {
    this.#ctx.unsubscribe?.()
    this.pool.destroy()
    this.index.destroy()
    this.table.destroy()
  }
}

/**
 * Create a filesystem on a main `Y.Doc`.
 * @example
 * const fs = createFileSystem()
 * await new Bash({ fs, cwd: '/' }).exec('echo hi > /a.txt && cat /a.txt')
 */
export function createFileSystem(options: CreateFileSystemOptions = {}): YjsFileSystem {
  return new YjsFileSystem(options)
}
