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
import type {
  BufferEncoding,
  CpOptions,
  FileContent,
  FsStat,
  IFileSystem,
  MkdirOptions,
  RmOptions,
} from 'just-bash'
import { nanoid } from 'nanoid'
import * as Y from 'yjs'
import { clearBinary, decodeTextOrBinary, readBinary, writeBinary } from '../content/binary.js'
import type { ContentCodec } from '../content/codec.js'
import { ContentAnnouncements, contentVersionOf } from '../content/content-versions.js'
import { type ConnectContentDoc, ContentDocPool } from '../content/doc-pool.js'
import { textCodec } from '../content/text-codec.js'
import { encodeUtf8, fromBytes, getEncoding, latin1FromBytes, toBytes, utf8Length } from '../encoding.js'
import {
  eexist,
  efbig,
  einval,
  eisdir,
  eloop,
  enametoolong,
  enoent,
  enospc,
  enosys,
  enotdir,
  enotempty,
  FsError,
  isFsError,
} from '../errors.js'
import { createFilesTable, type FileRow, type FileRowChange, type FilesTable } from '../files-table.js'
import {
  compactContentState,
  type FileVersion,
  hasUnversionedChanges,
  listStoredVersions,
  readSnapshotContent,
  readVersionContent,
  recordVersion,
  type StoredVersion,
  toFileVersion,
  type VersionReason,
} from '../history/file-history.js'
import { createFileId, type FileId, ROOT_ID } from '../ids.js'
import { DEFAULT_LIMITS, type FileSystemLimits } from '../limits.js'
import * as paths from '../path.js'
import { createFileSystemIndex, type FileSystemIndex } from '../path-index.js'
import { suffixedName } from '../sibling-names.js'
import { type BulkEntry, type BulkLoadResult, bulkLoad } from './bulk-load.js'
import { createEventHub, type FsEvent, type FsEventHandler, type FsEventType } from './events.js'
import { LastSeenTracker } from './last-seen.js'
import { isTmpPath, LocalLayer, SYSTEM_ROOTS, TMP_PATH } from './local-layer.js'
import { MemoryFs } from './memory-fs.js'
import { validateName } from './names.js'
import {
  type ContentValue,
  normalizeWithCodec,
  resolveStaleWrite,
  type WriteBase,
  type WriteOptions,
  type WriteReport,
} from './stale-write.js'
import { type FsOp, runOp, type TransactionResult } from './transaction.js'

type ReadFileOptions = Parameters<IFileSystem['readFile']>[1]
type WriteFileOptions = Parameters<IFileSystem['writeFile']>[2]
type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem['readdirWithFileTypes']>>>[number]

export { SYSTEM_ROOTS } from './local-layer.js'

const MAX_SYMLINK_HOPS = 40
/** Files fetched per `loadContent` call when a read misses the cache. */
const FETCH_BATCH = 256
const COMPACT_ABOVE_BYTES = 16 * 1024
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

/** A resolved location: a shared node, or a path in the local system layer. */
type Location = { kind: 'shared'; id: FileId; path: string } | { kind: 'system'; path: string }

interface FileContentValue {
  text?: string
  bytes?: Uint8Array
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

function sameContent(a: FileContentValue, b: FileContentValue): boolean {
  if (a.bytes || b.bytes) {
    if (!a.bytes || !b.bytes || a.bytes.byteLength !== b.bytes.byteLength) return false
    return a.bytes.every((x, i) => x === b.bytes![i])
  }
  return a.text === b.text
}

/** Device number of every node in the workspace (one filesystem). */
const WORKSPACE_DEV = 0x79f5

/** A stable inode number for a file id (FNV-1a, 53 bits): the same on every replica. */
function inodeOf(id: string): number {
  let h = 0xcbf29ce484222325n
  for (let i = 0; i < id.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(id.charCodeAt(i))) * 0x100000001b3n)
  return Number(h & 0x1fffffffffffffn)
}

function isSystemPath(path: string): boolean {
  if (path === '/') return false
  const end = path.indexOf('/', 1)
  const top = end === -1 ? path.slice(1) : path.slice(1, end)
  return SYSTEM_ROOTS.includes(top)
}

function assertNoNul(path: string, syscall: string): void {
  if (path.includes('\0')) throw new FsError('ENOENT', syscall, path, undefined, 'path contains null byte')
}

/** Origin of every transaction this filesystem makes (editors use their own). */
export const FS_ORIGIN = Symbol('yfs')

export class YjsFileSystem implements IFileSystem {
  readonly doc: Y.Doc
  readonly table: FilesTable
  readonly index: FileSystemIndex
  readonly pool: ContentDocPool
  readonly limits: FileSystemLimits
  readonly codecs: readonly ContentCodec[]
  readonly #local: LocalLayer
  readonly #clock: () => number
  readonly author: string
  readonly readOnly: boolean
  readonly #historyIntervalMs: number
  readonly #events = createEventHub()
  readonly #pendingSize = new Set<FileId>()
  readonly #docCleanup = new Map<FileId, () => void>()
  // What this instance last saw of each file it read whole or wrote: the base of its stale writes.
  readonly #seen: LastSeenTracker
  // No provider: new files' content docs are built on first open (ContentDocPool.seed).
  readonly #lazyContent: boolean
  // With a provider: content versions announced by peers' rows, and the version of our own
  // last content write per file, for the row that announces it (see content-versions.ts).
  readonly #announced = new ContentAnnouncements()
  readonly #writtenSv = new Map<FileId, string>()
  #queue: Promise<unknown> = Promise.resolve()
  #transactionId: string | undefined
  readonly #storeContent: CreateFileSystemOptions['storeContent']
  readonly #loadContent: CreateFileSystemOptions['loadContent']
  // Ids being fetched by loadContent, so concurrent reads share one request.
  readonly #fetching = new Map<FileId, Promise<void>>()
  // Index listener for change events, attached only while someone watches (it costs a path walk per change).
  #unsubscribe: (() => void) | undefined

