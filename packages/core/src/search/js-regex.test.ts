/**
 * js-regex.ts: the JavaScript translation of an RE2 pattern matches a line
 * exactly when RE2 (without case folding) does, whole words too, for random
 * patterns of the subset and random lines of characters where the two
 * engines could differ (`\r`, U+2028, non-ASCII, word characters, spaces);
 * it never matches a `\n`; patterns outside the subset, or that could
 * backtrack for long, give `undefined`; the translated ones stay fast on long
 * runs of one character.
 */
import fc from 'fast-check'
import { RE2JS } from 're2js'
import { describe, expect, it } from 'vitest'
import { hasSurrogates, jsRegexes } from './js-regex.js'
import { wordPattern } from './query.js'

const CHARS = [
  'a',
  'b',
  'A',
  'Z',
  '-',
  '-',
  '.',
  ' ',
  ' ',
  '\t',
  '\r',
  '\f',
  '\v',
  '\u2028',
  '\u00a0',
  'é',
  'ſ',
  '😀',
  '_',
  '1',
  '9',
  '1',
  ']',
  '{',
  '/',
]
const lineArb = fc.array(fc.constantFrom(...CHARS), { maxLength: 14 }).map((cs) => cs.join(''))

const atomArb = fc.constantFrom(
  'a',
  'b',
  'A',
  '1',
  ' ',
  '-',
  'é',
  '😀',
  '\\.',
  '\\-',
  '\\]',
  '\\/',
  '\\t',
  '\\r',
  '\\v',
  '\\d',
  '\\D',
  '\\w',
  '\\W',
  '\\s',
  '\\S',
  '\\b',
  '\\B',
  '.',
  '^',
  '$',
  '[ab]',
  '[^ab]',
  '[a-c]',
  '[\\d_]',
  '[^\\s]',
  '[]a]',
  '[a\\-z]',
  '[^\\d]',
  '[-a]',
  '[a-]',
  '[\\t ]',
  '[!-/]',
)
const quantArb = fc.constantFrom('', '', '', '', '*', '+', '?', '{2}', '{1,3}', '{2,}', '*?', '+?', '??')
const patternArb = fc
  .array(fc.tuple(atomArb, quantArb), { minLength: 1, maxLength: 5 })
  .map((xs) => xs.map(([a, q]) => a + q).join(''))

const re2 = (pattern: string) => {
  try {
    return RE2JS.compile(pattern)
  } catch {
    return undefined
  }
}

describe('jsRegexes', () => {
  it('match a line exactly when RE2 does, whole words too (random patterns and lines)', () => {
    let translated = 0
    fc.assert(
      fc.property(patternArb, fc.array(lineArb, { minLength: 1, maxLength: 8 }), (pattern, lines) => {
        const expected = re2(pattern)
        const js = jsRegexes(pattern)
        if (expected === undefined || js === undefined) return
        translated++
        const expectedWord = RE2JS.compile(wordPattern(pattern))
        for (const line of lines) {
          if (hasSurrogates(line)) continue // left to RE2
          js.line.lastIndex = 0
          expect(js.line.test(line), `${pattern} on ${JSON.stringify(line)}`).toBe(
            expected.matcher(line).find(),
          )
          js.word.lastIndex = 0
          expect(js.word.test(line), `word ${pattern} on ${JSON.stringify(line)}`).toBe(
            expectedWord.matcher(line).find(),
          )
        }
        // Never across lines: on the lines joined, a match lies within one of them.
        const text = lines.filter((line) => !hasSurrogates(line)).join('\n')
        for (const re of [js.line, js.word]) {
          re.lastIndex = 0
          for (let m = re.exec(text); m !== null; m = re.exec(text)) {
            expect(m[0].includes('\n')).toBe(false)
            if (m[0] === '') re.lastIndex++
          }
        }
      }),
      { numRuns: 4000 },
    )
    expect(translated).toBeGreaterThan(800)
  })

  it('translate the common patterns and leave the rest, and what could backtrack for long, to RE2', () => {
    for (const p of [
      '\\d{4}-\\d+-\\d+',
      'YFS-\\d+',
      '^#+ ',
      'a.b',
      '[A-Z][a-z]+',
      'colou?r',
      '\\bword\\b',
      '\\d+-',
    ])
      expect(jsRegexes(p), p).toBeDefined()
    for (const p of [
      '😀',
      '(?i)a',
      'a\\nb',
      '\\pL',
      '\\Qa.b\\E',
      '[[:alpha:]]',
      '(?P<x>a)',
      'x|y',
      '(ab)+',
      'a{,2}',
      '[é]',
      '\\x41',
      '\\A',
      '^*',
      '.*.*x',
      'a.*b',
      '\\d+\\d+',
      '\\d+$',
      '[ -]+z',
      '1\\d+-',
      'a{100}',
    ])
      expect(jsRegexes(p), p).toBeUndefined()
  })

  it('stay fast on a long run of one character', () => {
    const long = `${'1'.repeat(200_000)}\n${'-'.repeat(200_000)} ${'a'.repeat(200_000)}`
    for (const p of ['\\d+-', '\\d{4}-\\d+-\\d+', '-\\d+x', '^\\d+-', 'a?b', '\\w+ \\d', '\\d{1,3}-'])
      for (const re of Object.values(jsRegexes(p)!)) {
        const t = performance.now()
        re.lastIndex = 0
        re.test(long)
        expect(performance.now() - t, p).toBeLessThan(500)
      }
  })
})
