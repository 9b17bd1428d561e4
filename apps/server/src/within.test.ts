import { describe, expect, it } from 'vitest'
import { within } from './within.js'

describe('within', () => {
  it("gives the promise's value when it comes in time, and undefined when it does not", async () => {
    expect(await within(Promise.resolve('now'), 1000)).toBe('now')
    const late = new Promise((resolve) => setTimeout(() => resolve('late'), 200))
    const start = performance.now()
    expect(await within(late, 20)).toBeUndefined()
    expect(performance.now() - start).toBeLessThan(150)
  })

  it("passes the promise's rejection on", async () => {
    await expect(within(Promise.reject(new Error('refused')), 1000)).rejects.toThrow('refused')
  })
})
