/** mergeText and conflictName: the merges the daemon makes itself (first-run compares). */
import { describe, expect, it } from 'vitest'
import { conflictName, mergeText } from './merge.js'

describe('mergeText', () => {
  it('combines edits of different lines', () => {
    const base = 'a\nb\nc\nd\n'
    expect(mergeText(base, 'A\nb\nc\nd\n', 'a\nb\nc\nD\n')).toEqual({ text: 'A\nb\nc\nD\n', conflict: false })
  })
  it('combines edits of lines next to each other (as core does; diff3 would make markers)', () => {
    expect(mergeText('a\nb\nc\n', 'A\nb\nc\n', 'a\nB\nc\n')).toEqual({ text: 'A\nB\nc\n', conflict: false })
    // A line deleted on one side next to a line changed on the other.
    expect(mergeText('a\nb\nc\n', 'b\nc\n', 'a\nB\nc\n')).toEqual({ text: 'B\nc\n', conflict: false })
  })
  it('keeps both sides of an overlapping change between markers', () => {
    const r = mergeText('x\n', 'disk\n', 'workspace\n')
    expect(r.conflict).toBe(true)
    expect(r.text).toBe('<<<<<<< disk\ndisk\n=======\nworkspace\n>>>>>>> workspace\n')
  })
  it('with an empty base keeps both texts (first run)', () => {
    const r = mergeText('', 'one', 'two')
    expect(r.text).toContain('one\n')
    expect(r.text).toContain('two\n')
    expect(mergeText('', 'same', 'same')).toEqual({ text: 'same', conflict: false })
  })
})

describe('conflictName', () => {
  it('adds (conflict) before the extension, counting when taken', () => {
    expect(conflictName('/a/b.png', () => false)).toBe('/a/b (conflict).png')
    const taken = new Set(['/x (conflict)', '/x (conflict 2)'])
    expect(conflictName('/x', (p) => taken.has(p))).toBe('/x (conflict 3)')
  })
})
