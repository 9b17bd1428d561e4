import { describe, expect, it } from 'vitest'
import { eexist, enoent, FsError, isFsError } from './errors.js'
import { validateName } from './fs/names.js'

describe('errors', () => {
  it('copy Node messages and keep the code, syscall and paths', () => {
    const e = enoent('open', '/a')
    expect(e.message).toBe("ENOENT: no such file or directory, open '/a'")
    expect([e.code, e.syscall, e.path]).toEqual(['ENOENT', 'open', '/a'])
    expect(new FsError('EEXIST', 'rename', '/a', '/b').message).toBe(
      "EEXIST: file already exists, rename '/a' -> '/b'",
    )
    expect(isFsError(eexist('mkdir', '/x'), 'EEXIST')).toBe(true)
    expect(isFsError(new Error('EEXIST: x'), 'EEXIST')).toBe(false)
  })
  it('validateName rejects what cannot be one path component, with EINVAL and the path', () => {
    for (const bad of ['', '.', '..', 'a/b', 'a\\b', 'a\0b']) {
      try {
        validateName(bad, 'open', `/dir/${bad}`)
        expect.unreachable(bad)
      } catch (error) {
        expect(isFsError(error, 'EINVAL')).toBe(true)
        expect((error as FsError).path).toBe(`/dir/${bad}`)
      }
    }
    expect(() => validateName('ok name (1).md', 'open', '/x')).not.toThrow()
  })
})
