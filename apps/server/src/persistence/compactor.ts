/**
 * Background compaction: a serial queue of documents whose logs should be
 * merged. Scheduling the same document twice before it runs is one job.
 * Failures are logged and never thrown to the caller: compaction is an
 * optimisation, the log stays correct without it.
 */
import type { Logger } from '../logger.js'
import type { CompactResult, DocumentStore } from './document-store.js'

export interface Compactor {
  /** Queue a compaction of `name` (deduplicated: the last `done` given is called, with its result). */
  schedule(workspace: string, name: string, done?: (result: CompactResult) => void): void
  /** Resolves when the queue is empty. */
  idle(): Promise<void>
  /** Stop taking jobs; resolves after the running one. */
  stop(): Promise<void>
}

interface Job {
  workspace: string
  name: string
  done?: (result: CompactResult) => void
}

export function createCompactor(store: DocumentStore, logger: Logger): Compactor {
  const queue = new Map<string, Job>()
  let running: Promise<void> | undefined
  let stopped = false

  async function drain(): Promise<void> {
    while (queue.size > 0 && !stopped) {
      const [key, job] = queue.entries().next().value as [string, Job]
      queue.delete(key)
      try {
        const result = await store.compact(job.workspace, job.name)
        job.done?.(result)
        if (result.merged > 0)
          logger.debug('compacted', { doc: job.name, rows: result.merged, bytes: result.bytes })
      } catch (error) {
        logger.warn('compaction failed', { doc: job.name, error })
      }
    }
    running = undefined
  }

  return {
    schedule(workspace, name, done) {
      if (stopped) return
      queue.set(`${workspace}\u0000${name}`, { workspace, name, ...(done ? { done } : {}) })
      if (!running) running = new Promise<void>((resolve) => setImmediate(resolve)).then(drain)
    },
    async idle() {
      while (running) await running
    },
    async stop() {
      stopped = true
      queue.clear()
      while (running) await running
    },
  }
}
