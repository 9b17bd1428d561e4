/**
 * YjsFileSystem: just-bash's `IFileSystem` on the files table and content docs.
 *
 * It orchestrates and owns no state of its own: rows live in the files table,
 * paths in the path index, content in the content-doc pool. The class is a
 * facade: each method hands its call to the module of its concept, with the
 * filesystem's shared state (fs-context.ts) as the first argument:
 *
 *   locate.ts, limit-checks.ts          path resolution; checks before writes
 *   read-file.ts, stat.ts, readdir.ts   reads, metadata (chmod, utimes), listings
 *   write-file.ts, mkdir.ts, remove.ts  writes, folders, rm (soft delete)
 *   copy-move.ts, symlinks.ts           cp, mv (also across /tmp), links
 *   content-codecs.ts, read-content.ts, write-content.ts, merge-stale.ts,
 *   content-lifecycle.ts                a file's content doc through its codec
 *   file-versions.ts, checkpoints.ts    history and checkpoints
 *   trash.ts, transaction.ts, write-tree.ts, change-events.ts
 *
 * (A little over 400 lines: every IFileSystem method and extension, one
 * delegating call each with its doc comment, plus the constructor that
 * builds the shared state; no logic lives here.)
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
 * - Rows merge per field group (files-table.ts): a rename or move, a chmod,
 *   an rm or restore and a content write change only their own fields, so
 *   concurrent ones on different replicas all survive; as in POSIX, a rename
 *   does not change mtime.
 * - A file whose content was written by a codec this filesystem lacks (a
 *   `.md` file on a filesystem created without `markdownCodec`) is ENOSYS
 *   to read (unless empty) and to write, with the missing codec named; it is
 *   never read as empty text, and plain text is never written into it.
 */

import type { CpOptions, FileContent, FsStat, IFileSystem, MkdirOptions, RmOptions } from 'just-bash'
import * as Y from 'yjs'
import { flushQueuedActivity } from '../activity/activity-log.js'
import type { ContentCodec } from '../content/codec.js'
import { ContentAnnouncements } from '../content/content-versions.js'
import { ContentDocPool, hostedConnect } from '../content/doc-pool.js'
import { textCodec } from '../content/text-codec.js'
import { createFilesTable, type FilesTable } from '../files-table.js'
import type { FileVersion } from '../history/file-history.js'
import { captureHostContext, inHost } from '../host-context.js'
import type { FileId } from '../ids.js'
import { DEFAULT_LIMITS, type FileSystemLimits } from '../limits.js'
import { MAX_NAME_BYTES } from '../names.js'
import * as paths from '../path.js'
import { createFileSystemIndex, type FileSystemIndex } from '../path-index.js'
import { newBatchState } from './batch-state.js'
import type { BulkEntry, BulkLoadResult } from './bulk-load.js'
import { watchChanges, watchChangesOfType } from './change-events.js'
import {
  type CheckpointDiff,
  type CheckpointInfo,
  diffCheckpoint,
  listCheckpoints,
  restoreCheckpoint,
  takeCheckpoint,
} from './checkpoints.js'
import { codecFor } from './content-codecs.js'
import {
  cancelAnnounceChecks,
  compactContent,
  onContentClose,
  onContentOpen,
  onRemoteRow,
} from './content-lifecycle.js'
import { cp, mv } from './copy-move.js'
import { DECODED_IDLE_MS, dropDecoded } from './decoded-states.js'
import { createEventHub, type FsEventHandler, type FsEventType } from './events.js'
import {
  diffVersions,
  fileHistory,
  latestVersion,
  readVersion,
  readVersionContent,
  restoreVersion,
  saveVersion,
} from './file-versions.js'
import { type CreateFileSystemOptions, FS_ORIGIN, type FsContext } from './fs-context.js'
import {
  applyHeldTruncations,
  beforeLook,
  dropHeldTruncations,
  hasTruncations,
  holdTruncation,
  isEmptyContent,
  isHeld,
  takeTruncation,
} from './held-truncations.js'
import { knownStateOf } from './known-states.js'
import { LastSeenTracker } from './last-seen.js'
import { LocalLayer } from './local-layer.js'
import { MemoryFs } from './memory-fs.js'
import { mkdir, mkdirSync } from './mkdir.js'
import { readPlaintext } from './read-content.js'
import { readFile, readFileBuffer, readFileBytes } from './read-file.js'
import { getAllPaths, readdir, readdirWithFileTypes } from './readdir.js'
import { rm } from './remove.js'
import type { WriteOptions, WriteReport } from './stale-write.js'
import { chmod, exists, lstat, stat, utimes } from './stat.js'
import { link, readlink, realpath, symlink } from './symlinks.js'
import { type FsOp, runTransaction, type TransactionResult } from './transaction.js'
import { createTrash, type Trash } from './trash.js'
import { openBatch, storePendingContent, whenContentStored } from './write-batch.js'
import { appendFile, contentSnapshot, write, writeFile, writeFileSync } from './write-file.js'
import { writeTree } from './write-tree.js'

