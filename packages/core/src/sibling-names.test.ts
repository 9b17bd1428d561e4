import { describe, expect, it } from 'vitest'
import { asFileId } from './ids.js'
import { disambiguateNames, suffixedName } from './sibling-names.js'

const s = (id: string, name: string, createdAt: number) => ({ id: asFileId(id), name, createdAt })

describe('sibling names', () => {
  it('suffixes before the extension', () => {
    expect(suffixedName('a.md', 1)).toBe('a (1).md')
    expect(suffixedName('Makefile', 2)).toBe('Makefile (2)')
    expect(suffixedName('.env', 1)).toBe('.env (1)')
    expect(suffixedName('x.tar.gz', 1)).toBe('x.tar (1).gz')
  })
  it('the earliest keeps the name, ties broken by id, whatever the input order', () => {
    const rows = [s('c', 'a.md', 5), s('b', 'a.md', 1), s('a', 'a.md', 5), s('d', 'other', 0)]
    const expected = new Map([
      ['b', 'a.md'],
      ['a', 'a (1).md'],
      ['c', 'a (2).md'],
      ['d', 'other'],
    ])
    expect(disambiguateNames(rows)).toEqual(expected)
    expect(disambiguateNames([...rows].reverse())).toEqual(expected)
  })
  it('never collides with a real sibling named like a suffix', () => {
    const names = disambiguateNames([s('x', 'a.md', 1), s('y', 'a.md', 2), s('z', 'a (1).md', 3)])
    expect(names.get(asFileId('z'))).toBe('a (1).md')
    expect(names.get(asFileId('y'))).toBe('a (2).md')
    expect(new Set(names.values()).size).toBe(3)
  })
})
