import fc from 'fast-check'
import { RE2JS } from 're2js'
import { describe, expect, it } from 'vitest'
import { SEARCH_WORDS, searchTextArbitrary } from '../testing/search-contract.js'
import { foldText } from './fold.js'
import { regexRequirement } from './regex-requirement.js'
import { satisfies } from './requirement.js'

describe('regexRequirement', () => {
  it('keeps the substrings every match needs', () => {
    expect(regexRequirement('hello')).toBe('hello')
    expect(regexRequirement('Hello.*World')).toEqual({ and: ['hello', 'world'] })
    expect(regexRequirement('colou?r')).toEqual({ or: ['colour', 'color'] })
    expect(regexRequirement('(foo|bar)baz')).toEqual({ or: ['foobaz', 'barbaz'] })
    expect(regexRequirement('\\bfunc\\s+\\w+')).toBe('func')
    expect(regexRequirement('abc+def')).toEqual({ and: ['abc', 'cdef'] })
    expect(regexRequirement('[Tt]he')).toBe('the')
    expect(regexRequirement('\\Qa.b.c\\E')).toBe('a.b.c')
    expect(regexRequirement('x\\x41yz')).toBe('xayz')
  })

  it('requires nothing when it cannot tell', () => {
    expect(regexRequirement('.')).toBe(true)
    expect(regexRequirement('\\d+')).toBe(true)
    expect(regexRequirement('a|bcd')).toBe(true)
  })

  it('never asks for more than a matching line has (random regexes, lines and case modes)', () => {
    const atom = fc.oneof(
      fc.constantFrom(...SEARCH_WORDS).map((w) => RE2JS.quote(w)),
      fc.constantFrom(
        '.',
        '\\w',
        '\\d',
        '\\s',
        '[a-c]',
        '[^x]',
        '\\b',
        '^',
        '$',
        'ſ',
        'K',
        'Σ',
        '(?i)',
        '\\x{df}',
      ),
    )
    const node: fc.Arbitrary<string> = fc.letrec<{ re: string }>((tie) => ({
      re: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        atom,
        fc.tuple(tie('re'), tie('re')).map(([a, b]) => a + b),
        fc.tuple(tie('re'), tie('re')).map(([a, b]) => `(?:${a}|${b})`),
        fc
          .tuple(tie('re'), fc.constantFrom('*', '+', '?', '{2}', '{0,3}', '+?'))
          .map(([a, q]) => `(?:${a})${q}`),
        tie('re').map((a) => `(${a})`),
      ),
    })).re
    fc.assert(
      fc.property(node, searchTextArbitrary, fc.boolean(), (pattern, text, insensitive) => {
        let re: RE2JS
        try {
          re = RE2JS.compile(pattern, insensitive ? RE2JS.CASE_INSENSITIVE : 0)
        } catch {
          return
        }
        const req = regexRequirement(pattern)
        for (const line of text.split('\n'))
          if (re.test(line)) expect(satisfies(foldText(line), req)).toBe(true)
      }),
      { numRuns: 2000 },
    )
  })
})
