/** withTimeout: the work's result, or a timeout error; no timer is left behind once the work settles. */
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { withTimeout } from './provider-sync.js'

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

it('settles with the work and clears its timer (a finished flush holds no process open)', async () => {
  await expect(withTimeout(Promise.resolve(7), 600_000, 'flush timeout')).resolves.toBe(7)
  expect(vi.getTimerCount()).toBe(0)
  await expect(withTimeout(Promise.reject(new Error('refused')), 600_000, 'flush timeout')).rejects.toThrow(
    'refused',
  )
  expect(vi.getTimerCount()).toBe(0)
})

it('rejects with the message when the work takes longer than the timeout', async () => {
  const waiting = withTimeout(new Promise<void>(() => undefined), 1_000, 'flush timeout')
  const outcome = expect(waiting).rejects.toThrow('flush timeout')
  await vi.advanceTimersByTimeAsync(1_000)
  await outcome
  expect(vi.getTimerCount()).toBe(0)
})
