/**
 * The vfs:/// boundary: normalisation never leaves the root, is idempotent,
 * and every rejected form's message carries a URL that is then accepted.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ToolError } from './tool-error.js'
import { fromVfsPath, toVfsPath, vfsMessage } from './vfs-path.js'

const rejection = (input: string): ToolError => {
  try {
    fromVfsPath(input)
  } catch (error) {
    if (error instanceof ToolError) return error
    throw error
  }
  throw new Error(`'${input}' was accepted`)
}

describe('fromVfsPath', () => {
  it('normalises dots, doubled slashes and backslashes', () => {
    expect(fromVfsPath('vfs:///')).toBe('/')
    expect(fromVfsPath('vfs:///a//b/./c/')).toBe('/a/b/c')
    expect(fromVfsPath('vfs:///a/b/../c')).toBe('/a/c')
    expect(fromVfsPath('vfs:///a\\b\\c.txt')).toBe('/a/b/c.txt')
    expect(fromVfsPath('VFS:///Upper/Case')).toBe('/Upper/Case')
    expect(fromVfsPath('vfs:///héllo wörld/😀.md')).toBe('/héllo wörld/😀.md')
  })
  it('keeps .. at the root', () => {
    expect(fromVfsPath('vfs:///..')).toBe('/')
    expect(fromVfsPath('vfs:///../../etc/passwd')).toBe('/etc/passwd')
    expect(fromVfsPath('vfs:///a/../../..')).toBe('/')
    expect(fromVfsPath('vfs:///..\\..\\x')).toBe('/x')
  })
  it('rejects bare, relative and host forms with the corrected URL', () => {
    expect(rejection('/src/a.ts').message).toContain("use 'vfs:///src/a.ts'")
    expect(rejection('src/a.ts').message).toContain("use 'vfs:///src/a.ts'")
    expect(rejection('./src/../a.ts').message).toContain("use 'vfs:///a.ts'")
    expect(rejection('vfs://host/a.ts').message).toContain("use 'vfs:///host/a.ts'")
    expect(rejection('file:///a.ts').code).toBe('EINVAL')
    expect(rejection('').code).toBe('EINVAL')
  })
  it('rejects NUL bytes anywhere', () => {
    expect(rejection('vfs:///a\0b').message).toContain('NUL')
    expect(rejection('\0').message).toContain('NUL')
  })
})

describe('vfsMessage', () => {
  it('rewrites quoted POSIX paths of errno messages', () => {
    expect(vfsMessage("ENOENT: no such file or directory, rename '/a' -> '/b/c'")).toBe(
      "ENOENT: no such file or directory, rename 'vfs:///a' -> 'vfs:///b/c'",
    )
    expect(vfsMessage("EINVAL: invalid argument, 'not a path'")).toBe(
      "EINVAL: invalid argument, 'not a path'",
    )
  })
})

describe('properties', () => {
  const segment = fc.constantFrom('a', 'b', '.', '..', '', ' ', 'é', '\\', '...')
  const rawPath = fc.array(segment, { maxLength: 12 }).map((s) => s.join('/'))

  it('a normalised path is absolute, has no empty, . or .. segments, and is a fixed point', () => {
    fc.assert(
      fc.property(rawPath, (raw) => {
        const p = fromVfsPath(`vfs:///${raw}`)
        expect(p.startsWith('/')).toBe(true)
        if (p !== '/') for (const s of p.slice(1).split('/')) expect(['', '.', '..']).not.toContain(s)
        expect(p.includes('\\')).toBe(false)
        expect(fromVfsPath(toVfsPath(p))).toBe(p)
      }),
      { seed: 6, numRuns: 2000 },
    )
  })

  it('.. segments never climb above the root: a prefix of ..s changes nothing', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), rawPath, (ups, raw) => {
        expect(fromVfsPath(`vfs:///${'../'.repeat(ups)}${raw}`)).toBe(fromVfsPath(`vfs:///${raw}`))
      }),
      { seed: 6, numRuns: 1000 },
    )
  })

  it('the URL suggested for a rejected path is accepted and names the same place', () => {
    fc.assert(
      fc.property(rawPath, fc.boolean(), (raw, absolute) => {
        const input = absolute ? `/${raw}` : raw
        const suggested = /use '(vfs:\/\/\/[^']*)'/.exec(rejection(input).message)?.[1]
        expect(suggested).toBeDefined()
        expect(fromVfsPath(suggested!)).toBe(fromVfsPath(`vfs:///${raw}`))
      }),
      { seed: 6, numRuns: 1000 },
    )
  })
})
