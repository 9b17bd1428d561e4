import fc from 'fast-check'
import { simpleDiffString } from 'lib0/diff'
import { describe, expect, it } from 'vitest'
import { commonPrefixLength, commonSuffixLength, diffStrings } from './common-affix.js'

// Units that stress the edges: surrogate pairs (and lone halves), CRLF, line ends, ASCII.
const unit = fc.constantFrom('a', 'b', '\n', '\r\n', '😀', '😁', '\ud83d', '\ude00', 'é')
const piece = (maxLength: number) => fc.string({ unit, maxLength, size: 'max' })
// A shared prefix and suffix long enough to cross the 1024- and 32-character chunks.
const related = fc
  .tuple(piece(1500), piece(8), piece(8), piece(1500))
  .map(([pre, x, y, suf]) => [pre + x + suf, pre + y + suf] as const)

const naivePrefix = (a: string, b: string) => {
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  return i
}
const naiveSuffix = (a: string, b: string, max: number) => {
  let n = 0
  while (n < max && n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++
  return n
}

describe('commonPrefixLength / commonSuffixLength', () => {
  it('equal a character-by-character scan', () => {
    fc.assert(
      fc.property(related, fc.nat(4000), ([a, b], max) => {
        expect(commonPrefixLength(a, b)).toBe(naivePrefix(a, b))
        expect(commonSuffixLength(a, b)).toBe(naiveSuffix(a, b, Number.POSITIVE_INFINITY))
        expect(commonSuffixLength(a, b, max)).toBe(naiveSuffix(a, b, max))
      }),
      { numRuns: 300 },
    )
  })

  it('handle empty strings, equal strings and one string a prefix of the other', () => {
    const long = 'x'.repeat(3000)
    expect(commonPrefixLength('', long)).toBe(0)
    expect(commonPrefixLength(long, long)).toBe(3000)
    expect(commonPrefixLength(long, `${long}y`)).toBe(3000)
    expect(commonSuffixLength(long, `y${long}`)).toBe(3000)
    expect(commonSuffixLength(long, long, 1000)).toBe(1000)
    expect(commonSuffixLength(long, long, -1)).toBe(0)
  })
})

describe('diffStrings', () => {
  it('gives what lib0 simpleDiffString gives, and the splice turns a into b', () => {
    fc.assert(
      fc.property(fc.oneof(related, fc.tuple(piece(40), piece(40))), ([a, b]) => {
        const d = diffStrings(a, b)
        expect(d).toEqual(simpleDiffString(a, b))
        expect(a.slice(0, d.index) + d.insert + a.slice(d.index + d.remove)).toBe(b)
      }),
      { numRuns: 500 },
    )
  })

  it('never splits a surrogate pair', () => {
    // Only the second half of the pair differs: the splice takes the whole pair.
    const a = `${'x'.repeat(2000)}😀${'y'.repeat(2000)}`
    const b = `${'x'.repeat(2000)}😁${'y'.repeat(2000)}`
    expect(diffStrings(a, b)).toEqual({ index: 2000, remove: 2, insert: '😁' })
  })
})
