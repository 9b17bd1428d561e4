/**
 * syncFolder: keep a folder on disk and a workspace (any `YjsFileSystem`)
 * equal, both ways, until closed.
 *
 * How it works:
 * - Start: scan the folder, snapshot the workspace rows, load the sync
 *   state, and apply `reconcile` (first-run and offline merge rules are
 *   documented there). A progress event is emitted as operations complete.
 * - Live, workspace → disk: row changes from peers (files-table observer,
 *   non-local transactions) mark file ids dirty; each id is compared with
 *   the state by id, so renames, moves, trash and restore become a rename,
 *   a delete or a create on disk, and content changes a download.
 * - Live, disk → workspace: the watcher marks paths dirty; after a short
 *   debounce each path is looked at on disk (not trusted from the event).
 *   Unchanged hash → nothing (this is what stops echoes of our own writes).
 *   A vanished path waits `moveWindowMs` for the same bytes to appear
 *   elsewhere (a rename or move, applied as `fs.mv`, so ids and history
 *   stay); otherwise it is deleted (to the workspace trash).
 * - Every step runs on one serial queue, and every disk write is atomic
 *   (disk-writer), so a crash leaves old or new files and a state that
 *   describes completed steps; the next start reconciles the rest.
 *
 * It deliberately does not: follow symlinks, mirror sockets/devices, or
 * keep ignored paths in step (they are left alone on both sides).
 *
 * (About 1,600 lines, far over the 400 of the style guide: the passes above
 * (reconcile, uploads, downloads, moves both ways, display-name duplicates)
 * all read and change one engine's state (the sync state, the dirty sets, the
 * pending deletes, the serial queue, the watcher), kept in one class's private
 * fields. The parts that stand alone already live beside it (disk-scan,
 * disk-writer, reconcile, sync-state, watcher, merge). It should be split the
 * way core's YjsFileSystem was: the state in one record passed to a module per
 * pass. Not done yet.)
 */
import { statSync } from 'node:fs'
import { chmod, lstat, readdir, readFile, readlink, realpath } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import {
  decodeTextOrBinary,
  type FileId,
  type FileRow,
  FS_ORIGIN,
  isFsError,
  paths,
  ROOT_ID,
  SYSTEM_ROOTS,
  type YjsFileSystem,
} from '@yfs/core'
import { hashBytes, inspect, type ScannedNode, scanDisk } from './disk-scan.js'
import {
  type BatchFile,
  makeFolder,
  moveEntry,
  removeEmptyFolder,
  removeFile,
  removeStrayTemps,
  TEMP_PREFIX,
  writeFileAtomic,
  writeFilesAtomic,
  writeSymlinkAtomic,
} from './disk-writer.js'
import { createIgnoreRules, type IgnoreRules, STATE_DIR } from './ignore-rules.js'
import { forEachLimited } from './limit.js'
import { conflictName, mergeText } from './merge.js'
import { type NodeKind, reconcile, type StateNode, type SyncOp, type WorkspaceNode } from './reconcile.js'
import {
  assertParentInside,
  invalidNameReason,
  RootGuardError,
  symlinkEscapeReason,
  toHostPath,
} from './root-guard.js'
import type { SyncAction, SyncDirection, SyncEventHandler } from './sync-events.js'
import { openSyncState, type SyncEntry, type SyncState } from './sync-state.js'
import { type FolderWatcher, watchFolder } from './watcher.js'
import { writeFromDisk } from './workspace-writer.js'

/** Text files up to this size keep their last synced text in the state (the merge base). */
const MAX_BASE_BYTES = 1024 * 1024
/** New files per `fs.writeTree` call during the initial pass. */
const BULK_CHUNK = 500
/** Operations that write files or folders to disk in bulk (the watcher waits for them on a first pass). */
const DISK_WRITING_OPS: ReadonlySet<SyncOp['type']> = new Set([
  'download',
  'delete-local',
  'move-local',
  'merge',
  'compare',
])
/** Bytes of file contents the first scan keeps for the initial upload (beyond it, files are read again). */
const KEEP_SCANNED_BYTES = 64 * 1024 * 1024

export interface SyncFolderOptions {
  /** The workspace. */
  fs: YjsFileSystem
  /** The folder (created when missing). */
  dir: string
  /** Name the sync state is pinned to (a folder syncs with one workspace only). Default `'workspace'`. */
  workspace?: string
  /** Extra ignore patterns (.gitignore syntax). */
  ignore?: readonly string[]
  /** Apply the default ignores (`.git/`, `node_modules/`). Default true. The state folder is always ignored. */
  useDefaultIgnores?: boolean
  onEvent?: SyncEventHandler
  /** Quiet time before disk events are processed (ms). Default 30. */
  debounceMs?: number
  /** How long a vanished disk path waits for its bytes to reappear as a move (ms). Default 150. */
  moveWindowMs?: number
  /** Transfers in flight during the initial pass. Default 16. */
  concurrency?: number
  /** Poll the folder instead of native events. Default false. */
  usePolling?: boolean
}

export interface FolderSync {
  /** The folder, absolute (a symlink to it resolved). */
  readonly dir: string
  /** Resolves once every change seen so far (both ways) has been applied. */
  idle(timeoutMs?: number): Promise<void>
  /** Compare everything again, as at start-up. */
  rescan(): Promise<void>
  /** Finish in-flight work, stop watching and close the state. */
  close(): Promise<void>
}

/** A state stamp no row has: the workspace side of that path is still to be written to disk. */
const UNSYNCED_STAMP = 'unsynced'
const stampOf = (row: FileRow): string => `${row.updatedAt}:${row.size}:${row.mode ?? ''}:${row.target ?? ''}`
const depth = (path: string) => path.split('/').length

function isSystemPath(path: string): boolean {
  return SYSTEM_ROOTS.includes(paths.split(path)[0] ?? '')
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0
}

async function readBytes(host: string): Promise<Uint8Array | undefined> {
  try {
    // A plain Uint8Array view: yjs stores binary only when `constructor === Uint8Array` (not Buffer).
    const buffer = await readFile(host)
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
  } catch (error) {
    // Gone (or replaced by a folder) since we looked: nothing to read.
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined
    throw error
  }
}

/** `dev:ino` of the folder `host` (through a symlink: the sync root may be one), or undefined when it is not a folder (any more). */
function rootIdentity(host: string): string | undefined {
  let st: ReturnType<typeof statSync>
  try {
    st = statSync(host, { throwIfNoEntry: false })
  } catch {
    // ENOTDIR, ELOOP, EACCES on the way: not the folder we started on.
    return undefined
  }
  return st?.isDirectory() ? `${st.dev}:${st.ino}` : undefined
}

async function exists(host: string): Promise<boolean> {
  try {
    await lstat(host)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return false
    throw error
  }
}

class SyncEngine implements FolderSync {
  readonly dir: string
  readonly #fs: YjsFileSystem
  readonly #state: SyncState
  readonly #rules: IgnoreRules
  readonly #emit: SyncEventHandler
  readonly #debounceMs: number
  readonly #moveWindowMs: number
  readonly #concurrency: number
  #realRoot = ''
  /** The folder's identity at start: a folder removed (or replaced) under the daemon stops it. */
  #rootId = ''
  #watcher: FolderWatcher | undefined
  #unobserve: (() => void) | undefined
  #unobserveEntries: (() => void) | undefined
  #chain: Promise<void> = Promise.resolve()
  #pendingTasks = 0
  #diskDirty = new Set<string>()
  #diskTimer: NodeJS.Timeout | undefined
  #wsDirty = new Set<FileId>()
  /** Dirty ids whose content is compared even when their row's stamp is the synced one (see start). */
  #wsCompare = new Set<FileId>()
  #wsTimer: NodeJS.Timeout | undefined
  #pendingDeletes = new Map<string, number>()
  #deleteTimer: NodeJS.Timeout | undefined
  #live = false
  #closed = false
  #usePolling = false
  #meta = new Map<FileId, Partial<FileRow>>()
  #metaFlush: Promise<void> | undefined
  #counts = { toWorkspace: 0, toDisk: 0 }
  /** New files the daemon is writing into the workspace (`parent id/name`) → the id of the row its write created. */
  #creating = new Map<string, FileId | undefined>()

