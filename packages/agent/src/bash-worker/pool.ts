/**
 * A small pool of bash worker threads for this process. Starting a worker
 * (a V8 isolate, tsx, just-bash) costs a few hundred ms, so workers are kept
 * between runs; each runs one script at a time.
 *
 * Invariants: at most `maxWorkers` run at once (more runs wait in order);
 * at most `maxIdle` idle workers are kept, unref'd so they never keep the
 * process alive; a worker that was terminated or crashed is never reused.
 * Workers get an empty environment (no secrets of this process) and a heap
 * limit, so a runaway script dies alone instead of taking the server down.
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'

// From sources (the workspace, through tsx) the entry registers tsx first; built (an installed
// package) the compiled worker runs as it is. The path, not the URL: tsx's `tsImport` (the `yfs`
// bin) loads modules with a query (`?tsx-namespace=…`), so the URL does not end in `.ts`.
const WORKER_URL = new URL(import.meta.url).pathname.endsWith('.ts')
  ? new URL('./worker.mjs', import.meta.url)
  : new URL('./worker.js', import.meta.url)

/** Heap limit of one bash worker (MB): above just-bash's own string and live-bytes limits. */
export const WORKER_HEAP_MB = 1024

export interface WorkerPool {
  /** A worker for one run (waits while `maxWorkers` are busy). */
  acquire(): Promise<Worker>
  /** Give a worker back after a run; `healthy: false` terminates it. */
  release(worker: Worker, healthy: boolean): void
  /**
   * Keep workers warm until the returned function is called (an MCP session: its calls come
   * seconds apart, and a cold worker costs a few hundred ms per call): one worker is started
   * ahead, and idle workers are kept instead of ended after `idleMs`. Holds nest.
   */
  keepWarm(): () => void
  /** Terminate idle workers (running ones finish first). */
  close(): Promise<void>
}

/**
 * How long an idle worker is kept for the next run. A worker whose stdout this process reads keeps
 * a MessagePort referenced (Node's worker stdio, even after `worker.unref()`), so an idle worker
 * would keep a library user's script from exiting: it is ended after this long without a run.
 */
export const WORKER_IDLE_MS = 1000

export function createWorkerPool({
  maxWorkers = Math.max(2, Math.min(4, availableParallelism())),
  maxIdle = 2,
  idleMs = WORKER_IDLE_MS,
} = {}): WorkerPool {
  const idle: Worker[] = []
  const idleTimers = new Map<Worker, ReturnType<typeof setTimeout>>()
  const takeIdle = () => {
    const worker = idle.pop()
    if (worker) {
      clearTimeout(idleTimers.get(worker))
      idleTimers.delete(worker)
    }
    return worker
  }
  const waiting: ((w: Worker) => void)[] = []
  let running = 0
  let warmHolds = 0
  // An idle worker is ended after `idleMs`, unless someone keeps the pool warm.
  const expireLater = (worker: Worker) => {
    if (warmHolds > 0 || idleTimers.has(worker)) return
    const timer = setTimeout(() => {
      const i = idle.indexOf(worker)
      if (i !== -1) idle.splice(i, 1)
      idleTimers.delete(worker)
      void worker.terminate()
    }, idleMs)
    timer.unref()
    idleTimers.set(worker, timer)
  }
  const spawn = () => {
    const worker = new Worker(WORKER_URL, {
      env: {},
      stdout: true,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    })
    // Nothing a script does may reach this process's stdout (the MCP stdio channel).
    worker.stdout.resume()
    // A crash is reported to the run in progress (run.ts); an idle worker's is only dropped.
    worker.on('error', () => undefined)
    worker.once('exit', () => {
      const i = idle.indexOf(worker)
      if (i !== -1) idle.splice(i, 1)
      clearTimeout(idleTimers.get(worker))
      idleTimers.delete(worker)
    })
    return worker
  }
  return {
    acquire() {
      if (running >= maxWorkers) return new Promise((resolve) => waiting.push(resolve))
      running++
      const worker = takeIdle() ?? spawn()
      worker.ref()
      return Promise.resolve(worker)
    },
    release(worker, healthy) {
      if (!healthy) void worker.terminate()
      const next = waiting.shift()
      if (next) {
        const w = healthy ? worker : (takeIdle() ?? spawn())
        w.ref()
        return next(w)
      }
      running--
      if (!healthy) return
      if (idle.length >= maxIdle) {
        void worker.terminate()
        return
      }
      worker.unref()
      idle.push(worker)
      expireLater(worker)
    },
    keepWarm() {
      warmHolds++
      for (const worker of idle) {
        clearTimeout(idleTimers.get(worker))
        idleTimers.delete(worker)
      }
      if (idle.length === 0 && running < maxWorkers) {
        const worker = spawn()
        worker.unref()
        idle.push(worker)
      }
      let released = false
      return () => {
        if (released) return
        released = true
        if (--warmHolds === 0) for (const worker of idle) expireLater(worker)
      }
    },
    async close() {
      for (const timer of idleTimers.values()) clearTimeout(timer)
      idleTimers.clear()
      await Promise.all(idle.splice(0).map((w) => w.terminate()))
    },
  }
}