type ReadFileOptions = Parameters<IFileSystem['readFile']>[1]
type WriteFileOptions = Parameters<IFileSystem['writeFile']>[2]
type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem['readdirWithFileTypes']>>>[number]

export type { CheckpointDiff, CheckpointInfo } from './checkpoints.js'
export { CHECKPOINTS_KEY } from './checkpoints.js'
export type { CreateFileSystemOptions } from './fs-context.js'
export { FS_ORIGIN } from './fs-context.js'
export { SYSTEM_ROOTS } from './local-layer.js'
export type { TrashEntry } from './trash.js'

// Methods return their module's promise without `async`/`await` of their own: no extra
// promise per call on the hot paths (readFile, writeFile, stat). The module functions are
// async, so a failing check still rejects rather than throws.
export class YjsFileSystem implements IFileSystem {
  readonly doc: Y.Doc
  readonly table: FilesTable
  readonly index: FileSystemIndex
  readonly pool: ContentDocPool
  readonly limits: FileSystemLimits
  readonly codecs: readonly ContentCodec[]
  readonly author: string
  readonly readOnly: boolean
  /** Rows in the trash: list them, restore one, empty the trash (see trash.ts). */
  readonly trash: Trash
  // Everything the modules of this folder share (fs-context.ts); the class holds no other state.
  readonly #ctx: FsContext