  constructor(options: CreateFileSystemOptions = {}) {
    this.doc = options.doc ?? new Y.Doc()
    this.#clock = options.clock ?? Date.now
    this.author = options.author ?? 'agent'
    this.readOnly = options.readOnly ?? false
    this.#historyIntervalMs = options.historyIntervalMs ?? 30_000
    this.#seen = new LastSeenTracker(FS_ORIGIN, options.mergeStaleWrites ?? true)
    this.limits = { ...DEFAULT_LIMITS, ...options.limits }
    this.#lazyContent = options.connect === undefined
    this.#storeContent = options.connect ? options.storeContent : undefined
    this.#loadContent = options.connect ? options.loadContent : undefined
    this.codecs = [...(options.codecs ?? []), textCodec]
    this.table = createFilesTable(this.doc, { clock: this.#clock })
    this.index = createFileSystemIndex(this.table)
    this.pool = new ContentDocPool({
      connect: options.connect,
      idleMs: options.idleMs,
      maxIdle: options.maxIdle,
      onOpen: (id, doc) => {
        // The provider's first sync may have brought changes the cached text does not have.
        if (options.connect) this.index.plaintext.delete(id)
        this.#watchContent(id, doc)
      },
      // Small docs have little to drop; compacting them would cost more than it saves.
      compact: (state, id) =>
        state.byteLength > COMPACT_ABOVE_BYTES
          ? compactContentState(state, this.#seen.snapshotsOf(id))
          : state,
      // The plaintext cache outlives the doc when the doc holds every change peers announced:
      // later changes come with a row entry, which drops the entry (see the constructor).
      onClose: (id, doc) => {
        if (options.connect) this.#seen.freeze(id, doc)
        this.#docCleanup.get(id)?.()
        this.#docCleanup.delete(id)
        if (options.connect && !this.#announced.coveredBy(id, Y.decodeStateVector(Y.encodeStateVector(doc))))
          this.index.plaintext.delete(id)
      },
    })
    // A peer's row entry (winning or not) announces a content change: cached text of a doc
    // that is not loaded may be old (a loaded doc drops it itself when the change arrives).
    this.table.observeRemoteEntries((row) => {
      if (row.type !== 'file') return
      if (row.sv !== undefined && !this.#lazyContent) this.#announced.add(row.id, row.sv)
      if (this.pool.peek(row.id) === undefined) this.index.plaintext.delete(row.id)
    })
    // just-bash writes command stubs and /dev, /proc entries here; scripts write scratch files to /tmp.
    this.#local = new LocalLayer(new MemoryFs(), this.limits)
  }

  // ---------------------------------------------------------------- events

  /** Subscribe to change events (local and remote); returns an unsubscribe. */
  watch(handler: FsEventHandler): () => void {
    this.#unsubscribe ??= this.index.onChange((changes, oldPaths, tr) =>
      this.#emitRowEvents(changes, oldPaths, tr),
    )
    const off = this.#events.subscribe(handler)
    return () => {
      off()
      if (!this.#events.active) {
        this.#unsubscribe?.()
        this.#unsubscribe = undefined
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

  /**
   * Resolve a normalised path to a node. `followLast` follows a symlink in
   * the last component (stat) or not (lstat). Throws ENOENT, ENOTDIR, ELOOP.
   */
  #locate(path: string, followLast: boolean, syscall: string, original: string): Location {
    let current = path
    for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
      if (isSystemPath(current)) return { kind: 'system', path: current }
      if (this.index.symlinkCount === 0) {
        const id = this.index.lookup(current)
        if (id !== undefined) return { kind: 'shared', id, path: current }
      }
      const parts = paths.split(current)
      let cur: FileId = ROOT_ID
      let redirected = false
      for (let i = 0; i < parts.length; i++) {
        if (cur !== ROOT_ID && this.table.get(cur)?.type !== 'folder') throw enotdir(syscall, original)
        const next = this.index.child(cur, parts[i]!)
        if (next === undefined) throw enoent(syscall, original)
        const row = this.table.get(next)
        const last = i === parts.length - 1
        if (row?.type === 'symlink' && (!last || followLast)) {
          const linkPath = `/${parts.slice(0, i + 1).join('/')}`
          const target = paths.resolve(paths.dirname(linkPath), row.target ?? '')
          const rest = parts.slice(i + 1).join('/')
          current = rest ? paths.normalize(`${target}/${rest}`) : target
          redirected = true
          break
        }
        cur = next
      }
      if (!redirected) return { kind: 'shared', id: cur, path: current }
    }
    throw eloop(syscall, original)
  }

  #norm(path: string, syscall: string): string {
    assertNoNul(path, syscall)
    return paths.resolve('/', path)
  }

  /** EACCES for any change in a read-only workspace. */
  #writable(syscall: string, path: string): void {
    if (this.readOnly) throw new FsError('EACCES', syscall, path)
  }

  #row(id: FileId): FileRow | undefined {
    return id === ROOT_ID ? undefined : this.table.get(id)
  }

  #isFolder(id: FileId): boolean {
    return id === ROOT_ID || this.table.get(id)?.type === 'folder'
  }

  /** Resolve the parent folder of a path that may not exist yet (follows symlinks in the parent). */
  #parentFolder(path: string, syscall: string, original: string): { parentId: FileId; parentPath: string } {
    const parentPath = paths.dirname(path)
    const loc = this.#locate(parentPath, true, syscall, original)
    if (loc.kind === 'system') throw new FsError('EACCES', syscall, original)
    if (!this.#isFolder(loc.id)) throw enotdir(syscall, original)
    return { parentId: loc.id, parentPath: loc.path }
  }

  // ------------------------------------------------------------ exclusive

  /** Run mutations one at a time, so checks and writes of one call never interleave with another's. */
  #exclusive<T>(fn: () => Promise<T> | T): Promise<T> {
    const run = this.#queue.then(fn, fn)
    this.#queue = run.catch(() => undefined)
    return run
  }

  // ---------------------------------------------------------------- limits

