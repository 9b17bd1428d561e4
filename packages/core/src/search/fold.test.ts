import { RE2JS } from 're2js'
import { describe, expect, it } from 'vitest'
import { foldText } from './fold.js'

describe('foldText', () => {
  it('lowers ASCII and folds case classes to one representative', () => {
    expect(foldText('Hello WORLD')).toBe('hello world')
    expect(foldText('ſ')).toBe(foldText('S'))
    expect(foldText('\u212a')).toBe(foldText('k'))
    expect(foldText('ς')).toBe(foldText('Σ'))
  })

  it('keeps substrings: a.includes(b) implies fold(a).includes(fold(b))', () => {
    for (const [a, b] of [
      ['ΟΔΟΣ ΟΔΟΣ', 'ΟΔΟΣ'],
      ['xİy', 'İy'],
      ['Straße', 'aße'],
    ] as const)
      expect(foldText(a).includes(foldText(b))).toBe(true)
  })

  it('folds alike every pair of BMP characters RE2 equates under (?i)', () => {
    const cased: string[] = []
    for (let u = 0; u < 0x10000; u++) {
      if (u >= 0xd800 && u <= 0xdfff) continue
      const c = String.fromCharCode(u)
      if (c.toLowerCase() !== c || c.toUpperCase() !== c) cased.push(c)
    }
    const all = cased.join('')
    const problems: string[] = []
    for (const c of cased) {
      const m = RE2JS.compile(RE2JS.quote(c), RE2JS.CASE_INSENSITIVE).matcher(all)
      while (m.find()) {
        const d = m.group()!
        if (foldText(d) !== foldText(c))
          problems.push(`${c.codePointAt(0)!.toString(16)}~${d.codePointAt(0)!.toString(16)}`)
      }
    }
    expect(problems).toEqual([])
  }, 60_000)
})
