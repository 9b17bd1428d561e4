/**
 * syncFolder: keep a folder on disk and a workspace (any `YjsFileSystem`)
 * equal, both ways, until closed.
 *
 * How it works:
 * - Start: scan the folder, snapshot the workspace rows, load the sync
 *   state, and apply `reconcile` (first-run and offline merge rules are
 *   documented there). A progress event is emitted as operations complete.
 * - Live, workspace → disk: row changes from peers (core's sync port,
 *   non-local changes, and a peer's content announcement that lost to ours)
 *   mark file ids dirty; each id is compared with the state by id, so
 *   renames, moves, trash and restore become a rename, a delete or a create
 *   on disk, and content changes a download.
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
 * The engine is a state record (engine/engine.ts, which lists its modules)
 * and one module per pass; this module creates the record, starts it (the
 * initial pass, then the watcher and the row observers) and closes it.
 */
import { realpath } from 'node:fs/promises'
import { resolve } from 'node:path'
import { createSyncPort, type YjsFileSystem } from '@yfs/core'
import { makeFolder, removeStrayTemps } from './disk-writer.js'
import { applyDeletes, diskPass } from './engine/disk-pass.js'
import { noteCreated } from './engine/display-names.js'
import { createEngine, rootIdentity, type SyncEngine } from './engine/engine.js'
import { fullReconcile } from './engine/initial-pass.js'
import {
  enqueue,
  idle,
  remoteChanged,
  scheduleDisk,
  scheduleRemote,
  startWatcher,
} from './engine/scheduler.js'
import { remotePass } from './engine/to-disk.js'
import { createIgnoreRules, STATE_DIR } from './ignore-rules.js'
import type { NodeKind } from './reconcile.js'
import type { SyncEventHandler } from './sync-events.js'
import { openSyncState, type SyncEntry } from './sync-state.js'

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
  // What `close` undoes: the row observers.
  const detach: (() => void)[] = []
  const engine: SyncEngine = createEngine({
    dir,
    fs: options.fs,
    port: createSyncPort(options.fs),
    state,
    rules: createIgnoreRules(dir, { patterns: options.ignore, useDefaults: options.useDefaultIgnores }),
    onEvent: options.onEvent,
    debounceMs: options.debounceMs ?? 30,
    moveWindowMs: options.moveWindowMs ?? 150,
    concurrency: options.concurrency ?? 16,
    usePolling: options.usePolling ?? false,
    passes: {
      disk: () => diskPass(engine),
      remote: () => remotePass(engine),
      deletes: (all) => applyDeletes(engine, all),
    },
    close: () => close(engine, detach),
  })
  try {
    await start(engine, detach)
  } catch (error) {
    await engine.close().catch(() => undefined)
    throw error
  }
  return {
    dir,
    idle: (timeoutMs) => idle(engine, timeoutMs),
    rescan: () => enqueue(engine, () => fullReconcile(engine, false)),
    close: engine.close,
  }
}

/** The initial pass, then the watcher and a second compare; live from then on. */
async function start(engine: SyncEngine, detach: (() => void)[]): Promise<void> {
  engine.realRoot = await realpath(engine.dir)
  engine.rootId = rootIdentity(engine.dir) ?? ''
  await removeStrayTemps(engine.dir, new Set([STATE_DIR, '.git', 'node_modules']))
  await engine.rules.reload('/')
  detach.push(
    engine.port.observeRows((changes, local) => {
      if (local) noteCreated(engine, changes)
      else for (const id of changes.keys()) remoteChanged(engine, id)
    }),
    // A peer's file row that loses the last-writer-wins of its content group to a newer write of
    // ours (a metadata or content write of the daemon's that landed after theirs) changes no row
    // here, so the change observer says nothing; but its content edit is in the content doc,
    // merged. Without a look at the content it never reached the disk (fast saves on both sides of
    // one file, under load). Core's reads wait for the content that entry announced.
    engine.port.observeOutvoted((ids) => {
      for (const id of ids) remoteChanged(engine, id, true)
    }),
  )
  const started = Date.now()
  await enqueue(engine, () => fullReconcile(engine, true))
  // Watch only now (or, for a first pass that writes nothing to disk, from its start; see
  // fullReconcile): a watcher running while the initial pass writes thousands of files handles
  // an event per file (and re-reads its folder), which made that pass several times slower.
  // Changes made on disk during the initial pass are found by a second compare, which runs once
  // the watcher is ready (from then on, every change is an event).
  await startWatcher(engine).ready
  await enqueue(engine, () => fullReconcile(engine, false))
  engine.live = true
  engine.emit({ type: 'ready', entries: engine.state.size, ...engine.counts, ms: Date.now() - started })
  scheduleDisk(engine)
  scheduleRemote(engine)
}

/** Finish what was already seen (disk changes, remote changes, deletes), stop watching, close the state. */
async function close(engine: SyncEngine, detach: (() => void)[]): Promise<void> {
  if (engine.closed) return
  engine.closed = true
  await engine.watcher?.close()
  for (const stop of detach) stop()
  clearTimeout(engine.diskTimer)
  clearTimeout(engine.wsTimer)
  clearTimeout(engine.deleteTimer)
  if (engine.diskDirty.size > 0) await enqueue(engine, () => diskPass(engine))
  if (engine.wsDirty.size > 0) await enqueue(engine, () => remotePass(engine))
  if (engine.pendingDeletes.size > 0) await enqueue(engine, () => applyDeletes(engine, true))
  await engine.chain
  await engine.metaFlush
  engine.state.close()
  engine.emit({ type: 'stopped' })
}

export type { NodeKind, SyncEntry }
