/**
 * read_file on a real YjsFileSystem: ranges, EOF, empty/CRLF/unicode/binary
 * files, and the output budgets with their notes.
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('read_file', () => {
  it('numbers lines, honours ranges, reads past EOF to EOF, and returns a version', async () => {
    const { ok } = setupTools()
    await ok('write_file', { path: 'vfs:///f.txt', content: 'a\nb\nc\nd\n' })
    const r = await ok('read_file', { path: 'vfs:///f.txt', line_start: 2, line_end: 99 })
    expect(r.content[0]!.text).toBe('2\tb\n3\tc\n4\td')
    expect(r.structuredContent).toMatchObject({
      line_start: 2,
      line_end: 4,
      total_lines: 4,
      content: 'b\nc\nd',
    })
    expect(r.structuredContent.version).toMatch(/^sha256:/)
    const past = await ok('read_file', { path: 'vfs:///f.txt', line_start: 10 })
    expect(past.content[0]!.text).toBe('[line_start 10 is past the end: the file has 4 lines]')
  })

  it('handles empty files, no trailing newline, CRLF, unicode and binary', async () => {
    const { ok, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///empty', content: '' })
    expect((await ok('read_file', { path: 'vfs:///empty' })).structuredContent).toMatchObject({
      total_lines: 0,
      content: '',
    })
    await ok('write_file', { path: 'vfs:///nt', content: 'x\ny' })
    expect((await ok('read_file', { path: 'vfs:///nt' })).structuredContent).toMatchObject({
      total_lines: 2,
      no_trailing_newline: true,
    })
    await ok('write_file', { path: 'vfs:///crlf', content: 'a\r\nb\r\n' })
    expect((await ok('read_file', { path: 'vfs:///crlf' })).structuredContent.content).toBe('a\r\nb\r')
    await ok('write_file', { path: 'vfs:///u.txt', content: 'héllo 😀\n' })
    expect((await ok('read_file', { path: 'vfs:///u.txt' })).structuredContent).toMatchObject({
      content: 'héllo 😀',
      size: 12,
    })
    await fs.writeFile('/bin.dat', new Uint8Array([0, 1, 2, 255]))
    const bin = await ok('read_file', { path: 'vfs:///bin.dat' })
    expect(bin.structuredContent).toMatchObject({ binary: true, size: 4 })
    expect(bin.content[0]!.text).toContain('binary file (4 bytes)')
  })

  it('cuts a huge file with a note that says how to read the rest', async () => {
    const { ok } = setupTools({ maxReadBytes: 1000 })
    await ok('write_file', { path: 'vfs:///big.txt', content: `${'0123456789'.repeat(10)}\n`.repeat(100) })
    const r = await ok('read_file', { path: 'vfs:///big.txt' })
    expect(r.structuredContent.truncated).toBe(true)
    expect(r.content[0]!.text).toMatch(/\[cut at line 9 of 100: read the rest with line_start=10\]/)
  })

  it('keeps a whole read within the output cap, so its own note (not a generic cut) tells where to go on', async () => {
    const { ok } = setupTools()
    const line = 'x'.repeat(49)
    await ok('write_file', { path: 'vfs:///many.txt', content: `${line}\n`.repeat(5000) })
    const first = await ok('read_file', { path: 'vfs:///many.txt' })
    const text = first.content[0]!.text
    expect(text.length).toBeLessThanOrEqual(30_000)
    expect(text).not.toContain('[output cut')
    const next = Number(/read the rest with line_start=(\d+)\]$/.exec(text)?.[1])
    expect(next).toBe((first.structuredContent.line_end as number) + 1)
    const second = await ok('read_file', { path: 'vfs:///many.txt', line_start: next })
    expect(second.content[0]!.text.trimStart().startsWith(`${next}\t${line}`)).toBe(true)
  })

  it('shows the start of a line longer than a whole read, and how to read on', async () => {
    const { ok, tools } = setupTools()
    await ok('write_file', { path: 'vfs:///min.js', content: `${'ab'.repeat(50_000)}\nsecond\n` })
    const r = await ok('read_file', { path: 'vfs:///min.js' })
    expect(r.structuredContent).toMatchObject({ line_start: 1, line_end: 1, truncated: true, line_cut: true })
    const text = r.content[0]!.text
    expect(text.length).toBeLessThanOrEqual(30_000)
    expect(text).toContain('line 1 has 100000 characters')
    expect(text).toContain('the next line is line_start=2')
    // The bash command in the note works.
    const cmd = /Read more of it with bash: (.*?); the next/.exec(text)![1]!
    const piece = await tools.execute('bash', { script: `${cmd} | wc -c` })
    expect(piece.structuredContent).toMatchObject({ stdout: '8001\n', exit_code: 0 })
    expect((await ok('read_file', { path: 'vfs:///min.js', line_start: 2 })).structuredContent.content).toBe(
      'second',
    )
  })

  it('errors: missing file, folder, bad range', async () => {
    const { ok, err } = setupTools()
    expect((await err('read_file', { path: 'vfs:///missing' })).code).toBe('ENOENT')
    await ok('mkdir', { path: 'vfs:///d' })
    expect((await err('read_file', { path: 'vfs:///d' })).code).toBe('EISDIR')
    await ok('write_file', { path: 'vfs:///f', content: 'x' })
    expect((await err('read_file', { path: 'vfs:///f', line_start: 3, line_end: 2 })).code).toBe('EINVAL')
    const missing = await err('read_file', { path: 'vfs:///missing' })
    expect(missing.message).toBe("ENOENT: no such file or directory, open 'vfs:///missing'")
    expect(missing.hint).toContain('list_directory')
  })
})
