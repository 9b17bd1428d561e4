/**
 * Merging a document's stored updates (`Y.mergeUpdates`) off the server's
 * event loop when they are large.
 *
 * A merge is pure CPU on bytes, and a large one stalls every client of the
 * server while it runs: the main doc of a 100,000-file workspace (8.6 MB)
 * took 250–400 ms here, and it is merged at every compaction (every 256
 * appends: an agent session's calls reach that) and every load. So logs of
 * more than `minBytes` in all are merged on a worker thread, one at a time,
 * in order; smaller ones (almost every content doc, a bulk read's many small
 * logs) inline, where a thread hop would cost more than the merge.
 *
 * The worker is started on first use and not kept alive by itself (`unref`):
 * it never holds the process open. A merge that throws there rejects with
 * Yjs's message (callers salvage the log, as for an inline merge). A worker
 * that cannot start or dies is no reason to fail a load (a failed load would
 * be salvaged): what it was merging is merged inline, and so is everything
 * after. The worker runs the same `yjs` as this thread (resolved here, by path).
 */
import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import * as Y from 'yjs'

export interface UpdateMerger {
  /** `Y.mergeUpdates(updates)`, on the worker thread when they exceed `minBytes` in all. */
  merge(updates: readonly Uint8Array[]): Promise<Uint8Array>
  /** Stop the worker; merges still waiting reject. */
  close(): Promise<void>
}

export interface UpdateMergerOptions {
  /** Logs of at most this many bytes are merged inline. Default 256 KiB. */
  minBytes?: number
  /** Path of the `yjs` module the worker loads. Default: this thread's. */
  yjs?: string
}

export const MERGE_OFF_THREAD_BYTES = 256 * 1024

// CommonJS, run with `eval`: no file to ship next to a bundle; `workerData.yjs` is this thread's yjs.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Y = require(workerData.yjs)
parentPort.on('message', ({ id, updates }) => {
  let merged
  try {
    merged = Y.mergeUpdates(updates)
  } catch (error) {
    parentPort.postMessage({ id, error: String((error && error.message) || error) })
    return
  }
  parentPort.postMessage({ id, merged }, [merged.buffer])
})
`

interface Waiting {
  updates: readonly Uint8Array[]
  resolve: (merged: Uint8Array) => void
  reject: (error: Error) => void
}

interface Reply {
  id: number
  merged?: Uint8Array
  error?: string
}

export function createUpdateMerger(options: UpdateMergerOptions = {}): UpdateMerger {
  const minBytes = options.minBytes ?? MERGE_OFF_THREAD_BYTES
  const waiting = new Map<number, Waiting>()
  let worker: Worker | undefined
  let nextId = 0
  let closed = false
  // The worker could not start or died: every merge inline from then on.
  let inline = false

  const mergeInline = (updates: readonly Uint8Array[]) => Y.mergeUpdates(updates as Uint8Array[])

  /** The worker is gone: what it was merging is merged here. */
  const takeBack = () => {
    inline = true
    worker = undefined
    for (const { updates, resolve, reject } of waiting.values()) {
      try {
        resolve(mergeInline(updates))
      } catch (error) {
        reject(error as Error)
      }
    }
    waiting.clear()
  }

  const start = (): Worker => {
    const yjs = options.yjs ?? createRequire(import.meta.url).resolve('yjs')
    const w = new Worker(WORKER_SOURCE, { eval: true, workerData: { yjs } })
    w.unref()
    w.on('message', (reply: Reply) => {
      const entry = waiting.get(reply.id)
      if (!entry) return
      waiting.delete(reply.id)
      if (reply.error !== undefined) entry.reject(new Error(reply.error))
      else entry.resolve(reply.merged!)
      if (waiting.size === 0) w.unref()
    })
    w.on('error', () => {
      if (!closed) takeBack()
    })
    w.on('exit', () => {
      if (!closed && worker === w) takeBack()
    })
    return w
  }

  return {
    async merge(updates) {
      let bytes = 0
      for (const u of updates) bytes += u.byteLength
      if (bytes <= minBytes || closed || inline) return mergeInline(updates)
      try {
        worker ??= start()
      } catch {
        inline = true
        return mergeInline(updates)
      }
      // Held open while it merges: a server stopping meanwhile still gets its answer.
      worker.ref()
      const id = nextId++
      const w = worker
      return new Promise<Uint8Array>((resolve, reject) => {
        waiting.set(id, { updates, resolve, reject })
        // Copied (structured clone): rows from a database may share one buffer.
        w.postMessage({ id, updates })
      })
    },
    async close() {
      closed = true
      const w = worker
      worker = undefined
      if (w) await w.terminate()
      for (const { reject } of waiting.values()) reject(new Error('update merger closed'))
      waiting.clear()
    },
  }
}
