/**
 * TrigramIndex: candidates and their bounds (matching lines at most) never
 * lose a document or undercount its lines, whatever the texts, requirements
 * and re-indexing; counts saturate without breaking the bound.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SEARCH_WORDS, searchTextArbitrary } from '../testing/search-contract.js'
import { foldText } from './fold.js'
import { allOf, anyOf, type Requirement, satisfies } from './requirement.js'
import { MAX_LINE_COUNT, TrigramIndex, UNBOUNDED } from './trigram-index.js'

const linesSatisfying = (folded: string, req: Requirement) =>
  folded.split('\n').filter((line) => satisfies(line, req)).length

const stringReq = fc.oneof(
  fc.constantFrom(...SEARCH_WORDS).map(foldText),
  fc.constantFrom(...SEARCH_WORDS).map((w) => foldText(w).slice(0, 3)),
  fc.constantFrom('he ', 'the\nthe', 'a\nb', ', ', 'xyz'),
)
const requirementArb: fc.Arbitrary<Requirement> = fc.letrec<{ req: Requirement }>((tie) => ({
  req: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    stringReq,
    fc.array(tie('req'), { minLength: 1, maxLength: 3 }).map(allOf),
    fc.array(tie('req'), { minLength: 1, maxLength: 3 }).map(anyOf),
  ),
})).req

/** `index` answers as an index of `docs` built from scratch would: the same documents and bounds per trigram. */
function expectAsIndexedAgain(index: TrigramIndex<number>, docs: readonly string[]): void {
  const fresh = new TrigramIndex<number>()
  for (const [key, folded] of docs.entries()) fresh.add(key, folded)
  const trigrams = new Set<string>()
  for (const folded of docs) for (let i = 0; i + 2 < folded.length; i++) trigrams.add(folded.slice(i, i + 3))
  const byKey = (found: { keys: number[]; bounds: number[] } | undefined) =>
    new Map(found?.keys.map((key, i) => [key, found.bounds[i]]))
  for (const t of trigrams)
    expect(byKey(index.bounded(t)), JSON.stringify(t)).toEqual(byKey(fresh.bounded(t)))
}

