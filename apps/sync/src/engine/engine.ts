/**
 * The state record of one running sync (a folder mirrored to a workspace),
 * and the small reads every pass makes of it.
 *
 * The engine is this record plus one module per pass, each a plain function
 * over it (the way core's YjsFileSystem keeps its state in fs-context.ts):
 *
 *   scheduler.ts       the serial queue, dirty sets and their timers, batched metadata, idle()
 *   initial-pass.ts    start-up and full compares: scan, reconcile, run the operations
 *   bulk-transfers.ts  the initial pass's batches of new files, both ways
 *   disk-pass.ts       live, disk → workspace: dirty paths, vanished paths and their window
 *   to-workspace.ts    disk → workspace operations: upload, mode, delete, kind replaced
 *   to-disk.ts         live, workspace → disk: dirty ids, and the download operation
 *   local-deletes.ts   deletes on disk (only what was synced, unchanged since)
 *   moves.ts           moves made on disk, recognised and applied as moves in the workspace
 *   display-names.ts   duplicate names: rows created by our writes, names inherited
 *   merge-both.ts      both sides changed: three-way merge or a conflict copy
 *   records.ts         the sync state's records of synced paths
 *
 * sync-folder.ts creates the record, wires core's sync port and the watcher
 * to the scheduler, and is the public `FolderSync`. Nothing but the passes
 * changes the record, and every pass runs on the serial queue.
 */
import { statSync } from 'node:fs'
import {
  type FileId,
  type FileRow,
  isFsError,
  paths,
  type RowMetadata,
  SYSTEM_ROOTS,
  type SyncPort,
  type YjsFileSystem,
} from '@yfs/core'
import { TEMP_PREFIX } from '../disk-writer.js'
import { type IgnoreRules, STATE_DIR } from '../ignore-rules.js'
import { assertParentInside, invalidNameReason, RootGuardError, toHostPath } from '../root-guard.js'
import type { SyncAction, SyncDirection, SyncEventHandler } from '../sync-events.js'
import type { SyncEntry, SyncState } from '../sync-state.js'
import type { FolderWatcher } from '../watcher.js'

/** The live passes the scheduler runs (set by sync-folder.ts, so the scheduler imports no pass). */
export interface LivePasses {
  /** Look at the dirty disk paths (disk → workspace). */
  disk(): Promise<void>
  /** Look at the dirty workspace ids (workspace → disk). */
  remote(): Promise<void>
  /** Delete from the workspace what vanished from disk and did not reappear as a move (`all`: without waiting). */
  deletes(all: boolean): Promise<void>
}

/** The state of one running sync; see the module comment. */
export interface SyncEngine {
  /** The folder, absolute (a symlink to it resolved). */
  readonly dir: string
  readonly fs: YjsFileSystem
  /** The workspace's rows and display paths (core's sync port). */
  readonly port: SyncPort
  /** The persisted sync state: per path, what was last synced (sync-state.ts). */
  readonly state: SyncState
  readonly rules: IgnoreRules
  /** Reports an event; a throwing handler never breaks the queue. */
  readonly emit: SyncEventHandler
  /** Quiet time before dirty disk paths are looked at (ms). */
  readonly debounceMs: number
  /** How long a vanished disk path waits for its bytes to reappear elsewhere (ms). */
  readonly moveWindowMs: number
  /** Transfers in flight during the initial pass. */
  readonly concurrency: number
  readonly usePolling: boolean
  readonly passes: LivePasses
  /** Stop the sync (the public `close`). */
  readonly close: () => Promise<void>
  /** The folder's real path (the root guard's reference). */
  realRoot: string
  /** The folder's identity at start: a folder removed (or replaced) under the daemon stops it. */
  rootId: string
  watcher: FolderWatcher | undefined
  /** The initial pass is done: dirty paths and ids are processed as they come. */
  live: boolean
  closed: boolean
  /** The serial queue: every pass runs after the one before. */
  chain: Promise<void>
  /** Tasks enqueued and not finished. */
  pendingTasks: number
  diskDirty: Set<string>
  diskTimer: NodeJS.Timeout | undefined
  wsDirty: Set<FileId>
  /** Dirty ids whose content is compared even when their row's stamp is the synced one (a peer's outvoted announcement). */
  wsCompare: Set<FileId>
  wsTimer: NodeJS.Timeout | undefined
  /** Synced disk paths that vanished → when; deleted in the workspace once `moveWindowMs` passed. */
  pendingDeletes: Map<string, number>
  deleteTimer: NodeJS.Timeout | undefined
  /** Row metadata (mtime, mode) waiting for the next batched write. */
  meta: Map<FileId, RowMetadata>
  metaFlush: Promise<void> | undefined
  counts: { toWorkspace: number; toDisk: number }
  /** New files the daemon is writing into the workspace (`parent id/name`) → the id of the row its write created. */
  creating: Map<string, FileId | undefined>
  /** `idle()` calls waiting for the queue, the dirty sets and the metadata to drain. */
  idleWaiters: Set<() => void>
}

/** What `createEngine` needs: the options of `syncFolder`, resolved, and the pieces made before. */
export interface EngineSetup {
  dir: string
  fs: YjsFileSystem
  port: SyncPort
  state: SyncState
  rules: IgnoreRules
  onEvent: SyncEventHandler | undefined
  debounceMs: number
  moveWindowMs: number
  concurrency: number
  usePolling: boolean
  passes: LivePasses
  close: () => Promise<void>
}

