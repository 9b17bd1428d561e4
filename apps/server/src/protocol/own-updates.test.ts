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

  it('keeps updates of any size (a batch’s rows): a 9 MB update comes back once, one byte off is not an echo', () => {
    const own = createOwnUpdates()
    const big = new Uint8Array(9 << 20).map((_, i) => (i * 31) & 255)
    own.sent('w', big)
    const other = big.slice()
    other[other.length >> 1]! ^= 1
    expect(own.isEcho('w', other)).toBe(false)
    expect(own.isEcho('w', big.slice())).toBe(true)
    expect(own.isEcho('w', big)).toBe(false)
  })

  it('bounded: the oldest go first once 256 are kept', () => {
    const own = createOwnUpdates()
    for (let i = 0; i < 300; i++) own.sent('w', bytes(i >> 8, i & 255))
    expect(own.isEcho('w', bytes(0, 0))).toBe(false)
    expect(own.isEcho('w', bytes(0, 43))).toBe(false)
    expect(own.isEcho('w', bytes(0, 44))).toBe(true)
    expect(own.isEcho('w', bytes(1, 43))).toBe(true)
  })
})
