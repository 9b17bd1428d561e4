import { describe, expect, it } from 'vitest'
import * as paths from './path.js'

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
})
