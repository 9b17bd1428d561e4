import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as paths from './path.js'

// The split-and-join normalisation, as it was before the fast path for paths already normal.
function referenceNormalize(path: string): string {
  const out: string[] = []
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') out.pop()
    else out.push(part)
  }
  return `/${out.join('/')}`
}

describe('path', () => {
  it('normalises like just-bash', () => {
    expect(paths.normalize('')).toBe('/')
    expect(paths.normalize('a//b/./c/')).toBe('/a/b/c')
    expect(paths.normalize('/../../x')).toBe('/x')
    expect(paths.normalize('/a/b/../..')).toBe('/')
  })
  it('resolves against a base', () => {
    expect(paths.resolve('/a/b', '../c')).toBe('/a/c')
    expect(paths.resolve('/a', '/abs')).toBe('/abs')
    expect(paths.resolve('/', 'x')).toBe('/x')
  })
  it('splits and joins', () => {
    expect(paths.dirname('/a/b')).toBe('/a')
    expect(paths.dirname('/a')).toBe('/')
    expect(paths.basename('/a/b.txt')).toBe('b.txt')
    expect(paths.join('/', 'a')).toBe('/a')
    expect(paths.split('/a/b')).toEqual(['a', 'b'])
    expect(paths.split('/')).toEqual([])
    expect(paths.isSameOrDescendant('/a', '/a/b')).toBe(true)
    expect(paths.isSameOrDescendant('/a', '/ab')).toBe(false)
  })
  it('normalises any path like the split-and-join reference, and counts its components', () => {
    // A tiny alphabet, so slashes, dots and dot-dots meet often.
    const path = fc.array(fc.constantFrom('/', '.', 'a', 'b', '..'), { maxLength: 12 }).map((p) => p.join(''))
    fc.assert(
      fc.property(path, (p) => {
        const normal = paths.normalize(p)
        expect(normal).toBe(referenceNormalize(p))
        expect(paths.normalize(normal)).toBe(normal)
        expect(paths.depth(normal)).toBe(paths.split(normal).length)
      }),
      { seed: 15, numRuns: 2000 },
    )
  })
})
