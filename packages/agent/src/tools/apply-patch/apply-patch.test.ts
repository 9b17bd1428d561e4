/**
 * apply_patch: multi-file patches, all or nothing, and what it refuses.
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('apply_patch', () => {
  it('applies a multi-file patch (modify, create, delete) all or nothing', async () => {
    const { ok, err, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///a.txt', content: 'one\ntwo\nthree\n' })
    await ok('write_file', { path: 'vfs:///gone.txt', content: 'bye\n' })
    const patch = [
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      '--- /dev/null',
      '+++ b/new/dir/c.txt',
      '@@ -0,0 +1,1 @@',
      '+created',
      '--- a/gone.txt',
      '+++ /dev/null',
      '@@ -1,1 +0,0 @@',
      '-bye',
      '',
    ].join('\n')
    const r = await ok('apply_patch', { patch })
    expect((r.structuredContent.files as { status: string }[]).map((f) => f.status)).toEqual([
      'modified',
      'created',
      'deleted',
    ])
    expect(await fs.readFile('/a.txt')).toBe('one\nTWO\nthree\n')
    expect(await fs.readFile('/new/dir/c.txt')).toBe('created\n')
    expect(await fs.exists('/gone.txt')).toBe(false)
    // A patch whose second file does not apply changes nothing at all.
    const bad = patch
      .replace('-two', '-not there')
      .replace('--- /dev/null\n+++ b/new/dir/c.txt', '--- /dev/null\n+++ b/other.txt')
    const before = fs.index.allPaths()
    expect((await err('apply_patch', { patch: bad })).code).toBe('ENOMATCH')
    expect(fs.index.allPaths()).toEqual(before)
    expect((await err('apply_patch', { patch: 'not a diff' })).code).toBe('EINVAL')
  })

  it('refuses to create or rename onto an existing file, and chains two patches of one file', async () => {
    const { ok, err, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///a.txt', content: 'one\n' })
    await ok('write_file', { path: 'vfs:///b.txt', content: 'bee\n' })
    const create = ['--- /dev/null', '+++ b/a.txt', '@@ -0,0 +1,1 @@', '+new', ''].join('\n')
    const e = await err('apply_patch', { patch: create })
    expect(e).toMatchObject({ code: 'EEXIST', path: 'vfs:///a.txt' })
    expect(await fs.readFile('/a.txt')).toBe('one\n')
    const rename = ['--- a/a.txt', '+++ b/b.txt', '@@ -1,1 +1,1 @@', '-one', '+ONE', ''].join('\n')
    expect((await err('apply_patch', { patch: rename })).message).toContain('already exists')
    const twice = [
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1,1 +1,2 @@',
      ' one',
      '+two',
      '--- a/a.txt',
      '+++ b/a.txt',
      '@@ -1,2 +1,3 @@',
      ' one',
      ' two',
      '+three',
      '',
    ].join('\n')
    await ok('apply_patch', { patch: twice })
    expect(await fs.readFile('/a.txt')).toBe('one\ntwo\nthree\n')
  })
})