  constructor(options: CreateFileSystemOptions = {}) {
    const doc = options.doc ?? new Y.Doc()
    const clock = options.clock ?? Date.now
    const limits = { ...DEFAULT_LIMITS, ...options.limits }
    // Longer names would be refused by servers and shown cut (names.ts).
    limits.maxNameLength = Math.min(limits.maxNameLength, MAX_NAME_BYTES)
    // A row merged from concurrent entries is written back as one by replicas that may write (files-table.ts).
    const table = createFilesTable(doc, {
      clock,
      writeBack: !(options.readOnly ?? false) && options.rowGroups !== false,
      groups: options.rowGroups,
    })
    const index = createFileSystemIndex(table)
    // The hooks are transport code, called from inside scripts: they run where the filesystem was
    // made, outside just-bash's sandbox (host-context.ts).
    const host = captureHostContext()
    const connect = options.connect && hostedConnect(host, options.connect)
    const hosted = <A extends unknown[], R>(fn: ((...args: A) => R) | undefined) => fn && inHost(host, fn)
    const ctx: FsContext = {
      doc,
      table,
      index,
      pool: new ContentDocPool({
        connect,
        idleMs: options.idleMs,
        maxIdle: options.maxIdle,
        beforeOpen: (id) => {
          // Opening syncs what others changed meanwhile, before the doc is watched (file-versions.ts).
          ctx.newestVersions.delete(id)
          return whenContentStored(ctx, id)
        },
        knownState: (id) => knownStateOf(ctx, id),
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
      recordedOn: new WeakSet(),
      editedUnversioned: new Set(),
      docCleanup: new Map(),
      seen: new LastSeenTracker(FS_ORIGIN, options.mergeStaleWrites ?? true),
      lazyContent: options.connect === undefined,
      announced: new ContentAnnouncements(),
      writtenSv: new Map(),
      storeContent: options.connect ? hosted(options.storeContent) : undefined,
      // Builds on states fetched with loadContent: both or neither.
      updateContent: options.connect && options.loadContent ? hosted(options.updateContent) : undefined,
      bulkStoreReady: options.bulkStoreReady ?? (() => true),
      holdContentUpdates: options.connect ? hosted(options.holdContentUpdates) : undefined,
      online: options.online ?? (() => true),
      loadContent: options.connect ? hosted(options.loadContent) : undefined,
      fetching: new Map(),
      announceChecks: new Map(),
      announceDelayMs: options.announceDelayMs ?? 250,
      held: new Map(),
      holdTruncationsMs: options.holdTruncationsMs ?? 1000,
      keepDecodedMs: options.keepDecodedMs ?? DECODED_IDLE_MS,
      batch: newBatchState(),
      newestVersions: new Map(),
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
    this.trash = createTrash(ctx)
    table.observeRemoteEntries((row) => onRemoteRow(ctx, row))
  }

  // ---------------------------------------------------------------- events

  /** Subscribe to change events (local and remote); returns an unsubscribe. */
  watch(handler: FsEventHandler): () => void {
    return watchChanges(this.#ctx, handler)
  }

  /** Subscribe to one kind of change event; returns an unsubscribe. */
  on(type: FsEventType, handler: FsEventHandler): () => void {
    return watchChangesOfType(this.#ctx, type, handler)
  }

  /** The codec that owns files with this name. */
  codecFor(name: string): ContentCodec {
    return codecFor(this.#ctx, name)
  }

  // ----------------------------------------------------------------- reads

  readFile(path: string, options?: ReadFileOptions): Promise<string> {
    return this.#look(path, () => readFile(this.#ctx, path, options))
  }

  readFileBuffer(path: string): Promise<Uint8Array> {
    return this.#look(path, () => readFileBuffer(this.#ctx, path))
  }

  /**
   * The text of file `id` as a person reads it (Markdown text for `.md`), `undefined` for
   * binary files and ids that are not files. For indexers: unlike `readFile` it is not a read
   * by the caller, so it is no base for a later write. Throws ENOSYS when the codec is missing.
   */
  readPlaintext(id: FileId): Promise<string | undefined> {
    return readPlaintext(this.#ctx, id)
  }

  readFileBytes(path: string): Promise<never> {
    return this.#look(path, () => readFileBytes(this.#ctx, path))
  }

  exists(path: string): Promise<boolean> {
    // Resolves the path only: nothing of the content shows, so a held truncation stays held.
    return exists(this.#ctx, path)
  }

  stat(path: string): Promise<FsStat> {
    return this.#look(path, () => stat(this.#ctx, path))
  }

  lstat(path: string): Promise<FsStat> {
    return this.#look(path, () => lstat(this.#ctx, path))
  }

  readdir(path: string): Promise<string[]> {
    return readdir(this.#ctx, path)
  }

  readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    return readdirWithFileTypes(this.#ctx, path)
  }

  readlink(path: string): Promise<string> {
    // Resolves the path only: nothing of the content shows, so a held truncation stays held.
    return readlink(this.#ctx, path)
  }

  resolvePath(base: string, path: string): string {
    return paths.resolve(base, path)
  }

  realpath(path: string): Promise<string> {
    // Resolves the path only: nothing of the content shows, so a held truncation stays held.
    return realpath(this.#ctx, path)
  }

  getAllPaths(): string[] {
    return getAllPaths(this.#ctx)
  }

  // ---------------------------------------------------------------- writes

  /**
   * Write a whole file. Truncating a non-empty file (`writeFile(f, '')`, how a shell opens
   * `> f`) is held back until the write that follows, which replaces it as one write merged
   * with what changed since this instance last read f (held-truncations.ts); reads of f apply
   * it first, and it applies by itself after `holdTruncationsMs`.
   */
  writeFile(path: string, content: FileContent, options?: WriteFileOptions): Promise<void> {
    const ctx = this.#ctx
    if (isEmptyContent(content)) return this.#truncate(path, options)
    if (ctx.held.size === 0) return writeFile(ctx, path, content, options)
    takeTruncation(ctx, path)
    return applyHeldTruncations(ctx).then(() => writeFile(ctx, path, content, options))
  }

  async #truncate(path: string, options?: WriteFileOptions): Promise<void> {
    const ctx = this.#ctx
    // Truncated again before anything was written (`: > f` twice): still one held truncation.
    if (isHeld(ctx, path)) return
    await applyHeldTruncations(ctx)
    if (holdTruncation(ctx, path)) return
    return writeFile(ctx, path, '', options)
  }

  /** Apply held truncations now (a shell command has ended: `: > f` alone empties f for everyone at once). */
  flushTruncations(): Promise<void> {
    return applyHeldTruncations(this.#ctx)
  }

  /** Run a call that looks at `path` after applying its held truncation, if any. */
  #look<T>(path: string, run: () => Promise<T>): Promise<T> {
    if (!hasTruncations(this.#ctx)) return run()
    return beforeLook(this.#ctx, path).then(run)
  }

  /** Run a change after applying every held truncation (changes keep their order). */
  #change<T>(run: () => Promise<T>): Promise<T> {
    if (this.#ctx.held.size === 0) return run()
    return applyHeldTruncations(this.#ctx).then(run)
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
  write(path: string, content: FileContent, options: WriteOptions = {}): Promise<WriteReport> {
    takeTruncation(this.#ctx, path)
    return this.#change(() => write(this.#ctx, path, content, options))
  }

  /** Encoded Yjs snapshot of a file's content doc now: a `base` for a later `write` (`{ snapshot }`). */
  contentSnapshot(path: string): Promise<Uint8Array> {
    return this.#look(path, () => contentSnapshot(this.#ctx, path))
  }

  appendFile(path: string, content: FileContent, options?: WriteFileOptions): Promise<void> {
    const ctx = this.#ctx
    if (ctx.held.size === 0) return appendFile(ctx, path, content, options)
    if (isHeld(ctx, path)) {
      // `>>` first appends nothing (the truncation stays held); an append after a held
      // truncation is the write that replaces it.
      if (isEmptyContent(content)) return Promise.resolve()
      takeTruncation(ctx, path)
      return applyHeldTruncations(ctx).then(() => writeFile(ctx, path, content, options))
    }
    return applyHeldTruncations(ctx).then(() => appendFile(ctx, path, content, options))
  }

  /** Synchronous write used by just-bash only for system paths (command stubs, /dev, /proc). */
  writeFileSync(path: string, content: FileContent): void {
    writeFileSync(this.#ctx, path, content)
  }

  mkdir(path: string, options?: MkdirOptions): Promise<void> {
    return this.#change(() => mkdir(this.#ctx, path, options))
  }

  /** Synchronous mkdir (folders have no content doc); just-bash calls it while setting up. */
  mkdirSync(path: string, options?: MkdirOptions): void {
    mkdirSync(this.#ctx, path, options)
  }

  rm(path: string, options?: RmOptions): Promise<void> {
    return this.#change(() => rm(this.#ctx, path, options))
  }

  cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    return this.#change(() => cp(this.#ctx, src, dest, options))
  }

  mv(src: string, dest: string): Promise<void> {
    return this.#change(() => mv(this.#ctx, src, dest))
  }

  chmod(path: string, mode: number): Promise<void> {
    return this.#change(() => chmod(this.#ctx, path, mode))
  }

  utimes(path: string, atime: Date, mtime: Date): Promise<void> {
    return this.#change(() => utimes(this.#ctx, path, atime, mtime))
  }

  symlink(target: string, linkPath: string): Promise<void> {
    return this.#change(() => symlink(this.#ctx, target, linkPath))
  }

  link(existingPath: string, newPath: string): Promise<void> {
    return link(existingPath, newPath)
  }

  // --------------------------------------------------------------- history

  /**
   * Versions of a file, oldest first. Pending editor edits are recorded first,
   * so the newest version is always the current content.
   */
  history(path: string): Promise<FileVersion[]> {
    return this.#look(path, () => fileHistory(this.#ctx, path))
  }

  /**
   * An explicit save (an editor's "save", the end of an agent's task): records a
   * `save` version if the file changed since its last version. Returns the newest version.
   */
  saveVersion(path: string): Promise<FileVersion> {
    return this.#change(() => saveVersion(this.#ctx, path))
  }

  /**
   * The newest recorded version of a file, without recording pending edits first (unlike
   * `history` and `saveVersion`); `undefined` when none was recorded. Throws like `history`.
   */
  latestVersion(path: string): Promise<FileVersion | undefined> {
    return this.#look(path, () => latestVersion(this.#ctx, path))
  }

  /** Text (or, for binary versions, bytes) of one version. Throws ENOENT for an unknown version id. */
  readVersionContent(path: string, versionId: string): Promise<{ text?: string; bytes?: Uint8Array }> {
    return this.#look(path, () => readVersionContent(this.#ctx, path, versionId))
  }

  /** Text of one version (binary versions come back latin1-encoded, one char per byte). */
  readVersion(path: string, versionId: string): Promise<string> {
    return this.#look(path, () => readVersion(this.#ctx, path, versionId))
  }

  /** Unified diff between two versions; `toVersion` omitted = the current content. */
  diff(path: string, fromVersion: string, toVersion?: string): Promise<string> {
    return this.#look(path, () => diffVersions(this.#ctx, path, fromVersion, toVersion))
  }

  /** Write an old version's content as a new change (history is never rewritten). Returns the new version. */
  restore(path: string, versionId: string): Promise<FileVersion> {
    return this.#change(() => restoreVersion(this.#ctx, path, versionId))
  }

  // ---------------------------------------------------------- transactions

  /**
   * Write a whole tree at once (imports, the disk daemon's ingest, checkpoint restores):
   * all or nothing, content first, every row in one main-doc transaction, events tagged
   * with the returned `transactionId`. Throws the first failing entry's FsError (with
   * `opIndex`) and changes nothing. See bulk-load.ts.
   * @example
   * await fs.writeTree([{ path: '/src/a.ts', content: 'x' }, { path: '/empty', folder: true }])
   */
  writeTree(entries: readonly BulkEntry[]): Promise<BulkLoadResult> {
    return this.#change(() => writeTree(this.#ctx, entries))
  }

  /**
   * Apply `ops` all or nothing (see transaction.ts for the exact guarantee).
   * Throws the failing op's FsError (with `opIndex`) and changes nothing.
   */
  transaction(ops: readonly FsOp[]): Promise<TransactionResult> {
    // The ops run on a staging YjsFileSystem; the transaction needs its state as well.
    return this.#change(() =>
      runTransaction(this.#ctx, ops, (options) => {
        const fs = new YjsFileSystem(options)
        return { fs, ctx: fs.#ctx }
      }),
    )
  }

  /**
   * Run `fn` as one write batch: the rows it writes reach the main doc (and so peers, through a
   * provider) together, in one transaction, when it ends (see lww-map.ts, "Held writes"); on a
   * connected filesystem, new files' content goes to the server in bulk requests, each file's
   * content before its row (write-batch.ts). Resolves once all of it is stored. Reads,
   * the index and events see each write at once, as outside a batch; a batch lasting longer than
   * 100 ms is stored in steps, so peers see a long one's progress. Batches nest and may overlap
   * (all are stored when the last ends). Nothing is undone when `fn` throws: what it wrote stays
   * written (use `transaction` for all or nothing).
   * @example
   * await fs.batch(async () => {
   *   for (let i = 0; i < 1000; i++) await fs.writeFile(`/many/f${i}.txt`, `line ${i}\n`)
   * })
   */
  async batch<T>(fn: () => T | Promise<T>): Promise<T> {
    const end = openBatch(this.#ctx)
    try {
      return await fn()
    } finally {
      await end()
    }
  }

  /**
   * Open a write batch (see `batch`) for a caller whose batch is not one function (a shell
   * command's scope); the returned function ends it and resolves once what it held is stored.
   */
  openBatch(): () => Promise<void> {
    return openBatch(this.#ctx)
  }

  /**
   * Resolve once what writes left pending is stored: new files' content sent to the server's
   * bulk store (outside a batch it goes at the end of the turn; write-batch.ts) and the rows
   * that waited for it. A client's `flush()` starts with this.
   */
  storePending(): Promise<void> {
    return storePendingContent(this.#ctx)
  }

  // ----------------------------------------------------------- checkpoints

  /** Record the tree and every file's content (as a version) under `label`. */
  checkpoint(label: string): Promise<CheckpointInfo> {
    return this.#change(() => takeCheckpoint(this.#ctx, label))
  }

  /** Checkpoints, oldest first. */
  checkpoints(): CheckpointInfo[] {
    return listCheckpoints(this.#ctx)
  }

  /** What changed from checkpoint `a` to checkpoint `b` (or to the live workspace when `b` is omitted). */
  diffCheckpoint(a: string, b?: string): Promise<CheckpointDiff> {
    return this.#change(() => diffCheckpoint(this.#ctx, a, b))
  }

  /**
   * Make the live workspace equal to a checkpoint, as ordinary new changes that
   * sync to every peer. A safety checkpoint of the current state is taken first.
   */
  restoreCheckpoint(id: string): Promise<{ safetyCheckpoint: CheckpointInfo }> {
    return this.#change(() => restoreCheckpoint(this.#ctx, id))
  }

  /** Stop observing; the docs stay usable by their owner. Activity entries still queued go in first. */
  destroy(): void {
    flushQueuedActivity(this.doc)
    this.#ctx.unsubscribe?.()
    cancelAnnounceChecks(this.#ctx)
    dropHeldTruncations(this.#ctx)
    dropDecoded(this.#ctx)
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
