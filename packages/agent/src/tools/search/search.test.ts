/** search: ranked, paged results through the index, marked snippets, clear regex errors. */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('search', () => {
  it('ranks path and whole-word matches first, marks the match, pages', async () => {
    const { ok, tools } = setupTools()
    await ok('write_file', { path: 'vfs:///notes/seal.md', content: '# Seals\n\nThe seal barks.\n' })
    await ok('write_file', { path: 'vfs:///notes/b.md', content: 'sealing wax\nno\nno\nno\n' })
    await ok('write_file', { path: 'vfs:///notes/c.txt', content: 'a seal\n' })
    await ok('write_file', { path: 'vfs:///tmp/scratch.txt', content: 'seal in scratch\n' })
    const r = await ok('search', { query: 'seal' })
    expect(r.structuredContent.total).toBe(3)
    expect((r.structuredContent.hits as { path: string }[]).map((h) => h.path)).toEqual([
      'vfs:///notes/seal.md',
      'vfs:///notes/c.txt',
      'vfs:///notes/b.md',
    ])
    expect(r.content[0]!.text).toContain('vfs:///notes/seal.md (2 matching lines)\n  1:3: # «Seal»s')
    const page = await ok('search', { query: 'seal', limit: 1, offset: 1 })
    expect(page.structuredContent).toMatchObject({ total: 3, offset: 1, next_offset: 2 })
    expect(page.content[0]!.text).toContain('call again with offset: 2')
    const md = await ok('search', { query: 'SEAL', case_sensitive: true })
    expect(md.structuredContent.total).toBe(0)
    expect(
      (await ok('search', { query: 'se.l', regex: true, path: 'vfs:///*.txt' })).structuredContent.total,
    ).toBe(1)
    expect((await ok('search', { query: 'seal', exclude: 'notes/*.md' })).structuredContent.total).toBe(1)
    expect((await ok('search', { query: 'seal', path: 'vfs:///notes' })).structuredContent.total).toBe(3)
    expect((await ok('search', { query: 'seal', path: 'vfs:///other' })).structuredContent.total).toBe(0)
    const def = tools.list().find((t) => t.name === 'search')!
    expect(def.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false })
    expect(Object.keys((def.inputSchema as { properties: object }).properties)).toEqual(
      expect.arrayContaining(['query', 'regex', 'case_sensitive', 'path', 'limit']),
    )
  })

  it('an invalid regex is EINVAL naming the position', async () => {
    const { err } = setupTools()
    const e = await err('search', { query: 'a(b', regex: true })
    expect(e.code).toBe('EINVAL')
    expect(e.message).toContain('missing closing ) at position 1')
  })
})