/** A new engine record, not started. */
export function createEngine(setup: EngineSetup): SyncEngine {
  const handler = setup.onEvent
  return {
    dir: setup.dir,
    fs: setup.fs,
    port: setup.port,
    state: setup.state,
    rules: setup.rules,
    emit: (event) => {
      try {
        handler?.(event)
      } catch (error) {
        // A failing reporter must not stop the sync; surface it without breaking the queue.
        queueMicrotask(() => {
          throw error
        })
      }
    },
    debounceMs: setup.debounceMs,
    moveWindowMs: setup.moveWindowMs,
    concurrency: setup.concurrency,
    usePolling: setup.usePolling,
    passes: setup.passes,
    close: setup.close,
    realRoot: '',
    rootId: '',
    watcher: undefined,
    live: false,
    closed: false,
    chain: Promise.resolve(),
    pendingTasks: 0,
    diskDirty: new Set(),
    diskTimer: undefined,
    wsDirty: new Set(),
    wsCompare: new Set(),
    wsTimer: undefined,
    pendingDeletes: new Map(),
    deleteTimer: undefined,
    meta: new Map(),
    metaFlush: undefined,
    counts: { toWorkspace: 0, toDisk: 0 },
    creating: new Map(),
    idleWaiters: new Set(),
  }
}

/** Number of segments of a virtual path (`/a/b` → 3): parents sort before children. */
export const depth = (path: string): number => path.split('/').length

/** True under `/bin`, `/tmp` and the other per-instance system roots (never synced). */
export function isSystemPath(path: string): boolean {
  return SYSTEM_ROOTS.includes(paths.split(path)[0] ?? '')
}

/** Report a failed step as an event: a root-guard refusal is a `skip`, anything else an `error`. */
export function report(engine: SyncEngine, error: unknown, path?: string): void {
  if (error instanceof RootGuardError) {
    engine.emit({ type: 'skip', path: error.path, code: 'EACCES', reason: error.reason })
    return
  }
  const message = isFsError(error) ? error.message : error instanceof Error ? error.message : String(error)
  engine.emit({ type: 'error', ...(path ? { path } : {}), message })
}

/** Count and report a change the daemon made. */
export function change(
  engine: SyncEngine,
  direction: SyncDirection,
  action: SyncAction,
  path: string,
  extra: { from?: string; kind?: string } = {},
): void {
  if (direction === 'to-workspace') engine.counts.toWorkspace++
  else engine.counts.toDisk++
  engine.emit({ type: 'change', direction, action, path, ...extra })
}

/** The host path of `path` (the root guard refuses names that would leave the folder). */
export function hostOf(engine: SyncEngine, path: string): string {
  return toHostPath(engine.dir, path)
}

/** The host path of `path`, its parent checked to resolve inside the folder (no symlink leading out). */
export async function guardedHost(engine: SyncEngine, path: string): Promise<string> {
  const host = hostOf(engine, path)
  await assertParentInside(engine.realRoot, host, path)
  return host
}

/** The workspace node at `path`, without following a symlink in the last component. */
export function rowAt(engine: SyncEngine, path: string): FileRow | undefined {
  return engine.port.rowAt(path)
}

/** True when `path` is left alone on both sides (ignore rules, the state folder, temp files). */
export function ignored(engine: SyncEngine, path: string, isDir: boolean | undefined): boolean {
  // A hostile name ('..', 'a\\b') is not "ignored": it goes on to the root guard, which refuses and reports it.
  if (path.split('/').some((part, i) => i > 0 && invalidNameReason(part) !== undefined)) return false
  if (paths.basename(path).startsWith(TEMP_PREFIX)) return true
  if (path === `/${STATE_DIR}` || path.startsWith(`/${STATE_DIR}/`)) return true
  if (isDir === undefined) return engine.rules.ignores(path, false) && engine.rules.ignores(path, true)
  return engine.rules.ignores(path, isDir)
}

/** State entries of `path` and everything below it. */
export function syncedUnder(engine: SyncEngine, path: string): SyncEntry[] {
  return [...engine.state.entries()].filter((e) => paths.isSameOrDescendant(path, e.path))
}

/** `dev:ino` of the folder `host` (through a symlink: the sync root may be one), or undefined when it is not a folder (any more). */
export function rootIdentity(host: string): string | undefined {
  let st: ReturnType<typeof statSync>
  try {
    st = statSync(host, { throwIfNoEntry: false })
  } catch {
    // ENOTDIR, ELOOP, EACCES on the way: not the folder we started on.
    return undefined
  }
  return st?.isDirectory() ? `${st.dev}:${st.ino}` : undefined
}

/**
 * True (and the sync stopping) when the folder itself was removed or replaced: its files
 * vanishing then says nothing about the workspace, so nothing is deleted there.
 */
export function rootLost(engine: SyncEngine): boolean {
  if (rootIdentity(engine.dir) === engine.rootId) return false
  if (!engine.closed) {
    engine.diskDirty.clear()
    engine.pendingDeletes.clear()
    engine.wsDirty.clear()
    engine.wsCompare.clear()
    engine.emit({
      type: 'error',
      message: `the folder ${engine.dir} was removed or replaced: sync stopped, nothing deleted in the workspace`,
    })
    void engine.close()
  }
  return true
}
