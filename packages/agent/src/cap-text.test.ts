/**
 * Output caps: the note gives true counts, and capping twice with the same
 * budget changes nothing (the bash worker cuts before the tool does).
 */
import { describe, expect, it } from 'vitest'
import { capText } from './cap-text.js'

describe('capText', () => {
  it('cuts with a note of how much was cut, and leaves short text alone', () => {
    expect(capText('abc', 3)).toBe('abc')
    expect(capText('abcdef', 2)).toBe('ab\n… [output cut: 4 of 6 characters not shown]')
  })

  it('is idempotent: a cut text keeps its note and counts at the same or a larger budget', () => {
    const once = capText('x'.repeat(1000), 10)
    expect(capText(once, 10)).toBe(once)
    expect(capText(once, 500)).toBe(once)
    // A smaller budget cuts again (counting what it was given).
    expect(capText(once, 5)).toMatch(/^x{5}\n… \[output cut: \d+ of \d+ characters not shown\]$/)
    // Text that merely ends like a note past the budget is cut as any text.
    const fake = `${'y'.repeat(50)}\n… [output cut: 1 of 2 characters not shown]`
    expect(capText(fake, 10)).toBe(
      `${'y'.repeat(10)}\n… [output cut: ${fake.length - 10} of ${fake.length} characters not shown]`,
    )
  })
})
