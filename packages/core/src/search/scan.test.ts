/**
 * scan.ts: `hasMatch` (the early-exit check search runs on candidates a
 * page does not need in full) agrees with a full `scanText` on random texts
 * and requests of the contract vocabulary, in every case mode.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { searchRequestArbitrary, searchTextArbitrary } from '../testing/search-contract.js'
import { foldText } from './fold.js'
import { hasSurrogates } from './js-regex.js'
import { type CompiledQuery, compileQuery, isAscii } from './query.js'
import { hasMatch, newlineOffsets, nonAsciiOffsets, type ScanText, scanText } from './scan.js'

function scanTextOf(text: string, known: boolean): ScanText {
  const folded = foldText(text)
  const doc: ScanText = { text }
  if (folded.length === text.length) doc.folded = folded
  if (known) {
    doc.ascii = isAscii(text)
    doc.newlines = newlineOffsets(text)
    doc.nonAscii = nonAsciiOffsets(text)
    doc.surrogates = hasSurrogates(text)
  }
  return doc
}

describe('hasMatch', () => {
  it('is true exactly when scanText finds a matching line', () => {
    fc.assert(
      fc.property(
        fc.array(searchTextArbitrary, { minLength: 1, maxLength: 3 }).map((t) => t.join('')),
        searchRequestArbitrary,
        fc.boolean(),
        (text, request, known) => {
          let q: CompiledQuery
          try {
            q = compileQuery(request.query, request.regex === true, request.caseSensitive === true)
          } catch {
            return // an invalid query (half a surrogate pair): nothing to scan with
          }
          const doc = scanTextOf(text, known)
          expect(hasMatch(q, doc)).toBe(scanText(q, doc, 1) !== undefined)
        },
      ),
      { numRuns: 2000 },
    )
  })

  it('finds a match in a line whose other characters need RE2', () => {
    const q = compileQuery('stop')
    expect(hasMatch(q, scanTextOf('café stop', true))).toBe(true)
    expect(hasMatch(q, scanTextOf('café ſtop', true))).toBe(true)
    expect(hasMatch(compileQuery('istanbul'), scanTextOf('ıstanbul', true))).toBe(false)
    expect(hasMatch(compileQuery('kelvin'), scanTextOf('\u212aelvin', true))).toBe(true)
  })
})

describe('nonAsciiOffsets', () => {
  it('lists every code unit ≥ 0x80, in order', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), searchTextArbitrary, (a, b) => {
        for (const text of [a, b, a + b]) {
          const naive: number[] = []
          for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) >= 0x80) naive.push(i)
          expect([...nonAsciiOffsets(text)]).toEqual(naive)
        }
      }),
      { numRuns: 500 },
    )
  })
})
