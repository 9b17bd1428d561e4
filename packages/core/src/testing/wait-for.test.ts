import { describe, expect, it } from 'vitest'
import { waitFor } from './wait-for.js'

describe('waitFor', () => {
  it('resolves with the first truthy value of the check', async () => {
    let n = 0
    await expect(waitFor(() => (++n >= 3 ? n : 0), 'three checks')).resolves.toBe(3)
  })

  it('times out naming what it waited for and the last error the check threw', async () => {
    const waiting = waitFor(
      () => {
        throw new Error('not there yet')
      },
      () => 'a file',
      { timeoutMs: 30, intervalMs: 5 },
    )
    await expect(waiting).rejects.toThrow('timed out waiting for a file: Error: not there yet')
  })
})
