import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { utf8Length } from './encoding.js'
import { isValidName, MAX_NAME_BYTES, nameProblem, safeName } from './names.js'

// Names with the characters the rules care about, often.
const nameArb = fc.oneof(
  fc.string({ unit: fc.constantFrom('a', '.', '/', '\\', '\0', '%', 'é', '😀'), maxLength: 12 }),
  fc.string({ maxLength: 300 }),
  fc.string({ unit: 'grapheme', minLength: 60, maxLength: 140 }),
  fc.constantFrom('', '.', '..', '...', 'a'.repeat(255), 'a'.repeat(256), 'é'.repeat(128)),
)

describe('name rules', () => {
  it('refuse reserved names, separators, NUL and more than 255 bytes', () => {
    for (const bad of ['', '.', '..', 'a/b', '/', 'a\\b', 'a\0', 'a'.repeat(256), 'é'.repeat(128)])
      expect(nameProblem(bad), JSON.stringify(bad.slice(0, 10))).toBeDefined()
    for (const good of ['...', '.env', 'a b', '%2E', 'a'.repeat(255), 'é'.repeat(127), '😀'])
      expect(nameProblem(good)).toBeUndefined()
    expect(nameProblem('a'.repeat(9), 8)).toBe('name longer than 8 bytes')
    expect(nameProblem('..')).toBe("reserved file name '..'")
  })

  it('isValidName is nameProblem finding nothing, and length is counted in UTF-8 bytes (property)', () => {
    fc.assert(
      fc.property(nameArb, (name) => {
        expect(isValidName(name)).toBe(nameProblem(name) === undefined)
        const ruleBreak = name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)
        expect(isValidName(name)).toBe(!ruleBreak && utf8Length(name) <= MAX_NAME_BYTES)
      }),
      { seed: 1, numRuns: 2000 },
    )
  })

  it('a safe name is valid, leaves valid names alone, and decodes back unless cut (property)', () => {
    fc.assert(
      fc.property(nameArb, (name) => {
        const safe = safeName(name)
        expect(isValidName(safe)).toBe(true)
        if (isValidName(name)) expect(safe).toBe(name)
        else if (name !== '') {
          if (safe.endsWith('…') && !name.endsWith('…')) expect(utf8Length(safe)).toBeLessThanOrEqual(243)
          else expect(decodeURIComponent(safe)).toBe(name)
        }
        expect(safeName(name)).toBe(safe)
      }),
      { seed: 2, numRuns: 2000 },
    )
  })

  it('cuts a huge name without reading all of it, at a character boundary', () => {
    const huge = `${'😀'.repeat(100)}/${'x'.repeat(4 * 1024 * 1024)}`
    const started = performance.now()
    const safe = safeName(huge)
    expect(performance.now() - started).toBeLessThan(50)
    expect(safe).toBe(`${'😀'.repeat(60)}…`)
    expect(safeName(`${'a'.repeat(239)}é/`)).toBe(`${'a'.repeat(239)}…`)
  })
})
