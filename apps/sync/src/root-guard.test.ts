/** root-guard: every refusal reason, with real folders for the symlinked-parent check. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { realpath } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  assertParentInside,
  isInside,
  RootGuardError,
  symlinkEscapeReason,
  toHostPath,
  toVirtualPath,
} from './root-guard.js'

const base = mkdtempSync(join(tmpdir(), 'yfs-guard-'))
const root = join(base, 'root')
const outside = join(base, 'outside')
mkdirSync(root)
mkdirSync(outside)
afterAll(() => rmSync(base, { recursive: true, force: true }))

describe('isInside', () => {
  it('is true below the root, also for names that start with dots, and false above it', () => {
    expect(isInside(root, root)).toBe(true)
    expect(isInside(root, join(root, '..notes'))).toBe(true)
    expect(isInside(root, join(root, '..%2Fescape.txt'))).toBe(true)
    expect(isInside(root, join(root, 'a', '...'))).toBe(true)
    expect(isInside(root, base)).toBe(false)
    expect(isInside(root, join(outside, 'x'))).toBe(false)
  })
})

describe('toHostPath', () => {
  it('maps virtual paths inside the root and back', () => {
    expect(toHostPath(root, '/a/b.txt')).toBe(join(root, 'a', 'b.txt'))
    expect(toVirtualPath(root, join(root, 'a', 'b.txt'))).toBe('/a/b.txt')
  })
  it.each(['/..', '/a/../../x', '/a/./b', '/a\\b', '/a\0b', `/${'x'.repeat(256)}`])('refuses %j', (path) => {
    expect(() => toHostPath(root, path)).toThrow(RootGuardError)
  })
})

describe('assertParentInside', () => {
  it('refuses a parent folder that is a symlink to outside the root', async () => {
    symlinkSync(outside, join(root, 'out'))
    const real = await realpath(root)
    await expect(assertParentInside(real, join(root, 'out', 'x.txt'), '/out/x.txt')).rejects.toThrow(
      RootGuardError,
    )
    await expect(
      assertParentInside(real, join(root, 'new', 'deep', 'x.txt'), '/new/deep/x.txt'),
    ).resolves.toBeUndefined()
  })
})

describe('symlinkEscapeReason', () => {
  it('allows relative targets inside, refuses absolute and climbing ones', () => {
    expect(symlinkEscapeReason(root, join(root, 'a', 'l'), '../b')).toBeUndefined()
    expect(symlinkEscapeReason(root, join(root, 'a', 'l'), '../../b')).toMatch(/outside/)
    expect(symlinkEscapeReason(root, join(root, 'l'), '/etc/passwd')).toMatch(/absolute/)
  })
})