describe('TrigramIndex', () => {
  it('bounds every candidate by the lines that satisfy the requirement, also after re-indexing', () => {
    fc.assert(
      fc.property(
        fc.array(searchTextArbitrary, { minLength: 1, maxLength: 12 }),
        fc.array(fc.tuple(fc.nat(), searchTextArbitrary), { maxLength: 6 }),
        fc.array(requirementArb, { minLength: 1, maxLength: 5 }),
        (texts, edits, reqs) => {
          const index = new TrigramIndex<number>()
          const docs = texts.map(foldText)
          for (const [key, folded] of docs.entries()) index.add(key, folded)
          const check = () => {
            for (const req of reqs) {
              const found = index.bounded(req)
              expect(found?.keys).toEqual(index.candidates(req))
              docs.forEach((folded, key) => {
                const lines = linesSatisfying(folded, req)
                const at = found === undefined ? -1 : found.keys.indexOf(key)
                if (lines > 0) expect(found === undefined || at >= 0).toBe(true)
                if (found !== undefined && at >= 0) expect(found.bounds[at]!).toBeGreaterThanOrEqual(lines)
              })
            }
          }
          check()
          for (const [pick, text] of edits) docs[pick % docs.length] = foldText(text)
          for (const [pick] of edits) index.add(pick % docs.length, docs[pick % docs.length]!)
          check()
          index.rebuild(docs.map((folded, key) => [key, folded]))
          check()
        },
      ),
      { numRuns: 100 },
    )
  })

  it('updates a document in place exactly as indexing it again would (random edits of its lines)', () => {
    const edit = fc.record({
      pick: fc.nat(),
      at: fc.double({ min: 0, max: 1, noNaN: true }),
      cut: fc.nat({ max: 30 }),
      insert: fc.oneof(searchTextArbitrary, fc.constantFrom('', '\n', 'x', 'the\n', '\nthe', 'ſ', 'İ')),
    })
    fc.assert(
      fc.property(
        fc.array(searchTextArbitrary, { minLength: 1, maxLength: 6 }),
        fc.array(edit, { minLength: 1, maxLength: 8 }),
        (texts, edits) => {
          const index = new TrigramIndex<number>()
          const docs = texts.map(foldText)
          for (const [key, folded] of docs.entries()) index.add(key, folded)
          for (const { pick, at, cut, insert } of edits) {
            const key = pick % docs.length
            const before = docs[key]!
            const start = Math.floor(at * before.length)
            const after = foldText(before.slice(0, start) + insert + before.slice(start + cut))
            index.update(key, before, after)
            docs[key] = after
          }
          expectAsIndexedAgain(index, docs)
        },
      ),
      { numRuns: 100 },
    )
  })

  it('updates edits at the edges of lines and texts in place exactly', () => {
    const cases = [
      ['\nab\ncd', '\nax\ncd'],
      ['\n\nab', '\n\nax'],
      ['ab', 'abc'],
      ['', 'abc'],
      ['abc', ''],
      ['a\nb\nc', 'a\nc'],
      ['x\n\n\ny', 'x\n\ny'],
      ['the\nthe', 'the the'],
      ['abc\ndef', 'abc\ndxf'],
      ['abc\ndef\n', 'abc\ndef\n\n'],
      ['one two\nthree', 'one two\nthree\nfour'],
      // Longer than the chunks compared at once: the edit in the middle, near a chunk's end, at the ends.
      [
        `${'alpha beta\n'.repeat(100)}x${'gamma\n'.repeat(100)}`,
        `${'alpha beta\n'.repeat(100)}yz${'gamma\n'.repeat(100)}`,
      ],
      [`${'a'.repeat(255)}bcd${'e'.repeat(600)}`, `${'a'.repeat(256)}cd${'e'.repeat(600)}`],
      [`${'the\n'.repeat(300)}`, `${'the\n'.repeat(300)}the`],
      [`${'the\n'.repeat(300)}`, `x${'the\n'.repeat(300)}`],
    ]
    for (const [before, after] of cases) {
      const index = new TrigramIndex<number>()
      const docs = ['other\ntext', before!, 'abc def\nthe']
      for (const [key, folded] of docs.entries()) index.add(key, folded)
      index.update(1, before!, after!)
      docs[1] = after!
      expectAsIndexedAgain(index, docs)
    }
  })

  it('counts the lines that hold a trigram, exactly below the cap', () => {
    const index = new TrigramIndex<string>()
    index.add('a', 'the cat\nthe the\nno\nathens')
    index.add('b', 'other')
    expect(index.bounded('the')).toEqual({ keys: ['a', 'b'], bounds: [3, 1] })
    expect(index.bounded('athens')).toEqual({ keys: ['a'], bounds: [1] })
    expect(index.bounded({ or: ['cat', 'other'] })).toEqual({ keys: ['a', 'b'], bounds: [1, 1] })
    expect(index.bounded({ or: ['the', 'cat'] })).toEqual({ keys: ['a', 'b'], bounds: [4, 1] })
    expect(index.bounded({ and: ['the', 'cat'] })).toEqual({ keys: ['a'], bounds: [1] })
    expect(index.bounded(true)).toBeUndefined()
  })

  it('saturates a count at the cap (the bound is then unknown)', () => {
    const index = new TrigramIndex<string>()
    index.add('many', Array.from({ length: MAX_LINE_COUNT + 5 }, () => 'the').join('\n'))
    index.add('few', Array.from({ length: MAX_LINE_COUNT - 1 }, () => 'the').join('\n'))
    expect(index.bounded('the')).toEqual({ keys: ['many', 'few'], bounds: [UNBOUNDED, MAX_LINE_COUNT - 1] })
  })
})
