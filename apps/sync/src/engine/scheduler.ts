/**
 * When the engine's passes run: one serial queue, work marked dirty by
 * events (the watcher's paths, core's row changes) and run after a short
 * quiet time, row metadata batched into one write, and `idle()`, a promise
 * that resolves when all of it has drained.
 *
 * Scheduling is driven by events, never by polling: a disk path marked dirty
 * starts the debounce timer (`debounceMs`), a workspace id a 5 ms timer, a
 * vanished path the move window (`moveWindowMs`); each timer enqueues its
 * pass (sync-folder.ts gives the record the pass functions, `passes`, so
 * this module imports none). `idle()` waiters are resolved at the two
 * moments the engine can become idle: a task finishing and a metadata
 * write, whichever empties the last queue.
 */
import type { FileId, RowMetadata } from '@yfs/core'
import { watchFolder } from '../watcher.js'
import { ignored, report, type SyncEngine } from './engine.js'

/** Wait between a peer's row change and the remote pass (lets a burst of rows arrive). */
const REMOTE_DELAY_MS = 5

/** Run `task` on the serial queue after everything enqueued before; a failure is reported, not thrown. */
export function enqueue(engine: SyncEngine, task: () => Promise<void>): Promise<void> {
  engine.pendingTasks++
  const run = engine.chain.then(task).catch((error: unknown) => report(engine, error))
  engine.chain = run.finally(() => {
    engine.pendingTasks--
    settle(engine)
  })
  return engine.chain
}

/** A disk path changed (or may have): look at it after the debounce, once the engine is live. */
export function diskChanged(engine: SyncEngine, path: string): void {
  if (engine.closed || path === '/') return
  engine.diskDirty.add(path)
  if (engine.live) scheduleDisk(engine)
}

/** A workspace row changed (or its content may have: `compare`): look at it on the next remote pass. */
export function remoteChanged(engine: SyncEngine, id: FileId, compare = false): void {
  engine.wsDirty.add(id)
  if (compare) engine.wsCompare.add(id)
  scheduleRemote(engine)
}

/** Start the disk pass's debounce timer, unless it runs or there is nothing to do. */
export function scheduleDisk(engine: SyncEngine): void {
  if (engine.diskTimer || engine.closed || engine.diskDirty.size === 0) return
  engine.diskTimer = setTimeout(() => {
    engine.diskTimer = undefined
    void enqueue(engine, () => engine.passes.disk())
  }, engine.debounceMs)
}

/** Start the remote pass's timer (once live), unless it runs or there is nothing to do. */
export function scheduleRemote(engine: SyncEngine): void {
  if (engine.wsTimer || engine.closed || !engine.live || engine.wsDirty.size === 0) return
  engine.wsTimer = setTimeout(() => {
    engine.wsTimer = undefined
    void enqueue(engine, () => engine.passes.remote())
  }, REMOTE_DELAY_MS)
}

/** Start the move window's timer for vanished paths, unless it runs or none waits. */
export function scheduleDeletes(engine: SyncEngine): void {
  if (engine.deleteTimer || engine.closed || engine.pendingDeletes.size === 0) return
  engine.deleteTimer = setTimeout(() => {
    engine.deleteTimer = undefined
    void enqueue(engine, () => engine.passes.deletes(false))
  }, engine.moveWindowMs)
}

/**
 * Set row metadata (mtime, mode) of `id`; the patches of every call until the current task ends
 * are written together (core's `setMetadata`: one main-doc transaction). Resolves once written.
 */
export function setMeta(engine: SyncEngine, id: FileId, patch: RowMetadata): Promise<void> {
  engine.meta.set(id, { ...engine.meta.get(id), ...patch })
  engine.metaFlush ??= new Promise((resolveFlush) =>
    setTimeout(() => {
      const batch = engine.meta
      engine.meta = new Map()
      engine.metaFlush = undefined
      engine.port.setMetadata(batch)
      resolveFlush()
      settle(engine)
    }, 0),
  )
  return engine.metaFlush
}

/** Start the watcher (once); its `ready` resolves when its initial scan is done. */
export function startWatcher(engine: SyncEngine) {
  engine.watcher ??= watchFolder(engine.dir, {
    ignored: (path, isDir) => ignored(engine, path, isDir),
    onChange: (path) => diskChanged(engine, path),
    onError: (error) => engine.emit({ type: 'error', message: String(error) }),
    usePolling: engine.usePolling,
  })
  return engine.watcher
}

/** True while a task runs or waits, or a dirty set, a vanished path or a metadata patch is pending. */
export function isBusy(engine: SyncEngine): boolean {
  return (
    engine.pendingTasks > 0 ||
    engine.diskDirty.size > 0 ||
    engine.wsDirty.size > 0 ||
    engine.pendingDeletes.size > 0 ||
    engine.meta.size > 0
  )
}

/** Resolve the `idle()` waiters if nothing is pending any more. */
function settle(engine: SyncEngine): void {
  if (engine.idleWaiters.size === 0 || isBusy(engine)) return
  for (const done of [...engine.idleWaiters]) done()
}

/**
 * Resolves once every change seen so far (both ways) has been applied: the queue, the dirty sets,
 * the vanished paths and the metadata drained. Rejects after `timeoutMs`.
 */
export function idle(engine: SyncEngine, timeoutMs = 30_000): Promise<void> {
  if (!isBusy(engine)) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer)
      engine.idleWaiters.delete(done)
      resolve()
    }
    const timer = setTimeout(() => {
      engine.idleWaiters.delete(done)
      reject(new Error('sync did not become idle in time'))
    }, timeoutMs)
    engine.idleWaiters.add(done)
  })
}
