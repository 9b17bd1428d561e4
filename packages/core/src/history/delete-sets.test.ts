import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { coversRange, rangesOf } from './delete-sets.js'

describe('coversRange', () => {
  it('says what Y.isDeleted says clock by clock, for sorted ranges that may touch', () => {
    const gapsAndLengths = fc.array(fc.tuple(fc.nat(3), fc.integer({ min: 1, max: 4 })), { maxLength: 8 })
    fc.assert(
      fc.property(gapsAndLengths, fc.nat(40), fc.nat(10), (parts, clock, len) => {
        const ds = Y.createDeleteSet()
        let at = 0
        const ranges = parts.map(([gap, n]) => {
          const r = { clock: at + gap, len: n }
          at = r.clock + n
          return r
        })
        if (ranges.length > 0) rangesOf(ds).set(7, ranges)
        let all = true
        for (let c = clock; c < clock + len; c++) all &&= Y.isDeleted(ds, Y.createID(7, c))
        expect(coversRange(ds, 7, clock, len)).toBe(all)
        expect(coversRange(ds, 8, clock, len)).toBe(len === 0)
      }),
      { numRuns: 500 },
    )
  })
})
