/**
 * The worker pool's idle policy: an idle worker is ended after `idleMs` (so a library user's
 * script can exit), unless a long-lived caller keeps the pool warm (an MCP session), which also
 * starts one worker ahead so the first call does not pay for a cold one.
 */
import { once } from 'node:events'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createWorkerPool } from './pool.js'

afterEach(() => {
  vi.useRealTimers()
})

describe('the bash worker pool', () => {
  it('ends an idle worker after idleMs, keeps it while held warm, and ends it again once released', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const pool = createWorkerPool({ idleMs: 1000 })
    try {
      const first = await pool.acquire()
      pool.release(first, true)
      const exited = once(first, 'exit')
      vi.advanceTimersByTime(1000)
      await exited

      const release = pool.keepWarm()
      // Started ahead: the next run gets it, and it outlives any idle time while the hold lasts.
      const ahead = await pool.acquire()
      pool.release(ahead, true)
      vi.advanceTimersByTime(60_000)
      const again = await pool.acquire()
      expect(again.threadId).toBe(ahead.threadId)
      pool.release(again, true)

      release()
      release() // a second call is a no-op
      const ended = once(again, 'exit')
      vi.advanceTimersByTime(1000)
      await ended
    } finally {
      await pool.close()
    }
  })

  it('holds nest: the pool stays warm until the last one is released', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const pool = createWorkerPool({ idleMs: 1000 })
    try {
      const a = pool.keepWarm()
      const b = pool.keepWarm()
      const worker = await pool.acquire()
      pool.release(worker, true)
      a()
      vi.advanceTimersByTime(5000)
      const same = await pool.acquire()
      expect(same.threadId).toBe(worker.threadId)
      pool.release(same, true)
      b()
      const ended = once(same, 'exit')
      vi.advanceTimersByTime(1000)
      await ended
    } finally {
      await pool.close()
    }
  })
})
