/**
 * Background compaction: a serial queue of documents whose logs should be
 * merged. Scheduling the same document twice before it runs is one job.
 * Failures are logged and never thrown to the caller: compaction is an
 * optimisation, the log stays correct without it.
 */
import type { Logger } from '../logger.js'
import type { DocumentStore } from './document-store.js'

export interface Compactor {
  /** Queue a compaction of `name` (deduplicated). */
  schedule(workspace: string, name: string): void
  /** Resolves when the queue is empty. */
  idle(): Promise<void>
  /** Stop taking jobs; resolves after the running one. */
  stop(): Promise<void>
}

export function createCompactor(store: DocumentStore, logger: Logger): Compactor {
  const queue = new Map<string, { workspace: string; name: string }>()
  let running: Promise<void> | undefined
  let stopped = false

  async function drain(): Promise<void> {
    while (queue.size > 0 && !stopped) {
      const [key, job] = queue.entries().next().value as [string, { workspace: string; name: string }]
      queue.delete(key)
      try {
        const result = await store.compact(job.workspace, job.name)
        if (result.merged > 0)
          logger.debug('compacted', { doc: job.name, rows: result.merged, bytes: result.bytes })
      } catch (error) {
        logger.warn('compaction failed', { doc: job.name, error })
      }
    }
    running = undefined
  }

  return {
    schedule(workspace, name) {
      if (stopped) return
      queue.set(`${workspace}\u0000${name}`, { workspace, name })
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