  constructor(options: SyncFolderOptions, state: SyncState, dir: string) {
    this.dir = dir
    this.#fs = options.fs
    this.#state = state
    this.#rules = createIgnoreRules(dir, { patterns: options.ignore, useDefaults: options.useDefaultIgnores })
    const handler = options.onEvent
    this.#emit = (event) => {
      try {
        handler?.(event)
      } catch (error) {
        // A failing reporter must not stop the sync; surface it without breaking the queue.
        queueMicrotask(() => {
          throw error
        })
      }
    }
    this.#debounceMs = options.debounceMs ?? 30
    this.#moveWindowMs = options.moveWindowMs ?? 150
    this.#concurrency = options.concurrency ?? 16
  }

  // ------------------------------------------------------------ start and stop

  async start(usePolling: boolean): Promise<void> {
    this.#realRoot = await realpath(this.dir)
    this.#rootId = rootIdentity(this.dir) ?? ''
    await removeStrayTemps(this.dir, new Set([STATE_DIR, '.git', 'node_modules']))
    await this.#rules.reload('/')
    this.#unobserve = this.#fs.table.observe((changes, tr) => {
      if (tr.local) {
        if (this.#creating.size > 0)
          for (const [id, change] of changes) {
            const row = change.after
            if (change.before || !row) continue
            const key = `${row.parentId ?? ROOT_ID}/${row.name}`
            if (this.#creating.has(key)) this.#creating.set(key, id)
          }
        return
      }
      for (const id of changes.keys()) this.#wsDirty.add(id)
      this.#scheduleWs()
    })
    // A peer's file row that loses the last-writer-wins to a newer row of ours (a metadata or
    // content write of the daemon's that landed after theirs; the row is one LWW value) changes no
    // row here, so the change observer says nothing; but its content edit is in the content doc,
    // merged. Without a look at the content it never reached the disk (fast saves on both sides of
    // one file, under load). Core's reads wait for the content that entry announced. Entries are
    // reported before the table picks the winner: they are looked at once the transaction is done.
    let arrived: FileRow[] = []
    this.#unobserveEntries = this.#fs.table.observeRemoteEntries((entry) => {
      if (entry.type !== 'file') return
      if (arrived.length === 0)
        queueMicrotask(() => {
          const entries = arrived
          arrived = []
          for (const e of entries) {
            const row = this.#fs.table.get(e.id)
            if (!row || (row.updatedAt === e.updatedAt && row.size === e.size && row.sv === e.sv)) continue
            this.#wsDirty.add(e.id)
            this.#wsCompare.add(e.id)
          }
          this.#scheduleWs()
        })
      arrived.push(entry)
    })
    const started = Date.now()
    this.#usePolling = usePolling
    await this.#enqueue(() => this.#fullReconcile(true))
    // Watch only now (or, for a first pass that writes nothing to disk, from its start; see
    // #fullReconcile): a watcher running while the initial pass writes thousands of files handles
    // an event per file (and re-reads its folder), which made that pass several times slower.
    // Changes made on disk during the initial pass are found by a second compare, which runs once
    // the watcher is ready (from then on, every change is an event).
    await this.#startWatcher().ready
    await this.#enqueue(() => this.#fullReconcile(false))
    this.#live = true
    this.#emit({ type: 'ready', entries: this.#state.size, ...this.#counts, ms: Date.now() - started })
    this.#scheduleDisk()
    this.#scheduleWs()
  }

  /** Start the watcher (once); its `ready` resolves when its initial scan is done. */
  #startWatcher(): FolderWatcher {
    this.#watcher ??= watchFolder(this.dir, {
      ignored: (path, isDir) => this.#ignored(path, isDir),
      onChange: (path) => this.#diskChanged(path),
      onError: (error) => this.#emit({ type: 'error', message: String(error) }),
      usePolling: this.#usePolling,
    })
    return this.#watcher
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    await this.#watcher?.close()
    this.#unobserve?.()
    this.#unobserveEntries?.()
    clearTimeout(this.#diskTimer)
    clearTimeout(this.#wsTimer)
    clearTimeout(this.#deleteTimer)
    // Finish what was already seen: pending disk changes, remote changes and deletes.
    if (this.#diskDirty.size > 0) await this.#enqueue(() => this.#processDisk())
    if (this.#wsDirty.size > 0) await this.#enqueue(() => this.#processRemote())
    if (this.#pendingDeletes.size > 0) await this.#enqueue(() => this.#applyDeletes(true))
    await this.#chain
    await this.#metaFlush
    this.#state.close()
    this.#emit({ type: 'stopped' })
  }

  async idle(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const busy =
        this.#pendingTasks > 0 ||
        this.#diskDirty.size > 0 ||
        this.#wsDirty.size > 0 ||
        this.#pendingDeletes.size > 0 ||
        this.#meta.size > 0
      if (!busy) return
      if (Date.now() > deadline) throw new Error('sync did not become idle in time')
      await new Promise((r) => setTimeout(r, 10))
    }
  }

  rescan(): Promise<void> {
    return this.#enqueue(() => this.#fullReconcile(false))
  }

  // ------------------------------------------------------------ queue and scheduling

  #enqueue(task: () => Promise<void>): Promise<void> {
    this.#pendingTasks++
    const run = this.#chain.then(task).catch((error: unknown) => this.#report(error))
    this.#chain = run.finally(() => {
      this.#pendingTasks--
    })
    return this.#chain
  }

  #report(error: unknown, path?: string): void {
    if (error instanceof RootGuardError) {
      this.#emit({ type: 'skip', path: error.path, code: 'EACCES', reason: error.reason })
      return
    }
    const message = isFsError(error) ? error.message : error instanceof Error ? error.message : String(error)
    this.#emit({ type: 'error', ...(path ? { path } : {}), message })
  }

  #ignored(path: string, isDir: boolean | undefined): boolean {
    // A hostile name ('..', 'a\\b') is not "ignored": it goes on to the root guard, which refuses and reports it.
    if (path.split('/').some((part, i) => i > 0 && invalidNameReason(part) !== undefined)) return false
    if (paths.basename(path).startsWith(TEMP_PREFIX)) return true
    if (path === `/${STATE_DIR}` || path.startsWith(`/${STATE_DIR}/`)) return true
    if (isDir === undefined) return this.#rules.ignores(path, false) && this.#rules.ignores(path, true)
    return this.#rules.ignores(path, isDir)
  }

  #diskChanged(path: string): void {
    if (this.#closed || path === '/') return
    this.#diskDirty.add(path)
    if (this.#live) this.#scheduleDisk()
  }

  #scheduleDisk(): void {
    if (this.#diskTimer || this.#closed || this.#diskDirty.size === 0) return
    this.#diskTimer = setTimeout(() => {
      this.#diskTimer = undefined
      void this.#enqueue(() => this.#processDisk())
    }, this.#debounceMs)
  }

  #scheduleWs(): void {
    if (this.#wsTimer || this.#closed || !this.#live || this.#wsDirty.size === 0) return
    this.#wsTimer = setTimeout(() => {
      this.#wsTimer = undefined
      void this.#enqueue(() => this.#processRemote())
    }, 5)
  }

  #scheduleDeletes(): void {
    if (this.#deleteTimer || this.#closed || this.#pendingDeletes.size === 0) return
    this.#deleteTimer = setTimeout(() => {
      this.#deleteTimer = undefined
      void this.#enqueue(() => this.#applyDeletes(false))
    }, this.#moveWindowMs)
  }

  // ------------------------------------------------------------ helpers

  /**
   * True (and the sync stopping) when the folder itself was removed or replaced: its files
   * vanishing then says nothing about the workspace, so nothing is deleted there.
   */
  #rootLost(): boolean {
    if (rootIdentity(this.dir) === this.#rootId) return false
    if (!this.#closed) {
      this.#diskDirty.clear()
      this.#pendingDeletes.clear()
      this.#wsDirty.clear()
      this.#wsCompare.clear()
      this.#emit({
        type: 'error',
        message: `the folder ${this.dir} was removed or replaced: sync stopped, nothing deleted in the workspace`,
      })
      void this.close()
    }
    return true
  }

  #host(path: string): string {
    return toHostPath(this.dir, path)
  }

  async #guardedHost(path: string): Promise<string> {
    const host = this.#host(path)
    await assertParentInside(this.#realRoot, host, path)
    return host
  }

  #change(
    direction: SyncDirection,
    action: SyncAction,
    path: string,
    extra: { from?: string; kind?: string } = {},
  ) {
    if (direction === 'to-workspace') this.#counts.toWorkspace++
    else this.#counts.toDisk++
    this.#emit({ type: 'change', direction, action, path, ...extra })
  }

  /** The workspace node at `path`, without following a symlink in the last component. */
  #wsRow(path: string): FileRow | undefined {
    const id = this.#fs.index.lookup(path)
    return id === undefined ? undefined : this.#fs.table.get(id)
  }

  #workspaceSnapshot(): Map<string, WorkspaceNode> {
    const out = new Map<string, WorkspaceNode>()
    for (const row of this.#fs.table.rows()) {
      if (row.trashedAt !== null) continue
      const path = this.#fs.index.pathOf(row.id)
      if (path === undefined || path === '/' || isSystemPath(path)) continue
      if (this.#ignored(path, row.type === 'folder')) continue
      out.set(path, { kind: row.type, id: row.id, stamp: stampOf(row) })
    }
    return out
  }

  #stateSnapshot(): Map<string, StateNode> {
    const out = new Map<string, StateNode>()
    for (const e of this.#state.entries()) out.set(e.path, e)
    return out
  }

  /** Set row metadata (mtime, mode) for many files in one main-doc transaction. */
  #setMeta(id: FileId, patch: Partial<FileRow>): Promise<void> {
    this.#meta.set(id, { ...this.#meta.get(id), ...patch })
    this.#metaFlush ??= new Promise((resolveFlush) =>
      setTimeout(() => {
        const batch = this.#meta
        this.#meta = new Map()
        this.#metaFlush = undefined
        this.#fs.table.batch(() => {
          for (const [rowId, p] of batch)
            if (this.#fs.table.get(rowId)) this.#fs.table.update(rowId, p, FS_ORIGIN)
        }, FS_ORIGIN)
        resolveFlush()
      }, 0),
    )
    return this.#metaFlush
  }

  /** Create the workspace parent folders of `path` when missing. */
  async #ensureWsParent(path: string): Promise<void> {
    const parent = paths.dirname(path)
    if (parent === '/' || this.#fs.index.lookup(parent) !== undefined) return
    await this.#fs.mkdir(parent, { recursive: true })
  }

  #putFolder(path: string, mode = 0o755): void {
    const row = this.#wsRow(path)
    if (!row) return
    this.#state.put({
      path,
      kind: 'folder',
      id: row.id,
      hash: '',
      size: 0,
      mtimeMs: 0,
      mode,
      stamp: stampOf(row),
    })
  }

  /**
   * Record a synced file; `stamp` is the row stamp the written state came
   * from (default: the row now). `known` saves hashing and decoding again
   * when the caller has the bytes' hash and text (`text` undefined: binary).
   */
  #putFile(
    path: string,
    bytes: Uint8Array,
    mtimeMs: number,
    mode: number,
    stamp?: string,
    known?: { hash: string; text: string | undefined },
    row = this.#wsRow(path),
  ): void {
    if (!row) return
    const text =
      bytes.byteLength > MAX_BASE_BYTES ? undefined : known ? known.text : decodeTextOrBinary(bytes)
    const before = this.#state.pathOfId(row.id)
    if (before !== undefined && before !== path) this.#dropStaleCopy(before, row.id)
    this.#state.put({
      path,
      kind: 'file',
      id: row.id,
      hash: known?.hash ?? hashBytes(bytes),
      size: bytes.byteLength,
      mtimeMs,
      mode,
      stamp: stamp ?? stampOf(row),
      ...(text === undefined ? {} : { base: text }),
    })
  }

  /**
   * The file synced at `path` is recorded at another path now (a peer moved it onto a path where
   * the disk had a new file, which was merged into it): the disk file left at `path` goes, as a
   * move would have taken it, unless it was edited since (then it is uploaded as a new file).
   */
  #dropStaleCopy(path: string, id: string): void {
    void this.#enqueue(async () => {
      if (this.#state.get(path)?.id === id && this.#state.pathOfId(id) !== path) await this.#deleteLocal(path)
    })
  }

  #putSymlink(path: string, target: string, mtimeMs: number): void {
    const row = this.#wsRow(path)
    if (!row) return
    this.#state.put({
      path,
      kind: 'symlink',
      id: row.id,
      hash: `link:${target}`,
      size: Buffer.byteLength(target),
      mtimeMs,
      mode: 0o777,
      stamp: stampOf(row),
    })
  }

  /** The synced hash of a file whose size and mtime are still what was synced (scans skip reading it). */
  #knownHash(path: string, size: number, mtimeMs: number): string | undefined {
    const e = this.#state.get(path)
    return e && e.kind === 'file' && e.size === size && e.mtimeMs === mtimeMs ? e.hash : undefined
  }

  // ------------------------------------------------------------ full reconcile

  async #fullReconcile(initial: boolean): Promise<void> {
    await this.#rules.reload('/')
    for (let round = 0; round < 5; round++) {
      const scan = await scanDisk(this.dir, {
        rules: { ...this.#rules, ignores: (p, d) => this.#ignored(p, d) },
        maxFileSize: this.#fs.limits.maxFileSize,
        // The first pass keeps what it hashed, so new files are uploaded without a second read.
        keepBytes: initial && round === 0 ? KEEP_SCANNED_BYTES : 0,
        knownHash: (path, size, mtimeMs) => this.#knownHash(path, size, mtimeMs),
      })
      for (const [path] of scan.nodes)
        if (isSystemPath(path)) {
          scan.nodes.delete(path)
          if (round === 0 && depth(path) === 2)
            this.#emit({
              type: 'skip',
              path,
              code: 'EINVAL',
              reason: 'reserved top-level name in a workspace',
            })
        }
      if (round === 0) for (const s of scan.skipped) this.#emit({ type: 'skip', ...s })
      // A refused path (over the size limit, a symlink leading out, unreadable) is there on disk,
      // not deleted: it, and what is below it, is left alone on both sides instead of looking like a delete.
      const workspace = this.#workspaceSnapshot()
      const state = this.#stateSnapshot()
      if (scan.skipped.length > 0) {
        const refused = new Set(scan.skipped.map((s) => s.path))
        const isRefused = (p: string) => {
          if (refused.has(p) && !scan.nodes.has(p)) return true
          for (let up = paths.dirname(p); up !== '/'; up = paths.dirname(up)) if (refused.has(up)) return true
          return false
        }
        for (const p of workspace.keys()) if (isRefused(p)) workspace.delete(p)
        for (const p of state.keys()) if (isRefused(p)) state.delete(p)
      }
      const ops = reconcile({ disk: scan.nodes, workspace, state })
      if (ops.length === 0) return
      // A first pass that writes nothing to disk (an ingest) lets the watcher do its initial scan
      // meanwhile, while this pass waits for the server; what it reports is compared again anyway.
      if (initial && round === 0 && !ops.some((op) => DISK_WRITING_OPS.has(op.type)))
        void this.#startWatcher()
      await this.#execute(ops, scan.nodes, initial && round === 0, scan.bytes)
      // Moves and replaced kinds come alone: compare again once they are applied.
      if (!ops.every((op) => op.type.startsWith('move-') || op.type === 'delete-remote')) return
    }
  }

  async #execute(
    ops: SyncOp[],
    disk: Map<string, ScannedNode>,
    progress: boolean,
    scanned: Map<string, Uint8Array>,
  ): Promise<void> {
    const total = ops.length
    let done = 0
    let lastReport = 0
    const tick = () => {
      done++
      const now = Date.now()
      if (progress && (now - lastReport > 100 || done === total)) {
        lastReport = now
        this.#emit({ type: 'progress', phase: 'initial', done, total })
      }
    }
    const runOne = async (op: SyncOp) => {
      try {
        await this.#runOp(op, disk)
      } catch (error) {
        this.#report(error, op.path)
      }
      tick()
    }
    const transfers = ops.filter(
      (op) => op.type !== 'delete-local' && op.type !== 'delete-remote' && op.type !== 'forget',
    )
    const sequential = transfers.filter(
      (op) =>
        op.type.startsWith('move-') ||
        disk.get(op.path)?.kind === 'folder' ||
        this.#wsRow(op.path)?.type === 'folder',
    )
    const sequentialSet = new Set<SyncOp>(sequential)
    const transferSet = new Set<SyncOp>(transfers)
    for (const op of sequential) await runOne(op)
    // New files for an empty path in the workspace go in bulk (core's writeTree: one round trip per chunk).
    const bulk = transfers.filter(
      (op) =>
        op.type === 'upload' &&
        op.kind === 'file' &&
        op.restoreId === undefined &&
        !this.#state.get(op.path) &&
        this.#fs.index.lookup(op.path) === undefined &&
        disk.get(op.path)?.kind === 'file',
    )
    const bulkSet = new Set<SyncOp>(bulk)
    const leftover: SyncOp[] = []
    for (let i = 0; i < bulk.length; i += BULK_CHUNK) {
      const chunk = bulk.slice(i, i + BULK_CHUNK)
      const loaded = await this.#bulkUpload(
        chunk.map((op) => op.path),
        disk,
        scanned,
      )
      for (const op of chunk) {
        if (loaded.has(op.path)) tick()
        else leftover.push(op)
      }
    }
    // New files for an empty path on disk go in batches too (fetched per folder, fsynced together).
    const downloads = transfers.filter(
      (op) =>
        op.type === 'download' &&
        !sequentialSet.has(op) &&
        !disk.has(op.path) &&
        !this.#state.get(op.path) &&
        this.#wsRow(op.path)?.type === 'file',
    )
    for (const op of downloads) bulkSet.add(op)
    const downloadChunks: SyncOp[][] = []
    for (let i = 0; i < downloads.length; i += BULK_CHUNK)
      downloadChunks.push(downloads.slice(i, i + BULK_CHUNK))
    // Two chunks in flight: one's contents come from the server while the other's files are written and flushed.
    await forEachLimited(downloadChunks, 2, async (chunk) => {
      const written = await this.#bulkDownload(chunk.map((op) => op.path))
      for (const op of chunk) {
        if (written.has(op.path)) tick()
        else leftover.push(op)
      }
    })
    const parallel = [...leftover, ...transfers.filter((op) => !sequentialSet.has(op) && !bulkSet.has(op))]
    await forEachLimited(parallel, this.#concurrency, runOne)
    for (const op of ops.filter((o) => !transferSet.has(o))) await runOne(op)
    await this.#metaFlush
  }

  /**
   * Upload new files with one `fs.writeTree` (all or nothing), each with its
   * disk mtime and mode in the same row transaction; returns the paths
   * loaded. Bytes the scan kept are used as they are (they match the hash
   * the state will record; a file changed since is seen by the next
   * compare); others are read again and must still match the scanned hash.
   * On any failure nothing was written and the caller uploads them one by
   * one (which reports the failing file on its own).
   */
  async #bulkUpload(
    list: string[],
    disk: Map<string, ScannedNode>,
    scanned: Map<string, Uint8Array>,
  ): Promise<Set<string>> {
    const files: { path: string; bytes: Uint8Array; node: ScannedNode; text: string | undefined }[] = []
    await forEachLimited(list, 32, async (path) => {
      const node = disk.get(path)
      if (!node) return
      const bytes = scanned.get(path) ?? (await readBytes(this.#host(path)).catch(() => undefined))
      if (!bytes || (!scanned.has(path) && hashBytes(bytes) !== node.hash)) return
      files.push({ path, bytes, node, text: decodeTextOrBinary(bytes) })
    })
    if (files.length === 0) return new Set()
    try {
      await this.#fs.writeTree(
        files.map((f) => ({
          path: f.path,
          content: f.text ?? f.bytes,
          mtime: Math.round(f.node.mtimeMs),
          ...(f.node.mode !== 0o644 ? { mode: f.node.mode } : {}),
        })),
      )
    } catch (error) {
      // All or nothing: nothing was written; the files go through the one-by-one path.
      if (!isFsError(error)) throw error
      return new Set()
    }
    this.#state.batch(() => {
      for (const f of files)
        this.#putFile(f.path, f.bytes, f.node.mtimeMs, f.node.mode, undefined, {
          hash: f.node.hash,
          text: f.text,
        })
    })
    for (const f of files) this.#change('to-workspace', 'create', f.path)
    return new Set(files.map((f) => f.path))
  }

  /**
   * Write workspace files to paths that are empty on disk, as one batch:
   * contents fetched concurrently (core loads a folder's docs per round
   * trip), each parent folder checked against the root once, the files
   * written with `writeFilesAtomic` (temps, fsyncs together, renames; a
   * path that got a file meanwhile is left alone), their state rows in one
   * SQLite transaction. Returns the paths written; the caller takes the
   * others one by one (which reports why they fail).
   */
  async #bulkDownload(list: string[]): Promise<Set<string>> {
    const items: { path: string; host: string; bytes: Uint8Array; mode: number; stamp: string }[] = []
    const files: BatchFile[] = []
    await forEachLimited(list, 64, async (path) => {
      const row = this.#wsRow(path)
      if (row?.type !== 'file') return
      // The stamp of the row we act on: a change arriving while we write is seen as a change afterwards.
      const stamp = stampOf(row)
      let host: string
      try {
        host = this.#host(path)
      } catch {
        // A name the root guard refuses: the one-by-one path reports it.
        return
      }
      const bytes = await this.#fs.readFileBuffer(path).then(
        (b) => new Uint8Array(b),
        () => undefined,
      )
      if (!bytes) return
      const mode = (row.mode ?? 0o644) & 0o777
      items.push({ path, host, bytes, mode, stamp })
      files.push({ host, bytes, mode, mtimeMs: row.updatedAt })
    })
    // Each parent folder once: inside the root (no symlink leading out), and created.
    const parents = new Map<string, Promise<boolean>>()
    const parentOk = (item: (typeof items)[number]) => {
      const parent = dirname(item.host)
      let ok = parents.get(parent)
      if (!ok) {
        ok = assertParentInside(this.#realRoot, item.host, item.path)
          .then(() => makeFolder(parent))
          .then(
            () => true,
            () => false,
          )
        parents.set(parent, ok)
      }
      return ok
    }
    const allowed = await Promise.all(items.map(parentOk))
    const chosen = items.filter((_, k) => allowed[k])
    const outcomes = await writeFilesAtomic(
      files.filter((_, k) => allowed[k]),
      { replace: false, concurrency: this.#concurrency },
    )
    const written = new Set<string>()
    this.#state.batch(() => {
      chosen.forEach((item, k) => {
        const outcome = outcomes[k]!
        if (!outcome.ok) return
        this.#putFile(item.path, item.bytes, outcome.mtimeMs, item.mode, item.stamp)
        written.add(item.path)
      })
    })
    for (const item of chosen) if (written.has(item.path)) this.#change('to-disk', 'create', item.path)
    return written
  }

  async #runOp(op: SyncOp, disk: Map<string, ScannedNode>): Promise<void> {
    switch (op.type) {
      case 'upload':
        return this.#upload(op.path, disk.get(op.path), op.restoreId)
      case 'download':
        return this.#download(op.path)
      case 'compare':
      case 'merge':
        return this.#mergeBoth(op.path, op.type === 'merge' ? this.#state.get(op.path)?.base : '')
      case 'record': {
        const d = disk.get(op.path)
        if (d?.kind === 'folder') this.#putFolder(op.path, d.mode)
        return
      }
      case 'delete-remote':
        return this.#deleteRemote(op.path)
      case 'delete-local':
        return this.#deleteLocal(op.path)
      case 'move-local': {
        await moveEntry(await this.#guardedHost(op.from), await this.#guardedHost(op.path))
        this.#state.move(op.from, op.path)
        this.#restamp(op.path)
        this.#change('to-disk', 'move', op.path, { from: op.from })
        return
      }
      case 'move-remote': {
        if (await this.#moveRemote(op.from, op.path)) return
        // The workspace lost the source meanwhile: what is on disk at the new path is new.
        const node = disk.get(op.path)
        if (node?.kind !== 'folder') return this.#upload(op.path, node)
        await this.#fs.mkdir(op.path, { recursive: true })
        this.#putFolder(op.path, node.mode)
        return
      }
      case 'forget':
        this.#state.delete(op.path)
        return
      case 'kind-conflict':
        this.#emit({
          type: 'skip',
          path: op.path,
          code: 'EEXIST',
          reason: 'a file on one side and a folder on the other: resolve by renaming one',
        })
        return
    }
  }

  #restamp(path: string): void {
    const e = this.#state.get(path)
    const row = this.#wsRow(path)
    if (e && row) this.#state.put({ ...e, id: row.id, stamp: stampOf(row) })
  }

  // ------------------------------------------------------------ disk → workspace

  async #upload(path: string, node: ScannedNode | undefined, restoreId?: string): Promise<void> {
    const host = this.#host(path)
    const st = await lstat(host).catch(() => undefined)
    if (!st) return
    if (st.isDirectory()) {
      await this.#fs.mkdir(path, { recursive: true })
      this.#putFolder(path, st.mode & 0o777)
      this.#change('to-workspace', 'mkdir', path)
      return
    }
    await this.#ensureWsParent(path)
    if (restoreId) await this.#restoreFromTrash(restoreId as FileId, path)
    if (st.isSymbolicLink()) {
      const t = node?.kind === 'symlink' ? node.hash.slice('link:'.length) : await readlink(host)
      const reason = symlinkEscapeReason(this.dir, host, t)
      if (reason) throw new RootGuardError(path, reason)
      const existing = this.#wsRow(path)
      if (existing) await this.#fs.rm(path, { recursive: existing.type === 'folder' })
      await this.#fs.symlink(t, path)
      this.#putSymlink(path, t, st.mtimeMs)
      this.#change('to-workspace', existing ? 'update' : 'create', path, { kind: 'symlink' })
      return
    }
    const bytes = await readBytes(host)
    if (!bytes) return
    if (bytes.byteLength > this.#fs.limits.maxFileSize) {
      this.#emit({ type: 'skip', path, code: 'EFBIG', reason: 'file larger than the workspace limit' })
      return
    }
    const entry = this.#state.get(path)
    const before = this.#wsRow(path)
    if (!entry && before?.type === 'file') return this.#mergeBoth(path, '')
    if (before && before.type !== 'file') {
      this.#emit({
        type: 'skip',
        path,
        code: 'EEXIST',
        reason: 'a folder or symlink in the workspace has this path',
      })
      return
    }
    if (
      !restoreId &&
      entry?.kind === 'file' &&
      entry.base === undefined &&
      before &&
      stampOf(before) !== entry.stamp
    )
      // No merge base (binary, or text over MAX_BASE_BYTES) and the workspace changed since the
      // last sync: writing the disk bytes would silently drop that change, so both are kept.
      return this.#mergeBoth(path, undefined)
    // A new file: note the row the write creates. A peer that had not seen it yet can create a
    // file of the same name meanwhile; both rows stay, and core shows the later-created one as
    // `f (1).txt`, which may be ours (see #followDisplayName).
    const key = before ? undefined : this.#creationKey(path)
    if (key) this.#creating.set(key, undefined)
    let result: Awaited<ReturnType<typeof writeFromDisk>>
    let mine: FileId | undefined
    try {
      result = await writeFromDisk(this.#fs, path, { bytes, base: entry?.base })
    } finally {
      if (key) {
        mine = this.#creating.get(key)
        this.#creating.delete(key)
      }
    }
    const row = mine !== undefined ? this.#fs.table.get(mine) : this.#wsRow(path)
    if (!row) return
    const mode = st.mode & 0o777
    await this.#setMeta(row.id, {
      updatedAt: Math.round(st.mtimeMs),
      ...((row.mode ?? 0o644) !== mode ? { mode } : {}),
    })
    if (mine !== undefined && this.#fs.index.pathOf(mine) !== path) {
      // Ours is shown under another name already: recorded where the disk has it, the remote pass
      // moves it to that name (and the other file is written here).
      this.#putFile(path, bytes, st.mtimeMs, mode, stampOf(row), undefined, row)
      this.#wsDirty.add(mine)
      this.#scheduleWs()
      this.#change('to-workspace', 'create', path)
      return
    }
    // A merge is written back to disk (unless an editor saved meanwhile: then that save is next).
    if (!result.merged) await this.#putFileSynced(path, result.bytes, st.mtimeMs, mode)
    else if (await this.#writeIfUnchanged(path, host, bytes, result.bytes, mode))
      await this.#putFileSynced(path, result.bytes, (await lstat(host)).mtimeMs, mode)
    this.#change(
      'to-workspace',
      result.conflict ? 'conflict' : result.merged ? 'merge' : before ? 'update' : 'create',
      path,
    )
  }

  /** The key of a new file at `path` in #creating: its parent folder's id and its name. */
  #creationKey(path: string): string | undefined {
    const parent = this.#fs.index.lookup(paths.dirname(path))
    return parent === undefined ? undefined : `${parent}/${paths.basename(path)}`
  }

  /** An edit beats a delete: bring the trashed file back (same id and history) before writing. */
  async #restoreFromTrash(id: FileId, path: string): Promise<void> {
    const row = this.#fs.table.get(id)
    if (!row || row.trashedAt === null || this.#wsRow(path)) return
    const restored = this.#fs.trash.restore(id)
    if (restored !== path && !this.#wsRow(path)) await this.#fs.mv(restored, path)
  }

  /**
   * A move on disk, made in the workspace. False (nothing done, `from` forgotten) when the
   * workspace no longer has the file or folder synced at `from`: a peer moved, deleted or replaced
   * it meanwhile. The caller then takes `to` as new on disk (both kept), and the peer's change
   * reaches the disk on its own; moving anyway failed, and left `to` untracked on disk for good.
   * The synced row still there under its own name, only shown as `f (1).txt` (a namesake took
   * `from`), is moved from where it is shown.
   */
  async #moveRemote(from: string, to: string): Promise<boolean> {
    const synced = this.#state.get(from)
    let source = from
    let row = this.#wsRow(from)
    if (synced !== undefined && row?.id !== synced.id) {
      // A namesake created on the other side took `from` (core shows the later-created file of two
      // as `f (1).txt`) before the daemon's move of the disk file followed: the synced row still
      // has the name it had, only shown suffixed, and the disk's move is its move. (A row a peer
      // renamed or moved is not taken: see the doc comment.)
      const own = this.#fs.table.get(synced.id as FileId)
      const shown = own && own.trashedAt === null ? this.#fs.index.pathOf(own.id) : undefined
      if (
        own &&
        shown !== undefined &&
        own.name === paths.basename(from) &&
        paths.dirname(shown) === paths.dirname(from) &&
        this.#fs.index.lookup(paths.dirname(from)) === (own.parentId ?? ROOT_ID)
      ) {
        source = shown
        row = own
      }
    }
    if (!row || (synced !== undefined && synced.id !== row.id)) {
      for (const e of this.#syncedUnder(from)) this.#state.delete(e.path)
      return false
    }
    // A peer's change of the row not written to disk yet must not be taken as synced by the restamp.
    const clean = row.type === 'folder' || synced?.stamp === stampOf(row)
    await this.#ensureWsParent(to)
    await this.#fs.mv(source, to)
    this.#state.move(from, to)
    this.#heirOf(from, row.id)
    if (clean) this.#restamp(to)
    else {
      this.#wsDirty.add(row.id)
      this.#scheduleWs()
    }
    this.#change('to-workspace', 'move', to, { from })
    return true
  }

  /** State entries of `path` and everything below it. */
  #syncedUnder(path: string): SyncEntry[] {
    return [...this.#state.entries()].filter((e) => paths.isSameOrDescendant(path, e.path))
  }

  /** The disk no longer has `path` (and everything below it): delete what we synced there from the workspace. */
  async #deleteRemote(path: string): Promise<void> {
    const entries = this.#syncedUnder(path).sort((a, b) => depth(b.path) - depth(a.path))
    let deleted = false
    for (const e of entries) {
      const row = this.#wsRow(e.path)
      // Only what we synced: a different file created there meanwhile stays.
      if (row && row.id === e.id) {
        if (row.type === 'folder') {
          // Entries the mirror does not know (ignored here, or new) keep the folder alive.
          if ((await this.#fs.readdir(e.path)).length === 0) await this.#fs.rm(e.path, { recursive: true })
        } else await this.#fs.rm(e.path)
        deleted = true
      }
      this.#state.delete(e.path)
      this.#heirOf(e.path, e.id as FileId)
    }
    if (deleted) this.#change('to-workspace', 'delete', path)
  }

  // ------------------------------------------------------------ workspace → disk

  async #download(path: string): Promise<void> {
    const row = this.#wsRow(path)
    if (!row) return
    // The stamp of the row we act on: a change arriving while we write is seen as a change afterwards.
    const stamp = stampOf(row)
    const host = await this.#guardedHost(path)
    if (row.type === 'folder') {
      const st = await lstat(host).catch(() => undefined)
      if (st && !st.isDirectory()) {
        this.#emit({
          type: 'skip',
          path,
          code: 'EEXIST',
          reason: 'a file on disk has the path of a workspace folder',
        })
        return
      }
      if (!st) await makeFolder(host)
      this.#putFolder(path)
      if (!st) this.#change('to-disk', 'mkdir', path)
      return
    }
    if (row.type === 'symlink') {
      const target = row.target ?? ''
      const reason = symlinkEscapeReason(this.dir, host, target)
      if (reason) throw new RootGuardError(path, reason)
      const st = await lstat(host).catch(() => undefined)
      if (st?.isDirectory()) {
        this.#emit({
          type: 'skip',
          path,
          code: 'EEXIST',
          reason: 'a folder on disk has the path of a workspace symlink',
        })
        return
      }
      await writeSymlinkAtomic(host, target)
      this.#putSymlink(path, target, (await lstat(host)).mtimeMs)
      this.#change('to-disk', st ? 'update' : 'create', path, { kind: 'symlink' })
      return
    }
    const bytes = new Uint8Array(await this.#fs.readFileBuffer(path))
    const entry = this.#state.get(path)
    const current = await inspect(this.dir, host, path, {
      rules: this.#rules,
      maxFileSize: this.#fs.limits.maxFileSize,
    })
    if (current.skipped) {
      // The disk file is over the limit (or a link leading out): neither merged nor overwritten.
      this.#emit({ type: 'skip', ...current.skipped })
      return
    }
    if (current.node && current.node.kind !== 'file') {
      this.#emit({ type: 'skip', path, code: 'EEXIST', reason: 'a folder or symlink on disk has this path' })
      return
    }
    if (current.node && current.node.hash !== (entry?.hash ?? '') && current.node.hash !== hashBytes(bytes)) {
      // The disk file changed too (and was not synced yet): merge instead of overwriting it.
      return this.#mergeBoth(path, entry?.base ?? '')
    }
    const mode = (row.mode ?? 0o644) & 0o777
    if (current.node && current.node.hash === hashBytes(bytes)) {
      // Same bytes: only the mode may have changed (a chmod arrives as its own row update).
      if ((current.node.mode & 0o111) !== (mode & 0o111)) {
        await chmod(host, mode)
        this.#putFile(path, bytes, (await lstat(host)).mtimeMs, mode, stamp)
        this.#change('to-disk', 'mode', path)
        return
      }
      this.#putFile(path, bytes, current.node.mtimeMs, current.node.mode, stamp)
      return
    }
    // Only over what was inspected: an editor's save landing while the file was written (the fsync
    // takes a while) is merged on the next pass instead of replaced.
    const seen = current.node
    const unchanged = (now: Uint8Array | undefined) =>
      now === undefined ? seen === undefined : seen !== undefined && hashBytes(now) === seen.hash
    if (!(await writeFileAtomic(host, bytes, { mode, mtimeMs: row.updatedAt, unchanged }))) {
      this.#diskChanged(path)
      return
    }
    this.#putFile(path, bytes, (await lstat(host)).mtimeMs, mode, stamp)
    this.#change('to-disk', current.node ? 'update' : 'create', path)
  }

  async #deleteLocal(path: string): Promise<void> {
    const e = this.#state.get(path)
    const host = this.#host(path)
    const st = await lstat(host).catch(() => undefined)
    if (st?.isDirectory()) {
      if (await removeEmptyFolder(host)) this.#change('to-disk', 'delete', path)
    } else if (st && e) {
      // Only delete what we last synced: a file edited since is kept (and uploaded again).
      const now = await inspect(this.dir, host, path, {
        rules: this.#rules,
        maxFileSize: Number.POSITIVE_INFINITY,
      })
      if (now.node?.hash === e.hash) {
        await removeFile(host)
        this.#change('to-disk', 'delete', path)
      } else {
        this.#state.delete(path)
        this.#diskChanged(path)
        return
      }
    }
    this.#state.delete(path)
  }

  /**
   * Record `bytes` as synced after a write that took several awaits: the state's workspace stamp
   * is the row's now, which is only right if the workspace still holds `bytes`. A peer's change
   * that arrived meanwhile would otherwise be taken as synced and never reach the disk (the two
   * sides then stayed different); its stamp is left unmatched, so the remote pass writes it out.
   */
  async #putFileSynced(path: string, bytes: Uint8Array, mtimeMs: number, mode: number): Promise<void> {
    const now = await this.#fs.readFileBuffer(path).then(
      (b) => new Uint8Array(b),
      () => undefined,
    )
    const synced = now !== undefined && sameBytes(now, bytes)
    this.#putFile(path, bytes, mtimeMs, mode, synced ? undefined : UNSYNCED_STAMP)
    const row = synced ? undefined : this.#wsRow(path)
    if (row) {
      this.#wsDirty.add(row.id)
      this.#scheduleWs()
    }
  }

  /**
   * Write a merge's result over the disk file the merge read (`read`), unless the file changed
   * since: an editor's save landing while the daemon merged (the workspace write and the
   * metadata flush take a while) would be replaced by a result that does not hold it. Then
   * nothing is written; the state takes `read` as the base (the workspace holds it merged, the
   * new save was made on it) and the path is looked at again, so the next pass merges the new
   * save into the workspace. The check runs right before the rename (writeFileAtomic's
   * `unchanged`): a save landing between the two is still lost, a window of one file read
   * instead of the whole merge. True when written.
   */
  async #writeIfUnchanged(
    path: string,
    host: string,
    read: Uint8Array,
    bytes: Uint8Array,
    mode: number,
  ): Promise<boolean> {
    const unchanged = (now: Uint8Array | undefined) => now !== undefined && sameBytes(now, read)
    if (await writeFileAtomic(host, bytes, { mode, unchanged })) return true
    const st = await lstat(host).catch(() => undefined)
    this.#putFile(path, read, st?.mtimeMs ?? 0, mode)
    this.#diskChanged(path)
    return false
  }

  /**
   * Both sides have content at `path` that differs: text is merged
   * three-way against `base` ('' on a first run); binary keeps the
   * workspace version at `path` and the disk version beside it as
   * `name (conflict).ext`, on both sides.
   */
  async #mergeBoth(path: string, base: string | undefined): Promise<void> {
    const host = await this.#guardedHost(path)
    const diskBytes = await readBytes(host)
    const row = this.#wsRow(path)
    if (!diskBytes && row?.type === 'file' && this.#state.get(path)?.id !== row.id) {
      // The disk file went since the caller looked (an editor renamed or deleted it: an event of
      // its own). The workspace file, not synced here yet, still has to reach the disk: its row is
      // compared again by the next remote pass (returning here lost it for good: nothing marks it).
      this.#wsDirty.add(row.id)
      this.#scheduleWs()
      return
    }
    if (!diskBytes || !row || row.type !== 'file') return
    const wsBytes = new Uint8Array(await this.#fs.readFileBuffer(path))
    const st = await lstat(host)
    const mode = st.mode & 0o777
    if (sameBytes(diskBytes, wsBytes)) {
      this.#putFile(path, diskBytes, st.mtimeMs, mode)
      return
    }
    const diskText = decodeTextOrBinary(diskBytes)
    const wsText = decodeTextOrBinary(wsBytes)
    if (diskText !== undefined && wsText !== undefined && base !== undefined) {
      const merged = mergeText(base, diskText, wsText)
      // Base = what we just read: an edit arriving meanwhile is merged in by core, not lost.
      if (merged.text !== wsText) await this.#fs.write(path, merged.text, { base: { text: wsText } })
      const bytes = new Uint8Array(await this.#fs.readFileBuffer(path))
      if (sameBytes(bytes, diskBytes) || (await this.#writeIfUnchanged(path, host, diskBytes, bytes, mode)))
        await this.#putFileSynced(path, bytes, (await lstat(host)).mtimeMs, mode)
      this.#change('to-workspace', merged.conflict ? 'conflict' : 'merge', path)
      return
    }
    // Binary (or no base): both kept.
    const taken = (p: string) => this.#fs.index.lookup(p) !== undefined || this.#state.get(p) !== undefined
    const copy = conflictName(path, taken)
    const copyHost = await this.#guardedHost(copy)
    await moveEntry(host, copyHost)
    await this.#fs.writeFile(copy, diskBytes)
    this.#putFile(copy, diskBytes, st.mtimeMs, mode)
    await writeFileAtomic(host, wsBytes, { mode: (row.mode ?? 0o644) & 0o777, mtimeMs: row.updatedAt })
    this.#putFile(path, wsBytes, (await lstat(host)).mtimeMs, (row.mode ?? 0o644) & 0o777)
    this.#change('to-workspace', 'conflict', copy, { from: path })
  }

  // ------------------------------------------------------------ live: workspace changes

  async #processRemote(): Promise<void> {
    if (this.#rootLost()) return
    const ids = [...this.#wsDirty]
    this.#wsDirty.clear()
    const queue = [...ids]
    const seen = new Set<FileId>()
    while (queue.length > 0) {
      const id = queue.shift()!
      if (seen.has(id)) continue
      seen.add(id)
      try {
        await this.#processRemoteId(id, queue)
      } catch (error) {
        this.#report(error, this.#fs.index.pathOf(id))
      }
    }
    await this.#metaFlush
  }

  async #processRemoteId(id: FileId, queue: FileId[], following = new Set<FileId>()): Promise<void> {
    following.add(id)
    const compare = this.#wsCompare.delete(id)
    const row = this.#fs.table.get(id)
    let path = row && row.trashedAt === null ? this.#fs.index.pathOf(id) : undefined
    if (
      path !== undefined &&
      (path === '/' || isSystemPath(path) || this.#ignored(path, row?.type === 'folder'))
    )
      path = undefined
    // Refuse (and report) a path that could not live inside the folder before anything else.
    if (path !== undefined) this.#host(path)
    const old = this.#state.pathOfId(id)
    if (path === undefined || !row) {
      if (old !== undefined) {
        await this.#removeLocalTree(old)
        this.#heirOf(old, id)
      }
      return
    }
    if (old !== undefined && old !== path) {
      const from = await this.#guardedHost(old)
      const to = await this.#guardedHost(path)
      if ((await exists(from)) && !(await exists(to))) {
        await moveEntry(from, to)
        this.#state.move(old, path)
        // A file keeps its old stamp: the row's stamp now may include a content change that came
        // with the move (a peer renamed and wrote it), which the download below compares and writes.
        if (row.type === 'folder') this.#restamp(path)
        this.#change('to-disk', 'move', path, { from: old })
      } else await this.#removeLocalTree(old)
      this.#heirOf(old, id)
    }
    // The disk file at `path` is another row's, which the workspace shows elsewhere now: two files
    // of one name (created on both sides at once, or moved there), and core shows the later-created
    // one as `f (1).txt`. That row's disk file follows its name first, then this row takes `path`.
    const held = this.#state.get(path)
    if (held && held.id !== id && !following.has(held.id as FileId)) {
      const other = this.#fs.index.pathOf(held.id as FileId)
      if (other !== undefined && other !== path)
        await this.#processRemoteId(held.id as FileId, queue, following)
    }
    const e = this.#state.get(path)
    if (row.type === 'folder') {
      if (!e || e.id !== id) {
        await this.#download(path)
        // A folder that appears (restored, moved in from an ignored place) brings its subtree.
        const walk = (folder: FileId) => {
          for (const child of this.#fs.index.allChildren(folder)) {
            queue.push(child)
            walk(child)
          }
        }
        walk(id)
      } else this.#restamp(path)
      return
    }
    if (e && e.id === id && e.stamp === stampOf(row) && !compare) return
    await this.#download(path)
  }

  /**
   * The row at `old` moved away or went: when the workspace now shows another row at `old` (a
   * duplicate name whose older namesake left: `f (1).txt` is `f.txt` now, without a change of its
   * own row), that row's disk file follows its name on the next remote pass.
   */
  #heirOf(old: string, id: FileId): void {
    const heir = this.#fs.index.lookup(old)
    if (heir === undefined || heir === id || this.#state.pathOfId(heir) === old) return
    this.#wsDirty.add(heir)
    this.#scheduleWs()
  }

  /** The workspace no longer has `path`: remove what we synced there, keeping files edited on disk since. */
  async #removeLocalTree(path: string): Promise<void> {
    const entries = this.#syncedUnder(path).sort((a, b) => depth(b.path) - depth(a.path))
    for (const e of entries) await this.#deleteLocal(e.path)
  }

  // ------------------------------------------------------------ live: disk changes

  async #processDisk(): Promise<void> {
    if (this.#rootLost()) return
    const dirty = [...this.#diskDirty].sort((a, b) => depth(a) - depth(b))
    this.#diskDirty.clear()
    const present: [string, ScannedNode][] = []
    let rulesChanged = false
    const scanOptions = { rules: this.#rules, maxFileSize: this.#fs.limits.maxFileSize }
    for (const path of dirty) {
      try {
        if (this.#rules.isRulesFile(path)) rulesChanged = true
        const host = this.#host(path)
        const seen = await inspect(this.dir, host, path, scanOptions)
        if (seen.skipped) this.#emit({ type: 'skip', ...seen.skipped })
        if (seen.node && (this.#ignored(path, seen.node.kind === 'folder') || isSystemPath(path))) continue
        if (!seen.node) {
          // Refused (reported above) is not gone: a synced file that grew over the limit stays in the workspace.
          if (!seen.skipped && this.#state.get(path)) this.#pendingDeletes.set(path, Date.now())
          continue
        }
        present.push([path, seen.node])
      } catch (error) {
        this.#report(error, path)
      }
    }
    const presentPaths = new Set(present.map(([p]) => p))
    // New folders first (parents before children): a folder whose children match a vanished folder's is a move.
    for (const [path, node] of present) {
      if (node.kind !== 'folder') continue
      try {
        const e = this.#state.get(path)
        if (e?.kind !== 'folder') {
          if (e && !(await this.#replacedKind(path, e))) continue
          const from = await this.#matchVanishedFolder(path)
          const moved = from !== undefined && (await this.#moveRemote(from, path))
          if (from !== undefined)
            for (const p of this.#pendingDeletes.keys())
              if (paths.isSameOrDescendant(from, p)) this.#pendingDeletes.delete(p)
          if (!moved) {
            await this.#fs.mkdir(path, { recursive: true })
            this.#putFolder(path, node.mode)
            this.#change('to-workspace', 'mkdir', path)
          }
        }
        // Whatever is inside is looked at too: moved in, copied in, or (a synced folder, reported
        // again once the watcher watches it) written before its watch could report it.
        const sub = await scanDisk(
          this.dir,
          {
            ...scanOptions,
            rules: { ...this.#rules, ignores: (p, d) => this.#ignored(p, d) },
            knownHash: (p, size, mtimeMs) => this.#knownHash(p, size, mtimeMs),
          },
          path,
        )
        for (const s of sub.skipped) this.#emit({ type: 'skip', ...s })
        for (const [p, n] of sub.nodes)
          if (!presentPaths.has(p)) {
            presentPaths.add(p)
            present.push([p, n])
          }
      } catch (error) {
        this.#report(error, path)
      }
    }
    for (const [path, node] of present) {
      if (node.kind === 'folder') continue
      try {
        let e = this.#state.get(path)
        if (e?.kind === 'folder') {
          // A synced folder replaced by a file or symlink: the folder (what is left of it) goes first.
          if (!(await this.#replacedKind(path, e))) continue
          e = undefined
        }
        if (e && e.kind === node.kind && e.hash === node.hash) {
          if (node.kind === 'file' && (e.mode & 0o111) !== (node.mode & 0o111))
            await this.#uploadMode(path, e, node)
          continue
        }
        if (!e && node.kind === 'file') {
          const from = await this.#matchVanishedFile(path, node.hash)
          if (from !== undefined) {
            this.#pendingDeletes.delete(from)
            if (await this.#moveRemote(from, path)) continue
          }
        }
        await this.#upload(path, node)
      } catch (error) {
        this.#report(error, path)
      }
    }
    await this.#metaFlush
    if (rulesChanged) await this.#fullReconcile(false)
    this.#scheduleDeletes()
  }

  /**
   * The synced node `e` at `path` was replaced on disk by another kind (file ↔ folder): delete what
   * was synced there from the workspace (to its trash) so the new node can take the path. False
   * (reported) when the workspace changed it since: both are kept, as on a first run.
   */
  async #replacedKind(path: string, e: SyncEntry): Promise<boolean> {
    const row = this.#wsRow(path)
    if (row && (row.id !== e.id || (row.type !== 'folder' && stampOf(row) !== e.stamp))) {
      this.#emit({
        type: 'skip',
        path,
        code: 'EEXIST',
        reason: 'a file on one side and a folder on the other: resolve by renaming one',
      })
      return false
    }
    for (const p of this.#pendingDeletes.keys())
      if (paths.isSameOrDescendant(path, p)) this.#pendingDeletes.delete(p)
    await this.#deleteRemote(path)
    return true
  }

  async #uploadMode(path: string, e: SyncEntry, node: ScannedNode): Promise<void> {
    const row = this.#wsRow(path)
    if (!row) return
    await this.#fs.chmod(path, node.mode)
    this.#state.put({
      ...e,
      mode: node.mode,
      mtimeMs: node.mtimeMs,
      stamp: stampOf(this.#wsRow(path) ?? row),
    })
    this.#change('to-workspace', 'mode', path)
  }

  /**
   * The synced path whose file vanished from disk and whose bytes now appear
   * at `path`: a rename or move. chokidar reports the new name first (it holds
   * unlinks back briefly to spot atomic saves), so vanished files are found
   * by looking at the disk, not only among reported deletes.
   */
  async #matchVanishedFile(path: string, hash: string): Promise<string | undefined> {
    const candidates: string[] = []
    for (const e of this.#state.entries())
      if (e.kind === 'file' && e.hash === hash && e.path !== path) candidates.push(e.path)
    const base = paths.basename(path)
    candidates.sort((a, b) => Number(paths.basename(b) === base) - Number(paths.basename(a) === base))
    for (const candidate of candidates) {
      if (this.#pendingDeletes.has(candidate) || !(await exists(this.#host(candidate)))) return candidate
    }
    return undefined
  }

  /** A synced folder that vanished from disk and whose children's names all appear in the new folder `path`. */
  async #matchVanishedFolder(path: string): Promise<string | undefined> {
    const names = new Set(
      (await readdir(this.#host(path)).catch(() => [] as string[])).filter((n) => !n.startsWith(TEMP_PREFIX)),
    )
    if (names.size === 0) return undefined
    const children = new Map<string, string[]>()
    for (const e of this.#state.entries()) {
      const parent = paths.dirname(e.path)
      const list = children.get(parent)
      if (list) list.push(paths.basename(e.path))
      else children.set(parent, [paths.basename(e.path)])
    }
    for (const [candidate, list] of children) {
      if (candidate === path || candidate === '/' || this.#state.get(candidate)?.kind !== 'folder') continue
      if (list.length !== names.size || !list.every((n) => names.has(n))) continue
      if (this.#pendingDeletes.has(candidate) || !(await exists(this.#host(candidate)))) return candidate
    }
    return undefined
  }

  async #applyDeletes(all: boolean): Promise<void> {
    if (this.#rootLost()) return
    const now = Date.now()
    const due = [...this.#pendingDeletes]
      .filter(([, at]) => all || now - at >= this.#moveWindowMs)
      .map(([p]) => p)
      .sort((a, b) => depth(b) - depth(a))
    for (const path of due) {
      this.#pendingDeletes.delete(path)
      try {
        if (await exists(this.#host(path))) {
          this.#diskChanged(path)
          continue
        }
        if (this.#state.get(path)) await this.#deleteRemote(path)
      } catch (error) {
        this.#report(error, path)
      }
    }
    this.#scheduleDeletes()
  }
}

/**
 * Start mirroring `options.fs` to the folder `options.dir`: runs the
 * initial reconcile (first-run merge, or catching up after a restart),
 * then keeps both sides equal until `close()`. Rejects when the folder is
 * pinned to another workspace.
 *
 * @example
 * const sync = await syncFolder({ fs: connection.fs, dir: './mirror', workspace: 'demo' })
 * // … edit either side …
 * await sync.close()
 */
export async function syncFolder(options: SyncFolderOptions): Promise<FolderSync> {
  await makeFolder(resolve(options.dir))
  // The folder itself, not a symlink to it: the watcher does not follow links, so a linked root went unwatched.
  const dir = await realpath(resolve(options.dir))
  const state = openSyncState(dir, options.workspace ?? 'workspace')
  const engine = new SyncEngine(options, state, dir)
  try {
    await engine.start(options.usePolling ?? false)
  } catch (error) {
    await engine.close().catch(() => undefined)
    throw error
  }
  return engine
}

export type { NodeKind, SyncEntry }