  #checkName(name: string, syscall: string, original: string): void {
    validateName(name, syscall, original)
    if (utf8Length(name) > this.limits.maxNameLength)
      throw enametoolong(syscall, original, `name longer than ${this.limits.maxNameLength} bytes`)
  }

  #checkNewPath(path: string, syscall: string, original: string, newNodes = 1): void {
    if (paths.split(path).length > this.limits.maxPathDepth)
      throw einval(syscall, original, `path deeper than ${this.limits.maxPathDepth} levels`)
    if (utf8Length(path) > this.limits.maxPathLength)
      throw enametoolong(syscall, original, `path longer than ${this.limits.maxPathLength} bytes`)
    if (this.index.nodeCount + newNodes > this.limits.maxNodeCount)
      throw enospc(syscall, original, `workspace holds the maximum of ${this.limits.maxNodeCount} nodes`)
  }

  /** How many folders `mkdir -p` would create (0 when the path exists). */
  #missingFolders(path: string): number {
    let missing = 0
    for (let p = path; p !== '/'; p = paths.dirname(p)) {
      if (this.index.lookup(p) !== undefined) break
      missing++
    }
    return missing
  }

  #checkSize(newSize: number, oldSize: number, syscall: string, original: string): void {
    if (newSize > this.limits.maxFileSize)
      throw efbig(syscall, original, `file larger than ${this.limits.maxFileSize} bytes`)
    if (this.index.totalBytes - oldSize + newSize > this.limits.maxTotalSize)
      throw enospc(
        syscall,
        original,
        `workspace larger than ${this.limits.maxTotalSize} bytes (empty the trash to free space)`,
      )
  }

  // --------------------------------------------------------------- content

  /** The codec that owns files with this name. */
  codecFor(name: string): ContentCodec {
    return this.codecs.find((c) => c.matches(name)) ?? textCodec
  }

  #watchContent(id: FileId, doc: Y.Doc): void {
    const onTransaction = (tr: Y.Transaction) => {
      if (tr.changed.size === 0 && tr.deleteSet.clients.size === 0) return
      this.index.plaintext.delete(id)
      // Edits made straight on the doc (an editor binding) update the row here;
      // our own writes update it themselves, remote edits come with the peer's row update.
      if (tr.local && tr.origin !== FS_ORIGIN && !this.readOnly) this.#scheduleSizeUpdate(id)
    }
    doc.on('afterTransaction', onTransaction)
    const detach = this.#seen.attach(id, doc)
    this.#docCleanup.set(id, () => {
      doc.off('afterTransaction', onTransaction)
      detach()
    })
  }

  #scheduleSizeUpdate(id: FileId): void {
    if (this.#pendingSize.size === 0) queueMicrotask(() => this.#flushSizeUpdates())
    this.#pendingSize.add(id)
  }

  #flushSizeUpdates(): void {
    const ids = [...this.#pendingSize]
    this.#pendingSize.clear()
    this.table.batch(() => {
      for (const id of ids) {
        const row = this.table.get(id)
        const doc = this.pool.peek(id)
        if (!row || !doc || row.type !== 'file') continue
        const size = this.#contentSize(doc, row.name)
        this.table.update(id, this.#contentPatch(id, size), FS_ORIGIN)
        // Editor edits are versioned at most once per interval; history() records the rest on demand.
        const last = listStoredVersions(doc).at(-1)
        if (!last || this.#clock() - last.ts >= this.#historyIntervalMs)
          this.#recordVersion(doc, row.name, size, 'edit')
      }
    }, FS_ORIGIN)
  }

  #recordVersion(doc: Y.Doc, name: string, size: number, reason: VersionReason): StoredVersion {
    return recordVersion(
      doc,
      { author: this.author, reason, size, codec: this.codecFor(name).id, name, ts: this.#clock() },
      FS_ORIGIN,
    )
  }

  /** The row fields of a content change: size, mtime and (with a provider) the content version. */
  #contentPatch(id: FileId, size: number): Pick<FileRow, 'size' | 'updatedAt' | 'sv'> {
    const patch: Pick<FileRow, 'size' | 'updatedAt' | 'sv'> = { size, updatedAt: this.#clock() }
    if (this.#lazyContent) return patch
    const doc = this.pool.peek(id)
    const sv = doc ? contentVersionOf(doc) : this.#writtenSv.get(id)
    this.#writtenSv.delete(id)
    if (sv !== undefined) patch.sv = sv
    return patch
  }

  #contentSize(doc: Y.Doc, name: string): number {
    const bytes = readBinary(doc)
    return bytes ? bytes.byteLength : utf8Length(this.#readText(doc, name))
  }

  /** Text of a content doc through the file's codec, healing an interrupted convert-on-switch. */
  #readText(doc: Y.Doc, name: string): string {
    const codec = this.codecFor(name)
    if (this.codecs.length > 1 && !codec.hasContent(doc)) {
      const other = this.codecs.find((c) => c !== codec && c.hasContent(doc))
      if (other) {
        const text = other.read(doc)
        codec.write(doc, text, FS_ORIGIN)
        return codec.read(doc)
      }
    }
    return codec.read(doc)
  }

  /**
   * The id of the codec that last wrote `doc` when this filesystem lacks it and
   * the file's own codec finds no content (a peer created without that codec).
   */
  #missingCodec(doc: Y.Doc, name: string): string | undefined {
    if (this.codecFor(name).hasContent(doc)) return undefined
    const last = listStoredVersions(doc).at(-1)
    if (last === undefined || this.codecs.some((c) => c.id === last.codec)) return undefined
    // Renamed to another kind since (e.g. `.md` → `.txt`): that file's codec is ours now.
    const ext = (n: string) => /\.[^./]*$/.exec(n)?.[0].toLowerCase() ?? ''
    return ext(last.name) === ext(name) ? last.codec : undefined
  }

  #noCodec(syscall: string, id: FileId, name: string, codec: string): FsError {
    const hint =
      codec === 'markdown' ? ' (createFileSystem({ codecs: [markdownCodec] }) from @yfs/markdown)' : ''
    return enosys(
      syscall,
      this.index.pathOf(id) ?? name,
      `content is in the '${codec}' format and this filesystem has no '${codec}' codec${hint}`,
    )
  }

  /** Content of a file; `seen`: a whole-file read by a caller, remembered as the base of its next write. */
  // A version's content; ENOSYS instead of empty text when it was written by a codec we lack.
  #versionContent(doc: Y.Doc, version: StoredVersion, id: FileId, name: string): FileContentValue {
    const content = readVersionContent(doc, version, this.codecs)
    if (content.text === '' && version.size > 0 && !this.codecs.some((c) => c.id === version.codec))
      throw this.#noCodec('open', id, name, version.codec)
    return content
  }

  async #readContent(id: FileId, row: FileRow, seen = false): Promise<FileContentValue> {
    const cached = this.index.plaintext.lookup(id, row.size)
    if (cached !== undefined) {
      if (seen) this.#seen.markSeen(id, this.codecFor(row.name).id)
      return { text: cached }
    }
    if (this.#loadContent && this.pool.peek(id) === undefined) {
      await this.#fetchTexts(id)
      const fetched = this.index.plaintext.lookup(id, row.size)
      if (fetched !== undefined) {
        if (seen) this.#seen.markSeen(id, this.codecFor(row.name).id)
        return { text: fetched }
      }
    }
    const handle = await this.pool.acquire(id)
    try {
      if (seen) this.#seen.markSeen(id, this.codecFor(row.name).id)
      const bytes = readBinary(handle.doc)
      if (bytes) return { bytes }
      const missing = this.#missingCodec(handle.doc, row.name)
      if (missing !== undefined && row.size > 0) throw this.#noCodec('open', id, row.name, missing)
      const text = this.#readText(handle.doc, row.name)
      this.index.plaintext.set(id, text, utf8Length(text))
      return { text }
    } finally {
      handle.release()
    }
  }

  /** Memory mode, and text-codec or binary content (normalising codecs such as Markdown are written at once: the cache needs their output). */
  #canSeed(name: string, value: FileContentValue): boolean {
    return this.#lazyContent && (value.bytes !== undefined || this.codecFor(name) === textCodec)
  }

  /**
   * Memory mode: a new file's content and first version, built when its doc is first
   * opened (see ContentDocPool.seed); the text is cached at once. Returns the byte size.
   */
  #seedContent(
    id: FileId,
    name: string,
    value: FileContentValue,
    reason: VersionReason,
    size = value.bytes ? value.bytes.byteLength : utf8Length(value.text ?? ''),
  ): number {
    const codec = this.codecFor(name)
    this.pool.seed(id, this.#contentBuilder(name, value, size, reason))
    this.#seen.markSeen(id, codec.id)
    if (value.text !== undefined) this.index.plaintext.set(id, value.text, size)
    return size
  }

  /**
   * Fill the plaintext cache for `id` and the other uncached files of its folder with one
   * `loadContent` call (a `grep -r` reads them next). A state is cached only when it holds
   * every change peers announced and its text has the row's size; binary files, files of
   * other codecs and refused ids are left to the pool.
   */
  async #fetchTexts(id: FileId): Promise<void> {
    const running = this.#fetching.get(id)
    if (running) return running
    const ids = [id]
    const parent = this.index.effectiveParent(id)
    for (const sibling of parent === undefined ? [] : this.index.allChildren(parent)) {
      if (ids.length >= FETCH_BATCH) break
      const row = this.table.get(sibling)
      if (sibling === id || row?.type !== 'file' || row.trashedAt !== null || this.#fetching.has(sibling))
        continue
      if (this.codecFor(row.name) !== textCodec || this.pool.peek(sibling) !== undefined) continue
      if (this.index.plaintext.lookup(sibling, row.size) === undefined) ids.push(sibling)
    }
    const run = (async () => {
      let states: (Uint8Array | undefined)[]
      try {
        states = await this.#loadContent!(ids)
      } catch {
        // Offline, timed out or refused: each read falls back to opening its doc, which reports the cause.
        return
      }
      ids.forEach((fileId, k) => {
        const state = states[k]
        const row = this.table.get(fileId)
        if (!state || row?.type !== 'file') return
        const doc = new Y.Doc({ guid: fileId, gc: false })
        try {
          Y.applyUpdate(doc, state)
          const codec = this.codecFor(row.name)
          if (readBinary(doc) || !codec.hasContent(doc)) return
          if (!this.#announced.coveredBy(fileId, Y.decodeStateVector(Y.encodeStateVector(doc)))) return
          const text = codec.read(doc)
          const size = utf8Length(text)
          if (size === row.size) this.index.plaintext.set(fileId, text, size)
        } finally {
          doc.destroy()
        }
      })
    })()
    for (const fileId of ids) this.#fetching.set(fileId, run)
    try {
      await run
    } finally {
      for (const fileId of ids) if (this.#fetching.get(fileId) === run) this.#fetching.delete(fileId)
    }
  }

  /** Builds a new file's content doc: its content and first version, stamped now. Text-codec or binary content only. */
  #contentBuilder(
    name: string,
    value: FileContentValue,
    size: number,
    reason: VersionReason,
  ): (doc: Y.Doc) => void {
    const codec = this.codecFor(name)
    const meta = { author: this.author, reason, size, codec: codec.id, name, ts: this.#clock() }
    // A copy: the caller may reuse its buffer before the doc is built.
    const bytes = value.bytes && new Uint8Array(value.bytes) // not .slice(): a Buffer slice is a view
    return (doc) =>
      doc.transact(() => {
        if (bytes) writeBinary(doc, bytes)
        else codec.write(doc, value.text ?? '', FS_ORIGIN)
        recordVersion(doc, meta, FS_ORIGIN)
      }, FS_ORIGIN)
  }

  /** New files' content for a bulk load: seeds in memory mode, batched stores with a server, else one by one. */
  async #createContents(
    files: { id: FileId; name: string; value: FileContentValue; size: number }[],
  ): Promise<number[]> {
    const sizes: number[] = []
    const batch: { id: FileId; update: Uint8Array }[] = []
    for (const { id, name, value, size: planned } of files) {
      if (this.#canSeed(name, value)) {
        sizes.push(this.#seedContent(id, name, value, 'write', planned))
        continue
      }
      if (!this.#storeContent || (!value.bytes && this.codecFor(name) !== textCodec)) {
        sizes.push(await this.#writeContent(id, name, value))
        continue
      }
      const size = value.bytes ? value.bytes.byteLength : utf8Length(value.text ?? '')
      const doc = new Y.Doc({ guid: id, gc: false })
      this.#contentBuilder(name, value, size, 'write')(doc)
      batch.push({ id, update: Y.encodeStateAsUpdate(doc) })
      this.#writtenSv.set(id, contentVersionOf(doc))
      doc.destroy()
      sizes.push(size)
    }
    if (batch.length > 0) await this.#storeContent!(batch)
    // Only once stored: a failed store leaves nothing cached for files that do not exist.
    const stored = new Set(batch.map((b) => b.id))
    files.forEach(({ id, name, value }, k) => {
      if (!stored.has(id)) return
      this.#seen.markSeen(id, this.codecFor(name).id)
      if (value.text !== undefined) this.index.plaintext.set(id, value.text, sizes[k]!)
    })
    return sizes
  }

  /** Write text or bytes into a content doc and record a version; returns the byte size. Caller updates the row. */
  async #writeContent(
    id: FileId,
    name: string,
    value: FileContentValue,
    reason: VersionReason = 'write',
    stale?: { base?: WriteBase; report: WriteReport },
  ): Promise<number> {
    const handle = await this.pool.acquire(id)
    try {
      const doc = handle.doc
      if (!value.bytes) {
        // Never write plain text into content another codec owns.
        const missing = this.#missingCodec(doc, name)
        if (missing !== undefined) throw this.#noCodec('open', id, name, missing)
      }
      if (stale) value = this.#mergeStale(id, doc, name, value, stale)
      let size = 0
      let text: string | undefined
      // One transaction: the edit and its history entry travel as one update.
      doc.transact(() => {
        if (value.bytes) {
          writeBinary(doc, value.bytes)
          size = value.bytes.byteLength
        } else {
          clearBinary(doc)
          const codec = this.codecFor(name)
          codec.write(doc, value.text ?? '', FS_ORIGIN)
          // Codecs may normalise (Markdown): cache what a reader will get back.
          text = codec === textCodec ? (value.text ?? '') : this.#readText(doc, name)
          size = utf8Length(text)
        }
        this.#recordVersion(doc, name, size, reason)
      }, FS_ORIGIN)
      this.#seen.markSeen(id, this.codecFor(name).id)
      // After the transaction: its observer clears the cache entry.
      if (text !== undefined) this.index.plaintext.set(id, text, size)
      if (!this.#lazyContent) this.#writtenSv.set(id, contentVersionOf(doc))
      return size
    } finally {
      handle.release()
    }
  }

  /**
   * A whole-file write against what the writer saw (`stale.base`, else this
   * instance's last-seen state): returns what to write, fills in the report,
   * and keeps the current content as a version when part of it is overwritten.
   */
  #mergeStale(
    id: FileId,
    doc: Y.Doc,
    name: string,
    value: FileContentValue,
    stale: { base?: WriteBase; report: WriteReport },
  ): FileContentValue {
    const codec = this.codecFor(name)
    const base = this.#baseOf(id, doc, codec, stale.base)
    if (base === undefined) return value
    const bytes = readBinary(doc)
    const theirs: ContentValue = bytes ? { bytes } : { text: this.#readText(doc, name) }
    // Compare and merge what the codec would store (Markdown re-serialises).
    const ours =
      value.text !== undefined && codec !== textCodec
        ? { text: normalizeWithCodec(codec, value.text) }
        : value
    const r = resolveStaleWrite(base ?? { bytes: new Uint8Array() }, ours, theirs, codec.merge?.bind(codec))
    stale.report.merged = r.merged
    stale.report.conflicts = r.conflicts
    if (r.overwritten || base === null) {
      stale.report.conflict = true
      let last = listStoredVersions(doc).at(-1)
      if (!last || hasUnversionedChanges(doc))
        last = this.#recordVersion(
          doc,
          name,
          theirs.bytes?.byteLength ?? utf8Length(theirs.text ?? ''),
          'conflict',
        )
      stale.report.replacedVersion = toFileVersion(last)
    }
    return r.merged ? r.value : value
  }

  /** The base of a stale write: explicit, or the last-seen snapshot; `undefined` when fresh or never seen, `null` when unreadable. */
  #baseOf(
    id: FileId,
    doc: Y.Doc,
    codec: ContentCodec,
    explicit?: WriteBase,
  ): ContentValue | null | undefined {
    if (explicit && 'snapshot' in explicit)
      return readSnapshotContent(doc, Y.decodeSnapshot(explicit.snapshot), codec)
    if (explicit) return explicit
    const seen = this.#seen.get(id)
    if (seen?.kind !== 'snapshot') return undefined
    const seenCodec = this.codecs.find((c) => c.id === seen.codec) ?? textCodec
    try {
      return readSnapshotContent(doc, seen.snapshot, seenCodec)
    } catch (error) {
      // A snapshot the doc can no longer rebuild (content dropped elsewhere): the writer wins, theirs is kept as a version.
      if (error instanceof Error) return null
      throw error
    }
  }

  // ----------------------------------------------------------------- reads

  async readFile(path: string, options?: ReadFileOptions): Promise<string> {
    const encoding = getEncoding(options)
    const normalized = this.#norm(path, 'open')
    const loc = this.#locate(normalized, true, 'open', path)
    if (loc.kind === 'system') return this.#local.readFile(loc.path, options)
    const row = this.#row(loc.id)
    if (!row || row.type === 'folder') throw eisdir('read', path)
    const content = await this.#readContent(loc.id, row, true)
    if (content.text !== undefined) {
      if (encoding === 'utf8' || encoding === 'utf-8') return content.text
      return fromBytes(encodeUtf8(content.text), encoding)
    }
    return fromBytes(content.bytes!, encoding)
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    const normalized = this.#norm(path, 'open')
    const loc = this.#locate(normalized, true, 'open', path)
    if (loc.kind === 'system') return this.#local.readFileBuffer(loc.path)
    const row = this.#row(loc.id)
    if (!row || row.type === 'folder') throw eisdir('read', path)
    const content = await this.#readContent(loc.id, row, true)
    return content.bytes ?? encodeUtf8(content.text ?? '')
  }

  async readFileBytes(path: string): Promise<never> {
    const normalized = this.#norm(path, 'open')
    const loc = this.#locate(normalized, true, 'open', path)
    if (loc.kind === 'system') return (await this.#local.readFileBytes(loc.path)) as never
    const row = this.#row(loc.id)
    if (!row || row.type === 'folder') throw eisdir('read', path)
    const content = await this.#readContent(loc.id, row, true)
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
      const loc = this.#locate(paths.resolve('/', path), true, 'access', path)
      if (loc.kind === 'system') return this.#local.exists(loc.path)
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
    const loc = this.#locate(this.#norm(path, 'stat'), true, 'stat', path)
    if (loc.kind === 'system') return this.#local.stat(loc.path)
    return this.#statOf(loc.id)
  }

  async lstat(path: string): Promise<FsStat> {
    const loc = this.#locate(this.#norm(path, 'lstat'), false, 'lstat', path)
    if (loc.kind === 'system') return this.#local.lstat(loc.path)
    return this.#statOf(loc.id)
  }

  async readdir(path: string): Promise<string[]> {
    const { id, system } = this.#dir(path)
    if (system !== undefined) return this.#local.readdir(system)
    const names = this.index.childNames(id)
    if (id !== ROOT_ID) return [...names]
    return [...new Set([...names.filter((n) => !SYSTEM_ROOTS.includes(n)), ...SYSTEM_ROOTS])].sort()
  }

  async readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    const { id, system } = this.#dir(path)
    if (system !== undefined) return this.#local.readdirWithFileTypes(system)
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
    const loc = this.#locate(this.#norm(path, 'scandir'), true, 'scandir', path)
    if (loc.kind === 'system') return { id: ROOT_ID, system: loc.path }
    if (!this.#isFolder(loc.id)) throw enotdir('scandir', path)
    return { id: loc.id }
  }

  // ---------------------------------------------------------------- writes

  async writeFile(path: string, content: FileContent, options?: WriteFileOptions): Promise<void> {
    const normalized = this.#norm(path, 'write')
    if (isSystemPath(normalized)) return this.#local.writeFile(normalized, content, options)
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
    const normalized = this.#norm(path, 'write')
    const report: WriteReport = {
      path: normalized,
      size: 0,
      created: false,
      merged: false,
      conflict: false,
      conflicts: [],
    }
    if (isSystemPath(normalized)) {
      await this.#local.writeFile(normalized, content, options.encoding)
      report.size = (await this.#local.stat(normalized)).size
      return report
    }
    this.#writable('open', path)
    const value = this.#toContentValue(content, options.encoding ?? 'utf8')
    const stale = { base: options.base, report }
    await this.#exclusive(() => this.#write(normalized, path, value, 'write', stale))
    return report
  }

  /** Encoded Yjs snapshot of a file's content doc now: a `base` for a later `write` (`{ snapshot }`). */
  async contentSnapshot(path: string): Promise<Uint8Array> {
    const row = this.#fileAt(path, 'open')
    const handle = await this.pool.acquire(row.id)
    try {
      return Y.encodeSnapshot(Y.snapshot(handle.doc))
    } finally {
      handle.release()
    }
  }

  #toContentValue(content: FileContent, encoding: BufferEncoding): FileContentValue {
    if (
      typeof content === 'string' &&
      (encoding === 'utf8' || encoding === 'utf-8') &&
      !content.includes('\0')
    )
      return { text: content }
    const bytes = toBytes(content, encoding)
    const text = decodeTextOrBinary(bytes)
    return text === undefined ? { bytes } : { text }
  }

  /** Create or overwrite a file at `normalized` (symlinks followed). */
  async #write(
    normalized: string,
    original: string,
    value: FileContentValue,
    syscall: string,
    stale?: { base?: WriteBase; report: WriteReport },
  ): Promise<FileId> {
    const target = this.#resolveWriteTarget(normalized, syscall, original)
    const newSize = value.bytes ? value.bytes.byteLength : utf8Length(value.text ?? '')
    if (stale) stale.report.path = target.path
    if (target.id !== undefined) {
      const row = this.table.get(target.id)!
      if (row.type === 'folder') throw eisdir('open', original)
      this.#checkSize(newSize, row.size, syscall, original)
      const size = await this.#writeContent(target.id, row.name, value, 'write', stale)
      this.table.update(target.id, this.#contentPatch(target.id, size), FS_ORIGIN)
      if (stale) {
        stale.report.size = size
        this.#emitMerge(target.id, stale.report)
      }
      return target.id
    }
    if (stale) stale.report.created = true
    this.#checkName(target.name, syscall, original)
    this.#checkNewPath(target.path, syscall, original)
    this.#checkSize(newSize, 0, syscall, original)
    const id = createFileId()
    // Content first, row last: a peer never sees a row whose content is still to come.
    const size = this.#canSeed(target.name, value)
      ? this.#seedContent(id, target.name, value, 'write')
      : await this.#writeContent(id, target.name, value)
    if (stale) stale.report.size = size
    const { updatedAt: now, ...content } = this.#contentPatch(id, size)
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

  /** Where a write lands: an existing node (after following symlinks) or a new name in a folder. */
  #resolveWriteTarget(
    normalized: string,
    syscall: string,
    original: string,
  ): { id?: FileId; parentId: FileId; name: string; path: string } {
    let path = normalized
    for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
      if (path === '/') throw eisdir('open', original)
      if (isSystemPath(path)) throw new FsError('EACCES', syscall, original)
      const { parentId, parentPath } = this.#parentFolder(path, syscall, original)
      const name = paths.basename(path)
      const id = this.index.child(parentId, name)
      const row = id === undefined ? undefined : this.table.get(id)
      if (row?.type === 'symlink') {
        path = paths.resolve(parentPath, row.target ?? '')
        continue
      }
      return { id, parentId, name, path: paths.join(parentPath, name) }
    }
    throw eloop(syscall, original)
  }

  async appendFile(path: string, content: FileContent, options?: WriteFileOptions): Promise<void> {
    const normalized = this.#norm(path, 'append')
    if (isSystemPath(normalized)) return this.#local.appendFile(normalized, content, options)
    this.#writable('open', path)
    const value = this.#toContentValue(content, getEncoding(options))
    return this.#exclusive(async () => {
      const target = this.#resolveWriteTarget(normalized, 'append', path)
      if (target.id === undefined) {
        await this.#write(normalized, path, value, 'append')
        return
      }
      const row = this.table.get(target.id)!
      if (row.type === 'folder') throw eisdir('write', path)
      const addSize = value.bytes ? value.bytes.byteLength : utf8Length(value.text ?? '')
      this.#checkSize(row.size + addSize, row.size, 'append', path)
      const handle = await this.pool.acquire(target.id)
      let size: number
      try {
        const doc = handle.doc
        const existingBytes = readBinary(doc)
        const codec = this.codecFor(row.name)
        const missing = existingBytes ? undefined : this.#missingCodec(doc, row.name)
        if (missing !== undefined) throw this.#noCodec('open', target.id, row.name, missing)
        if (!existingBytes && value.text !== undefined && codec === textCodec) {
          // A true append: concurrent appends from two peers both survive.
          const ytext = doc.getText('text')
          doc.transact(() => ytext.insert(ytext.length, value.text!), FS_ORIGIN)
          size = utf8Length(ytext.toString())
          this.index.plaintext.set(target.id, ytext.toString(), size)
          this.#recordVersion(doc, row.name, size, 'write')
        } else {
          const before = existingBytes ?? encodeUtf8(this.#readText(doc, row.name))
          const add = value.bytes ?? encodeUtf8(value.text ?? '')
          const all = new Uint8Array(before.byteLength + add.byteLength)
          all.set(before)
          all.set(add, before.byteLength)
          handle.release()
          const text = decodeTextOrBinary(all)
          size = await this.#writeContent(target.id, row.name, text === undefined ? { bytes: all } : { text })
        }
      } finally {
        handle.release()
      }
      this.table.update(target.id, this.#contentPatch(target.id, size), FS_ORIGIN)
    })
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    const normalized = this.#norm(path, 'mkdir')
    if (isSystemPath(normalized)) return this.#local.mkdir(normalized, options)
    // Queued like every other mutation, so it cannot slip between a write's check and its row.
    return this.#exclusive(() => this.mkdirSync(path, options))
  }

  /** Synchronous mkdir (folders have no content doc); just-bash calls it while setting up. */
  mkdirSync(path: string, options?: MkdirOptions): void {
    const normalized = this.#norm(path, 'mkdir')
    if (isSystemPath(normalized)) {
      this.#local.mkdirSync(normalized, options)
      return
    }
    this.#writable('mkdir', path)
    if (normalized === '/') {
      if (options?.recursive) return
      throw new FsError('EEXIST', 'mkdir', path, undefined, 'directory already exists')
    }
    const parentPath = paths.dirname(normalized)
    if (options?.recursive && this.index.symlinkCount === 0) {
      // Check the whole chain first: a recursive mkdir that fails creates nothing.
      const missing = this.#missingFolders(normalized)
      if (missing > 0) {
        for (const name of paths.split(normalized).slice(-missing)) this.#checkName(name, 'mkdir', path)
        this.#checkNewPath(normalized, 'mkdir', path, missing)
      }
    }
    let parent: { parentId: FileId; parentPath: string }
    try {
      parent = this.#parentFolder(normalized, 'mkdir', path)
    } catch (error) {
      if (!(error instanceof FsError) || error.code !== 'ENOENT' || !options?.recursive) throw error
      this.mkdirSync(parentPath, options)
      parent = this.#parentFolder(normalized, 'mkdir', path)
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
    this.#checkName(name, 'mkdir', path)
    this.#checkNewPath(normalized, 'mkdir', path)
    const now = this.#clock()
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
      const loc = this.#locate(path, true, 'mkdir', path)
      return loc.kind === 'system' || this.#isFolder(loc.id)
    } catch {
      // A dangling link is not a directory.
      return false
    }
  }

  /** Synchronous write used by just-bash only for system paths (command stubs, /dev, /proc). */
  writeFileSync(path: string, content: FileContent): void {
    const normalized = this.#norm(path, 'write')
    if (!isSystemPath(normalized)) throw enosys('write', path, 'synchronous writes are only for system paths')
    this.#local.writeFileSync(normalized, content)
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    const normalized = this.#norm(path, 'rm')
    if (isSystemPath(normalized)) return this.#local.rm(normalized, options)
    this.#writable('rm', path)
    return this.#exclusive(() => this.#remove(normalized, path, options))
  }

  /** rm of a normalised path (the caller holds the queue): soft delete in the workspace, gone in the local layer. */
  async #remove(normalized: string, path: string, options?: RmOptions): Promise<void> {
    if (isSystemPath(normalized)) return this.#local.rm(normalized, options)
    let loc: Location
    try {
      loc = this.#locate(normalized, false, 'rm', path)
    } catch (error) {
      if (options?.force && error instanceof FsError && error.code === 'ENOENT') return
      throw error
    }
    if (loc.kind === 'system') return this.#local.rm(loc.path, options)
    const now = this.#clock()
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
    const srcNorm = this.#norm(src, 'cp')
    const destNorm = this.#norm(dest, 'cp')
    if (!isSystemPath(destNorm)) this.#writable('cp', dest)
    return this.#exclusive(() => this.#copy(srcNorm, destNorm, src, dest, options))
  }

  async #copy(
    srcNorm: string,
    destNorm: string,
    src: string,
    dest: string,
    options?: CpOptions,
  ): Promise<void> {
    const loc = this.#locate(srcNorm, false, 'cp', src)
    // Either side may be in the local layer (/tmp): read and write through whichever holds it.
    let kind: FileRow['type']
    let row: FileRow | undefined
    if (loc.kind === 'system') {
      const st = await this.#local.lstat(loc.path)
      kind = st.isDirectory ? 'folder' : st.isSymbolicLink ? 'symlink' : 'file'
    } else {
      row = this.#row(loc.id)
      kind = row?.type ?? 'folder'
    }
    const toLocal = isSystemPath(destNorm)
    if (kind === 'folder') {
      if (!options?.recursive) throw new FsError('EISDIR', 'cp', src, undefined, 'is a directory')
      if (paths.isSameOrDescendant(srcNorm, destNorm))
        throw new FsError('EINVAL', 'cp', src, undefined, `cannot copy '${src}' into itself, '${dest}'`)
      if (toLocal) await this.#local.mkdir(destNorm, { recursive: true })
      else this.mkdirSync(destNorm, { recursive: true })
      const names =
        loc.kind === 'system' ? await this.#local.readdir(loc.path) : [...this.index.childNames(loc.id)]
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
      const target = loc.kind === 'system' ? await this.#local.readlink(loc.path) : (row!.target ?? '')
      if (toLocal) await this.#local.symlink(target, destNorm)
      else await this.#symlink(target, destNorm, dest)
      return
    }
    const content =
      loc.kind === 'system'
        ? this.#toContentValue(await this.#local.readFileBuffer(loc.path), 'utf8')
        : await this.#readContent(loc.id, row!)
    if (toLocal) await this.#local.writeFile(destNorm, content.bytes ?? content.text ?? '')
    else await this.#write(destNorm, dest, content, 'cp')
  }

  async mv(src: string, dest: string): Promise<void> {
    const srcNorm = this.#norm(src, 'mv')
    const destNorm = this.#norm(dest, 'mv')
    if (srcNorm === destNorm) return
    const [srcLocal, destLocal] = [isSystemPath(srcNorm), isSystemPath(destNorm)]
    if (srcLocal && destLocal) return this.#local.mv(srcNorm, destNorm)
    if (srcLocal || destLocal) {
      // Between /tmp and the workspace: copy, then remove, as between two filesystems.
      const local = srcLocal ? srcNorm : destNorm
      if (local === TMP_PATH) throw new FsError('EBUSY', 'rename', src, dest)
      if (!isTmpPath(local)) throw new FsError('EACCES', 'rename', src, dest)
      this.#writable('rename', srcLocal ? dest : src)
      return this.#exclusive(() => this.#moveAcross(srcNorm, destNorm, src, dest))
    }
    this.#writable('rename', src)
    return this.#exclusive(() => this.#move(srcNorm, destNorm, src, dest))
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
    const loc = this.#locate(srcNorm, false, 'mv', src)
    if (loc.kind === 'system' || loc.id === ROOT_ID) throw new FsError('EBUSY', 'rename', src, dest)
    const row = this.table.get(loc.id)!
    if (row.type === 'folder' && paths.isSameOrDescendant(srcNorm, destNorm))
      throw new FsError('EINVAL', 'mv', src, undefined, `cannot move '${src}' into itself, '${dest}'`)
    const { parentId, parentPath } = this.#parentFolder(destNorm, 'rename', dest)
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
    this.#checkName(name, 'rename', dest)
    const destPath = paths.join(parentPath, name)
    if (paths.split(destPath).length > this.limits.maxPathDepth)
      throw einval('rename', dest, `path deeper than ${this.limits.maxPathDepth} levels`)
    const fromCodec = this.codecFor(row.name)
    const toCodec = this.codecFor(name)
    if (row.type === 'file' && fromCodec !== toCodec) {
      // Convert-on-switch: move the content to the new codec's keys before the rename lands.
      const handle = await this.pool.acquire(loc.id)
      try {
        if (!readBinary(handle.doc)) {
          const text = this.#readText(handle.doc, row.name)
          toCodec.write(handle.doc, text, FS_ORIGIN)
          this.index.plaintext.delete(loc.id)
          this.#recordVersion(handle.doc, name, this.#contentSize(handle.doc, name), 'write')
        }
      } finally {
        handle.release()
      }
    }
    const now = this.#clock()
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
        if (doc) patch.size = this.#contentSize(doc, name)
        if (doc && !this.#lazyContent) patch.sv = contentVersionOf(doc)
      }
      this.table.update(loc.id, patch, FS_ORIGIN)
    }, FS_ORIGIN)
  }

  async chmod(path: string, mode: number): Promise<void> {
    const loc = this.#locate(this.#norm(path, 'chmod'), true, 'chmod', path)
    if (loc.kind === 'system') return this.#local.chmod(loc.path, mode)
    this.#writable('chmod', path)
    if (loc.id === ROOT_ID) return
    this.table.update(loc.id, { mode: mode & 0o7777 }, FS_ORIGIN)
  }

  async utimes(path: string, _atime: Date, mtime: Date): Promise<void> {
    const loc = this.#locate(this.#norm(path, 'utime'), true, 'utime', path)
    if (loc.kind === 'system') return this.#local.utimes(loc.path, _atime, mtime)
    this.#writable('utime', path)
    if (loc.id === ROOT_ID) return
    this.table.update(loc.id, { updatedAt: mtime.getTime() }, FS_ORIGIN)
  }

  async symlink(target: string, linkPath: string): Promise<void> {
    const normalized = this.#norm(linkPath, 'symlink')
    if (isSystemPath(normalized)) return this.#local.symlink(target, normalized)
    this.#writable('symlink', linkPath)
    return this.#exclusive(() => this.#symlink(target, normalized, linkPath))
  }

  async #symlink(target: string, normalized: string, linkPath: string): Promise<void> {
    if (normalized === '/') throw eexist('symlink', linkPath)
    const { parentId } = this.#parentFolder(normalized, 'symlink', linkPath)
    const name = paths.basename(normalized)
    if (this.index.child(parentId, name) !== undefined) throw eexist('symlink', linkPath)
    this.#checkName(name, 'symlink', linkPath)
    this.#checkNewPath(normalized, 'symlink', linkPath)
    const now = this.#clock()
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
    const loc = this.#locate(this.#norm(path, 'readlink'), false, 'readlink', path)
    if (loc.kind === 'system') return this.#local.readlink(loc.path)
    const row = this.#row(loc.id)
    if (row?.type !== 'symlink') throw einval('readlink', path)
    return row.target ?? ''
  }

  resolvePath(base: string, path: string): string {
    return paths.resolve(base, path)
  }

  async realpath(path: string): Promise<string> {
    const loc = this.#locate(this.#norm(path, 'realpath'), true, 'realpath', path)
    if (loc.kind === 'system') return this.#local.realpath(loc.path)
    return this.index.pathOf(loc.id) ?? loc.path
  }

  getAllPaths(): string[] {
    const local = this.#local.getAllPaths()
    const shared = this.index.allPaths().filter((p) => !isSystemPath(p))
    return [...local, ...shared]
  }

  // --------------------------------------------------------------- history

  /** The file a path names (symlinks followed); throws ENOENT/EISDIR. */
  #fileAt(path: string, syscall: string): FileRow {
    const loc = this.#locate(this.#norm(path, syscall), true, syscall, path)
    if (loc.kind === 'system') throw enosys(syscall, path, 'system paths have no history')
    const row = this.#row(loc.id)
    if (!row || row.type === 'folder') throw eisdir(syscall, path)
    return row
  }

  /**
   * Versions of a file, oldest first. Pending editor edits are recorded first,
   * so the newest version is always the current content.
   */
  async history(path: string): Promise<FileVersion[]> {
    const row = this.#fileAt(path, 'history')
    const handle = await this.pool.acquire(row.id)
    try {
      if (!this.readOnly && hasUnversionedChanges(handle.doc))
        this.#recordVersion(handle.doc, row.name, row.size, 'save')
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
    this.#writable('history', path)
    const row = this.#fileAt(path, 'history')
    const handle = await this.pool.acquire(row.id)
    try {
      let last = listStoredVersions(handle.doc).at(-1)
      if (!last || hasUnversionedChanges(handle.doc))
        last = this.#recordVersion(handle.doc, row.name, this.#contentSize(handle.doc, row.name), 'save')
      return toFileVersion(last)
    } finally {
      handle.release()
    }
  }

  /** Text (or, for binary versions, bytes) of one version. Throws ENOENT for an unknown version id. */
  async readVersionContent(path: string, versionId: string): Promise<{ text?: string; bytes?: Uint8Array }> {
    const row = this.#fileAt(path, 'history')
    const handle = await this.pool.acquire(row.id)
    try {
      const version = listStoredVersions(handle.doc).find((v) => v.id === versionId)
      if (!version)
        throw new FsError('ENOENT', 'history', path, undefined, `no version '${versionId}' of this file`)
      return this.#versionContent(handle.doc, version, row.id, row.name)
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
    this.#writable('restore', path)
    const content = await this.readVersionContent(path, versionId)
    const row = this.#fileAt(path, 'restore')
    return this.#exclusive(async () => {
      const size = await this.#writeContent(row.id, row.name, content, 'restore')
      this.table.update(row.id, this.#contentPatch(row.id, size), FS_ORIGIN)
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
    this.#writable('open', '/')
    return this.#exclusive(() =>
      bulkLoad(
        {
          table: this.table,
          index: this.index,
          limits: this.limits,
          origin: FS_ORIGIN,
          clock: this.#clock,
          isSystemPath,
          locate: (path, syscall, original) => {
            const loc = this.#locate(path, true, syscall, original)
            if (loc.kind === 'system') throw new FsError('EACCES', syscall, original)
            return loc.id
          },
          toContent: (content) => this.#toContentValue(content, 'utf8'),
          createContents: (files) => this.#createContents(files),
          replaceContent: (id, name, value) => this.#writeContent(id, name, value),
          contentPatch: (id, size) => this.#contentPatch(id, size),
          tagEvents: (transactionId, fn) => {
            this.#transactionId = transactionId
            try {
              fn()
            } finally {
              this.#transactionId = undefined
            }
          },
        },
        entries,
      ),
    )
  }

  async transaction(ops: readonly FsOp[]): Promise<TransactionResult> {
    this.#writable('transaction', '/')
    return this.#exclusive(async () => {
      const stageDoc = new Y.Doc({ guid: 'yfs-staging' })
      Y.applyUpdate(stageDoc, Y.encodeStateAsUpdate(this.doc))
      const stage = new YjsFileSystem({
        doc: stageDoc,
        codecs: this.codecs.filter((c) => c !== textCodec),
        limits: this.limits,
        clock: this.#clock,
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
          const value: FileContentValue = bytes ? { bytes } : { text: stage.#readText(staged, row.name) }
          const liveRow = this.table.get(id)
          if (liveRow && sameContent(await this.#readContent(id, liveRow), value)) continue
          // Content read through this instance before the transaction (apply_patch) merges like a stale write.
          const report: WriteReport = {
            path: stage.index.pathOf(id) ?? '/',
            size: 0,
            created: !liveRow,
            merged: false,
            conflict: false,
            conflicts: [],
          }
          report.size = await this.#writeContent(
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
        this.#transactionId = transactionId
        try {
          this.table.batch(() => {
            for (const row of changed) this.table.set(this.#withWrittenSv(row), FS_ORIGIN)
          }, FS_ORIGIN)
          for (const m of merges) this.#emitMerge(m.id, m.report)
        } finally {
          this.#transactionId = undefined
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

  /** A row copied from a staging run or a checkpoint, with the version of content written here. */
  #withWrittenSv(row: FileRow): FileRow {
    const sv = this.#writtenSv.get(row.id)
    if (sv === undefined) return row
    this.#writtenSv.delete(row.id)
    return { ...row, sv }
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
    this.#writable('checkpoint', '/')
    return this.#exclusive(() => this.#checkpoint(label))
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
          last = this.#recordVersion(
            handle.doc,
            row.name,
            this.#contentSize(handle.doc, row.name),
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
      ts: this.#clock(),
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
        if (row.type !== 'folder') out.set(path, { id: fileId, read: () => this.#readNode(row) })
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

  async #readNode(row: FileRow): Promise<FileContentValue> {
    if (row.type === 'symlink') return { text: row.target ?? '' }
    return this.#readContent(row.id, row)
  }

  async #readVersionById(id: FileId, versionId: string | undefined): Promise<FileContentValue> {
    if (versionId === undefined) return { text: '' }
    const handle = await this.pool.acquire(id)
    try {
      const version = listStoredVersions(handle.doc).find((v) => v.id === versionId)
      if (!version)
        throw new FsError('ENOENT', 'checkpoint', id, undefined, `version '${versionId}' is missing`)
      return this.#versionContent(handle.doc, version, id, version.name)
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
    this.#writable('checkpoint', '/')
    return this.#exclusive(async () => {
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
          sameContent(await this.#readContent(row.id, live), wanted)
        )
          continue
        await this.#writeContent(row.id, row.name, wanted, 'restore')
      }
      const now = this.#clock()
      this.table.batch(() => {
        for (const row of this.table.rows()) {
          if (!target.has(row.id) && row.trashedAt === null)
            this.table.update(row.id, { trashedAt: now }, FS_ORIGIN)
        }
        for (const row of stored.rows) {
          const live = this.table.get(row.id)
          // A file whose content was rewritten gets a row entry even when its row is unchanged:
          // the entry announces the change to peers (see content-versions.ts).
          if (!live || this.#writtenSv.has(row.id) || JSON.stringify(live) !== JSON.stringify(row))
            this.table.set(this.#withWrittenSv(row), FS_ORIGIN)
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
      this.#writable('restore', id)
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
      this.#writable('rm', '/')
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
        this.#seen.forget(id)
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
    if (!this.#events.active) return
    const origin = tr.local ? 'local' : 'remote'
    for (const [id, { before, after }] of changes) {
      const oldPath = oldPaths.get(id)
      const path = after ? this.index.pathOf(id) : undefined
      const base = { id, origin, size: after?.size, transactionId: this.#transactionId } as const
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
      if (event) this.#events.emit(event)
    }
  }

  /** `merge` / `conflict` event of a stale write (after its `write` event). */
  #emitMerge(id: FileId, report: WriteReport): void {
    if (!this.#events.active || !report.merged) return
    const base = {
      id,
      origin: 'local',
      path: report.path,
      size: report.size,
      transactionId: this.#transactionId,
    } as const
    if (!report.conflict) this.#events.emit({ ...base, type: 'merge' })
    else
      this.#events.emit({
        ...base,
        type: 'conflict',
        conflicts: report.conflicts,
        versionId: report.replacedVersion?.id,
      })
  }

  /** Stop observing; the docs stay usable by their owner. */
  destroy(): void {
    this.#unsubscribe?.()
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
