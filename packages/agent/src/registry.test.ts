/**
 * The registry: every tool listed with a schema and annotations, arguments
 * validated at the edge, vfs:/// paths at the boundary, concurrent calls, and
 * the POSIX code of every tool's failure.
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from './testing/tool-harness.js'

describe('createToolRegistry', () => {
  it('every tool has a model-facing description, an object JSON Schema and annotations', () => {
    const { tools } = setupTools()
    const list = tools.list()
    expect(list.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'bash',
        'read_file',
        'write_file',
        'create_file',
        'append_file',
        'edit_file',
        'apply_patch',
        'delete',
        'restore',
        'mkdir',
        'move',
        'copy',
        'stat',
        'list_directory',
        'tree',
        'glob',
        'grep',
        'search',
        'history',
        'diff',
        'checkout_version',
        'checkpoint',
        'restore_checkpoint',
      ]),
    )
    for (const t of list) {
      expect(t.description.length).toBeGreaterThan(40)
      expect(t.inputSchema.type).toBe('object')
      expect(typeof t.annotations.readOnlyHint).toBe('boolean')
      expect(typeof t.annotations.destructiveHint).toBe('boolean')
    }
    expect(list.find((t) => t.name === 'read_file')!.annotations.readOnlyHint).toBe(true)
    expect(list.find((t) => t.name === 'delete')!.annotations.destructiveHint).toBe(true)
  })

  it('rejects bad arguments and unknown tools with a clear error', async () => {
    const { err } = setupTools()
    expect((await err('read_file', { path: 7 })).code).toBe('EINVAL')
    expect((await err('nope', {})).message).toContain("unknown tool 'nope'")
  })

  it('accept vfs:/// URLs, normalise them, and reject other forms with the corrected URL', async () => {
    const { ok, err } = setupTools()
    await ok('write_file', { path: 'vfs:///a//b/./c.txt', content: 'x' })
    expect((await ok('stat', { path: 'vfs:///a/b/../b/c.txt' })).structuredContent.path).toBe(
      'vfs:///a/b/c.txt',
    )
    expect((await ok('stat', { path: 'vfs:///a\\b\\c.txt' })).structuredContent.path).toBe('vfs:///a/b/c.txt')
    const bare = await err('read_file', { path: '/a/b/c.txt' })
    expect(bare.code).toBe('EINVAL')
    expect(bare.message).toContain("use 'vfs:///a/b/c.txt'")
    expect((await err('read_file', { path: 'a/b/c.txt' })).message).toContain("use 'vfs:///a/b/c.txt'")
    expect((await err('read_file', { path: 'vfs:///a\0b' })).message).toContain('NUL')
  })

  it('.. never escapes the workspace root', async () => {
    const { ok } = setupTools()
    await ok('write_file', { path: 'vfs:///../../../etc/passwd', content: 'inside' })
    expect((await ok('list_directory', { path: 'vfs:///etc' })).structuredContent.entries).toHaveLength(1)
    expect((await ok('stat', { path: 'vfs:///etc/passwd' })).structuredContent.size).toBe(6)
  })

  it('the registry is safe to call concurrently', async () => {
    const { ok, fs } = setupTools()
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        ok('write_file', { path: `vfs:///c/f${i % 5}.txt`, content: `${i}` }),
      ),
    )
    await Promise.all(
      Array.from({ length: 20 }, (_, i) => ok('append_file', { path: 'vfs:///log.txt', content: `${i}\n` })),
    )
    expect((await fs.readdir('/c')).length).toBe(5)
    expect(
      (await fs.readFile('/log.txt'))
        .split('\n')
        .filter(Boolean)
        .sort((a, b) => +a - +b),
    ).toEqual(Array.from({ length: 20 }, (_, i) => `${i}`))
  })

  it('each tool reports the POSIX code of its failure, with the vfs path', async () => {
    const { ok, err } = setupTools()
    await ok('write_file', { path: 'vfs:///f.txt', content: 'x' })
    await ok('mkdir', { path: 'vfs:///d' })
    const cases: [string, Record<string, unknown>, string][] = [
      ['write_file', { path: 'vfs:///f.txt/inner', content: 'x' }, 'ENOTDIR'],
      ['create_file', { path: 'vfs:///d', content: 'x' }, 'EEXIST'],
      ['append_file', { path: 'vfs:///d', content: 'x' }, 'EISDIR'],
      ['edit_file', { path: 'vfs:///missing', old_text: 'a', new_text: 'b' }, 'ENOENT'],
      ['delete', { path: 'vfs:///missing' }, 'ENOENT'],
      ['mkdir', { path: 'vfs:///f.txt' }, 'EEXIST'],
      ['move', { source: 'vfs:///d', destination: 'vfs:///d/inside' }, 'EINVAL'],
      ['copy', { source: 'vfs:///missing', destination: 'vfs:///c' }, 'ENOENT'],
      ['stat', { path: 'vfs:///missing' }, 'ENOENT'],
      ['list_directory', { path: 'vfs:///f.txt' }, 'ENOTDIR'],
      ['tree', { path: 'vfs:///missing' }, 'ENOENT'],
      ['grep', { pattern: 'x', path: 'vfs:///missing' }, 'ENOENT'],
      ['history', { path: 'vfs:///d' }, 'EISDIR'],
      ['checkout_version', { path: 'vfs:///f.txt', version: 'nope' }, 'ENOENT'],
      ['restore_checkpoint', { id: 'nope' }, 'ENOENT'],
      ['bash', { script: '' }, 'EINVAL'],
      ['glob', { pattern: [] }, 'EINVAL'],
    ]
    for (const [tool, args, code] of cases) {
      const e = await err(tool, args)
      expect(`${tool}: ${e.code}`).toBe(`${tool}: ${code}`)
      expect(e.hint).toBeTruthy()
      if (e.path) expect(e.path.startsWith('vfs:///')).toBe(true)
    }
  })
})
