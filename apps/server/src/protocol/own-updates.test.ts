import { describe, expect, it } from 'vitest'
import { createOwnUpdates } from './own-updates.js'

const bytes = (...values: number[]) => new Uint8Array(values)

describe('own updates (what a socket’s client sent, until it comes back)', () => {
  it('an update comes back once: the same bytes on the same document, each sent copy once', () => {
    const own = createOwnUpdates()
    own.sent('w', bytes(1, 2, 3))
    own.sent('w', bytes(1, 2, 3))
    expect(own.isEcho('w/f', bytes(1, 2, 3))).toBe(false)
    expect(own.isEcho('w', bytes(1, 2, 4))).toBe(false)
    expect(own.isEcho('w', bytes(1, 2))).toBe(false)
    expect(own.isEcho('w', bytes(1, 2, 3))).toBe(true)
    expect(own.isEcho('w', bytes(1, 2, 3))).toBe(true)
    expect(own.isEcho('w', bytes(1, 2, 3))).toBe(false)
  })

  it('keeps a copy: the frame the update came in may be reused', () => {
    const own = createOwnUpdates()
    const frame = bytes(9, 1, 2, 3)
    own.sent('w', frame.subarray(1))
    frame.fill(0)
    expect(own.isEcho('w', bytes(1, 2, 3))).toBe(true)
  })

  it('nothing of a document whose connection closed or authenticates again is an echo', () => {
    const own = createOwnUpdates()
    own.sent('w', bytes(1))
    own.sent('w/f', bytes(1))
    own.forget('w')
    expect(own.isEcho('w', bytes(1))).toBe(false)
    expect(own.isEcho('w/f', bytes(1))).toBe(true)
  })

  it('bounded: large updates are not kept, and the oldest go first (count and bytes)', () => {
    const own = createOwnUpdates()
    own.sent('w', new Uint8Array(64 * 1024 + 1))
    expect(own.isEcho('w', new Uint8Array(64 * 1024 + 1))).toBe(false)
    for (let i = 0; i < 300; i++) own.sent('w', bytes(i >> 8, i & 255))
    expect(own.isEcho('w', bytes(0, 0))).toBe(false)
    expect(own.isEcho('w', bytes(0, 43))).toBe(false)
    expect(own.isEcho('w', bytes(0, 44))).toBe(true)
    expect(own.isEcho('w', bytes(1, 43))).toBe(true)
    // 1 MiB in all: 20 updates of 60 KiB keep the last 17.
    const big = (k: number) => new Uint8Array(60 * 1024).fill(k)
    for (let k = 0; k < 20; k++) own.sent('b', big(k))
    expect(own.isEcho('b', big(2))).toBe(false)
    expect(own.isEcho('b', big(3))).toBe(true)
    expect(own.isEcho('b', big(19))).toBe(true)
  })
})
