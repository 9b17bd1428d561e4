/**
 * edit_file: exact matches and counts, CRLF, unicode, markdown normalisation,
 * expected_version.
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('edit_file', () => {
  it('replaces a unique match and returns a unified diff', async () => {
    const { ok } = setupTools()
    await ok('write_file', { path: 'vfs:///e.ts', content: 'const a = 1\nconst b = 2\n' })
    const r = await ok('edit_file', { path: 'vfs:///e.ts', old_text: 'b = 2', new_text: 'b = 3' })
    expect(r.content[0]!.text).toContain('-const b = 2\n+const b = 3')
    expect((await ok('read_file', { path: 'vfs:///e.ts' })).structuredContent.content).toBe(
      'const a = 1\nconst b = 3',
    )
  })

  it('fails on zero or several matches with the count, unless expected_occurrences says so', async () => {
    const { ok, err } = setupTools()
    await ok('write_file', { path: 'vfs:///e.ts', content: 'x x x' })
    const none = await err('edit_file', { path: 'vfs:///e.ts', old_text: 'y', new_text: 'z' })
    expect(none).toMatchObject({ code: 'ENOMATCH' })
    expect(none.message).toContain('occurs 0 times')
    const many = await err('edit_file', { path: 'vfs:///e.ts', old_text: 'x', new_text: 'z' })
    expect(many.message).toContain('occurs 3 times')
    await ok('edit_file', { path: 'vfs:///e.ts', old_text: 'x', new_text: 'z', expected_occurrences: 3 })
    expect((await ok('read_file', { path: 'vfs:///e.ts' })).structuredContent.content).toBe('z z z')
  })

  it('matches \\n against CRLF line ends and keeps the file CRLF', async () => {
    const { ok, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///w.txt', content: 'one\r\ntwo\r\nthree\r\n' })
    const r = await ok('edit_file', { path: 'vfs:///w.txt', old_text: 'one\ntwo', new_text: '1\n2\n2.5' })
    expect(r.structuredContent).toMatchObject({ replaced: 1, line_endings: 'crlf' })
    expect(await fs.readFile('/w.txt')).toBe('1\r\n2\r\n2.5\r\nthree\r\n')
  })

  it('edits unicode text and files without a trailing newline', async () => {
    const { ok, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///u.txt', content: 'naïve café 😀 end' })
    await ok('edit_file', { path: 'vfs:///u.txt', old_text: 'café 😀', new_text: 'thé 🍵' })
    expect(await fs.readFile('/u.txt')).toBe('naïve thé 🍵 end')
  })

  it('markdown is stored as written (no normalized flag), and edit_file diffs what is stored', async () => {
    const { ok, fs } = setupTools()
    const w = await ok('write_file', { path: 'vfs:///l.md', content: '* a\n* b\n' })
    expect(w.structuredContent.normalized).toBe(undefined)
    const e = await ok('edit_file', { path: 'vfs:///l.md', old_text: '* b', new_text: '+ c' })
    expect(e.structuredContent.normalized).toBe(undefined)
    // A new bullet character starts a second list; the file still holds exactly what was written.
    expect(await fs.readFile('/l.md')).toBe('* a\n+ c\n')
    expect(e.structuredContent.diff as string).toContain('\n++ c\n')
  })

  it('refuses to overwrite a change the agent has not seen (expected_version)', async () => {
    const { ok, err, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///v.txt', content: 'hello' })
    const { version } = (await ok('read_file', { path: 'vfs:///v.txt' })).structuredContent as {
      version: string
    }
    await fs.writeFile('/v.txt', 'hello from someone else')
    expect(
      (
        await err('edit_file', {
          path: 'vfs:///v.txt',
          old_text: 'hello',
          new_text: 'hi',
          expected_version: version,
        })
      ).code,
    ).toBe('ESTALE')
    const fresh = (await ok('stat', { path: 'vfs:///v.txt' })).structuredContent.version
    await ok('edit_file', {
      path: 'vfs:///v.txt',
      old_text: 'hello',
      new_text: 'hi',
      expected_version: fresh,
    })
  })
})
