import { createFileSystem } from '@yfs/core'
import { markdownCodec } from '@yfs/markdown'
import { describe, expect, it } from 'vitest'
import { createToolRegistry } from '../src/index.js'

const setupWith = (fs: ReturnType<typeof createFileSystem>, options = {}) => createToolRegistry(fs, options)

const setup = (options = {}) => {
  const fs = createFileSystem({ codecs: [markdownCodec] })
  const tools = createToolRegistry(fs, options)
  const call = async (name: string, args: unknown) => tools.execute(name, args)
  const ok = async (name: string, args: unknown) => {
    const r = await call(name, args)
    if (r.isError) throw new Error(`${name} failed: ${r.content[0]!.text}`)
    return r
  }
  const err = async (name: string, args: unknown) => {
    const r = await call(name, args)
    expect(r.isError).toBe(true)
    return r.structuredContent.error as { code: string; message: string; path?: string; hint?: string }
  }
  return { fs, tools, call, ok, err }
}

describe('tool definitions', () => {
  it('every tool has a model-facing description, an object JSON Schema and annotations', () => {
    const { tools } = setup()
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
    const { err } = setup()
    expect((await err('read_file', { path: 7 })).code).toBe('EINVAL')
    expect((await err('nope', {})).message).toContain("unknown tool 'nope'")
  })
})

describe('paths at the boundary', () => {
  it('accept vfs:/// URLs, normalise them, and reject other forms with the corrected URL', async () => {
    const { ok, err } = setup()
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
    const { ok } = setup()
    await ok('write_file', { path: 'vfs:///../../../etc/passwd', content: 'inside' })
    expect((await ok('list_directory', { path: 'vfs:///etc' })).structuredContent.entries).toHaveLength(1)
    expect((await ok('stat', { path: 'vfs:///etc/passwd' })).structuredContent.size).toBe(6)
  })
})

describe('read_file', () => {
  it('numbers lines, honours ranges, reads past EOF to EOF, and returns a version', async () => {
    const { ok } = setup()
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
    const { ok, fs } = setup()
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
    const { ok } = setup({ maxReadBytes: 1000 })
    await ok('write_file', { path: 'vfs:///big.txt', content: `${'0123456789'.repeat(10)}\n`.repeat(100) })
    const r = await ok('read_file', { path: 'vfs:///big.txt' })
    expect(r.structuredContent.truncated).toBe(true)
    expect(r.content[0]!.text).toMatch(/\[cut at line 9 of 100: read the rest with line_start=10\]/)
  })
  it('keeps a whole read within the output cap, so its own note (not a generic cut) tells where to go on', async () => {
    const { ok } = setup()
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
    const { ok, tools } = setup()
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
    const { ok, err } = setup()
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

describe('write, create, append', () => {
  it('write creates parents; create refuses an existing path; append appends', async () => {
    const { ok, err } = setup()
    await ok('write_file', { path: 'vfs:///deep/er/f.txt', content: 'one\n' })
    expect((await err('create_file', { path: 'vfs:///deep/er/f.txt', content: 'x' })).code).toBe('EEXIST')
    await ok('create_file', { path: 'vfs:///deep/new.txt', content: 'new' })
    await ok('append_file', { path: 'vfs:///deep/er/f.txt', content: 'two\n' })
    expect((await ok('read_file', { path: 'vfs:///deep/er/f.txt' })).structuredContent.content).toBe(
      'one\ntwo',
    )
    expect((await err('write_file', { path: 'vfs:///deep', content: 'x' })).code).toBe('EISDIR')
  })
})

describe('edit_file', () => {
  it('replaces a unique match and returns a unified diff', async () => {
    const { ok } = setup()
    await ok('write_file', { path: 'vfs:///e.ts', content: 'const a = 1\nconst b = 2\n' })
    const r = await ok('edit_file', { path: 'vfs:///e.ts', old_text: 'b = 2', new_text: 'b = 3' })
    expect(r.content[0]!.text).toContain('-const b = 2\n+const b = 3')
    expect((await ok('read_file', { path: 'vfs:///e.ts' })).structuredContent.content).toBe(
      'const a = 1\nconst b = 3',
    )
  })
  it('fails on zero or several matches with the count, unless expected_occurrences says so', async () => {
    const { ok, err } = setup()
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
    const { ok, fs } = setup()
    await ok('write_file', { path: 'vfs:///w.txt', content: 'one\r\ntwo\r\nthree\r\n' })
    const r = await ok('edit_file', { path: 'vfs:///w.txt', old_text: 'one\ntwo', new_text: '1\n2\n2.5' })
    expect(r.structuredContent).toMatchObject({ replaced: 1, line_endings: 'crlf' })
    expect(await fs.readFile('/w.txt')).toBe('1\r\n2\r\n2.5\r\nthree\r\n')
  })
  it('edits unicode text and files without a trailing newline', async () => {
    const { ok, fs } = setup()
    await ok('write_file', { path: 'vfs:///u.txt', content: 'naïve café 😀 end' })
    await ok('edit_file', { path: 'vfs:///u.txt', old_text: 'café 😀', new_text: 'thé 🍵' })
    expect(await fs.readFile('/u.txt')).toBe('naïve thé 🍵 end')
  })
  it('says when a markdown file was stored normalised, and diffs what is stored', async () => {
    const { ok, fs } = setup()
    const w = await ok('write_file', { path: 'vfs:///l.md', content: '* a\n* b\n' })
    expect(w.structuredContent).toMatchObject({ normalized: true })
    expect(w.structuredContent.note).toContain('read_file before edit_file')
    expect(
      (await ok('write_file', { path: 'vfs:///k.md', content: '- a\n' })).structuredContent.normalized,
    ).toBe(undefined)
    const e = await ok('edit_file', { path: 'vfs:///l.md', old_text: '- b', new_text: '* c' })
    expect(e.structuredContent).toMatchObject({ normalized: true })
    // A new bullet character starts a second list, which markdown keeps apart with blank lines.
    const stored = await fs.readFile('/l.md')
    expect(stored).not.toBe('- a\n* c\n')
    for (const line of stored.split('\n').slice(1, -1))
      expect(e.structuredContent.diff as string).toContain(`\n+${line}\n`)
  })
  it('refuses to overwrite a change the agent has not seen (expected_version)', async () => {
    const { ok, err, fs } = setup()
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

describe('apply_patch', () => {
  it('applies a multi-file patch (modify, create, delete) all or nothing', async () => {
    const { ok, err, fs } = setup()
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
    const { ok, err, fs } = setup()
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

describe('tree tools', () => {
  it('delete goes to the trash and restore brings it back', async () => {
    const { ok, err } = setup()
    await ok('write_file', { path: 'vfs:///d/f.txt', content: 'x' })
    expect((await err('delete', { path: 'vfs:///d' })).code).toBe('ENOTEMPTY')
    const del = await ok('delete', { path: 'vfs:///d', recursive: true })
    expect((await err('stat', { path: 'vfs:///d/f.txt' })).code).toBe('ENOENT')
    const trash = (await ok('restore', {})).structuredContent.trash as { trash_id: string }[]
    expect(trash.map((t) => t.trash_id)).toContain(del.structuredContent.trash_id)
    await ok('restore', { trash_id: del.structuredContent.trash_id })
    expect((await ok('read_file', { path: 'vfs:///d/f.txt' })).structuredContent.content).toBe('x')
    expect((await err('restore', { trash_id: 'nope' })).code).toBe('ENOENT')
  })
  it('move and copy refuse to overwrite unless asked, and create parents', async () => {
    const { ok, err, fs } = setup()
    await ok('write_file', { path: 'vfs:///a.txt', content: 'a' })
    await ok('write_file', { path: 'vfs:///b.txt', content: 'b' })
    expect((await err('move', { source: 'vfs:///a.txt', destination: 'vfs:///b.txt' })).code).toBe('EEXIST')
    await ok('copy', { source: 'vfs:///a.txt', destination: 'vfs:///x/y/a.txt' })
    await ok('move', { source: 'vfs:///a.txt', destination: 'vfs:///b.txt', overwrite: true })
    expect(await fs.readFile('/b.txt')).toBe('a')
    expect(await fs.readFile('/x/y/a.txt')).toBe('a')
    expect((await err('move', { source: 'vfs:///missing', destination: 'vfs:///z' })).code).toBe('ENOENT')
  })
  it('stat, list_directory and tree describe the workspace', async () => {
    const { ok, fs } = setup()
    await ok('write_file', { path: 'vfs:///src/lib/a.ts', content: 'aa' })
    await ok('write_file', { path: 'vfs:///src/b.ts', content: 'b' })
    expect((await ok('stat', { path: 'vfs:///src' })).structuredContent).toMatchObject({
      type: 'folder',
      mode: '0755',
    })
    const list = await ok('list_directory', { path: 'vfs:///src' })
    expect((list.structuredContent.entries as { name: string }[]).map((e) => e.name)).toEqual(['b.ts', 'lib'])
    for (let i = 0; i < 7; i++) await ok('write_file', { path: `vfs:///big/f${i}`, content: '' })
    const capped = await setupWith(fs, { maxResults: 5 }).execute('list_directory', { path: 'vfs:///big' })
    expect(capped.structuredContent).toMatchObject({ count: 7, truncated: true })
    expect(capped.structuredContent.entries).toHaveLength(5)
    expect(capped.content[0]!.text).toContain('2 more entries not shown')
    const tree = await ok('tree', { path: 'vfs:///', depth: 2 })
    expect(tree.content[0]!.text).toBe(
      'vfs:///\n├── big/\n│   ├── f0\n│   ├── f1\n│   ├── f2\n│   ├── f3\n│   ├── f4\n│   ├── f5\n│   └── f6\n└── src/\n    ├── b.ts\n    └── lib/',
    )
  })
})

describe('search', () => {
  it('glob: **, braces, negation and .gitignore', async () => {
    const { ok } = setup()
    for (const p of ['src/a.ts', 'src/b.tsx', 'src/c.js', 'node_modules/x/i.ts', 'dist/out.ts'])
      await ok('write_file', { path: `vfs:///${p}`, content: 'x' })
    await ok('write_file', { path: 'vfs:///.gitignore', content: 'dist/\n' })
    const m = async (args: object) => (await ok('glob', args)).structuredContent.matches
    expect(await m({ pattern: '**/*.{ts,tsx}' })).toEqual([
      'vfs:///node_modules/x/i.ts',
      'vfs:///src/a.ts',
      'vfs:///src/b.tsx',
    ])
    expect(await m({ pattern: ['**/*.ts', '!node_modules/**'] })).toEqual(['vfs:///src/a.ts'])
    expect(await m({ pattern: '**/*.ts', respect_gitignore: false })).toContain('vfs:///dist/out.ts')
    expect(await m({ pattern: '*.js', path: 'vfs:///src' })).toEqual(['vfs:///src/c.js'])
    expect(await m({ pattern: '**/*.py' })).toEqual([])
  })
  it('glob and grep refuse absolute patterns with the relative form to use', async () => {
    const { err } = setup()
    expect((await err('glob', { pattern: 'vfs:///src/**/*.ts' })).message).toContain("use 'src/**/*.ts'")
    expect((await err('glob', { pattern: '/src/*.ts', path: 'vfs:///src' })).message).toContain("use '*.ts'")
    expect((await err('glob', { pattern: ['**', '!/dist/**'] })).message).toContain("use '!dist/**'")
    expect((await err('grep', { pattern: 'x', include: '/lib/*.ts' })).code).toBe('EINVAL')
  })
  it('grep: substring, regex, case, include, context, count_only, cap', async () => {
    const { ok, err } = setup({ maxResults: 3 })
    await ok('write_file', { path: 'vfs:///a.ts', content: 'one\nTODO: a\nthree\ntodo: b\n' })
    await ok('write_file', { path: 'vfs:///b.md', content: 'TODO in markdown\n' })
    const g = async (args: object) => ok('grep', args)
    expect((await g({ pattern: 'TODO' })).structuredContent.count).toBe(2)
    expect(
      (await g({ pattern: 'todo', case_sensitive: false, include: '*.ts' })).structuredContent.count,
    ).toBe(2)
    expect((await g({ pattern: '^t[a-z]+:', regex: true })).structuredContent.count).toBe(1)
    const ctx = await g({ pattern: 'TODO: a', context_before: 1, context_after: 1 })
    expect(ctx.content[0]!.text).toBe('vfs:///a.ts-1-one\nvfs:///a.ts:2:TODO: a\nvfs:///a.ts-3-three')
    expect((await g({ pattern: 'o', count_only: true })).structuredContent.files).toEqual({
      'vfs:///a.ts': 2,
      'vfs:///b.md': 1,
    })
    const capped = await g({ pattern: '[a-z]', regex: true })
    expect(capped.structuredContent).toMatchObject({ count: 5, truncated: true })
    expect(capped.content[0]!.text).toContain('2 more matches not shown')
    expect((await g({ pattern: 'zzz' })).content[0]!.text).toBe('(no matches)')
    expect((await err('grep', { pattern: '(', regex: true })).code).toBe('EINVAL')
  })
  it('grep: regexes run in linear time (RE2), so a catastrophic pattern cannot stall the server', async () => {
    const { ok, err } = setup()
    // With a backtracking engine, /(a+)+$/ on this line takes about 2^60 steps.
    await ok('write_file', { path: 'vfs:///evil.txt', content: `${'a'.repeat(60)}!\nok aaa\n` })
    const r = await ok('grep', { pattern: '(a+)+$', regex: true })
    expect(r.structuredContent).toMatchObject({ count: 1, matches: [{ line: 2, text: 'ok aaa' }] })
    expect(
      (await ok('grep', { pattern: 'OK\\s+A{3}', regex: true, case_sensitive: false })).structuredContent
        .count,
    ).toBe(1)
    const look = await err('grep', { pattern: 'a(?=!)', regex: true })
    expect(look).toMatchObject({ code: 'EINVAL' })
    expect(look.message).toContain('(?=')
    expect(look.hint).toContain('RE2')
    // Substring mode takes regex metacharacters literally.
    await ok('write_file', { path: 'vfs:///meta.txt', content: 'a.b (x) [y]\naxb\n' })
    expect((await ok('grep', { pattern: 'a.b (x)', path: 'vfs:///meta.txt' })).structuredContent.count).toBe(
      1,
    )
  })
})

describe('bash', () => {
  it('runs a script on the workspace and reports the files it changed', async () => {
    const { ok } = setup()
    await ok('write_file', { path: 'vfs:///src/a.ts', content: 'x\n' })
    const r = await ok('bash', { script: 'echo made > /new.txt; mv /src/a.ts /src/b.ts; grep -rl x /src' })
    expect(r.structuredContent).toMatchObject({ stdout: '/src/b.ts\n', exit_code: 0 })
    expect(r.structuredContent.files_changed).toEqual([
      'vfs:///new.txt',
      'vfs:///src/a.ts',
      'vfs:///src/b.ts',
    ])
  })
  it('caps output with a note and stops endless loops and slow scripts', async () => {
    const { ok } = setup({ maxOutputChars: 1000 })
    const big = await ok('bash', { script: 'for i in $(seq 1 2000); do echo line $i; done' })
    expect(big.structuredContent.stdout as string).toContain('[output cut:')
    const loop = await ok('bash', { script: 'while true; do :; done' })
    expect(loop.structuredContent.exit_code).not.toBe(0)
    expect(loop.structuredContent.stderr as string).toMatch(/too many|limit/)
    const slow = await ok('bash', { script: 'sleep 5; echo never', timeout_ms: 200 })
    expect(slow.structuredContent.exit_code).not.toBe(0)
    expect(slow.structuredContent.stdout).not.toContain('never')
  })
})

describe('history and checkpoints', () => {
  it('history, diff, checkout_version, checkpoint, restore_checkpoint', async () => {
    const { ok, err, fs } = setup()
    await ok('write_file', { path: 'vfs:///h.txt', content: 'v1\n' })
    await ok('write_file', { path: 'vfs:///h.txt', content: 'v2\n' })
    const versions = (await ok('history', { path: 'vfs:///h.txt' })).structuredContent.versions as {
      id: string
    }[]
    expect(versions).toHaveLength(2)
    expect(
      (await ok('diff', { path: 'vfs:///h.txt', from_version: versions[0]!.id })).content[0]!.text,
    ).toContain('-v1\n+v2')
    const back = await ok('checkout_version', { path: 'vfs:///x/../h.txt', version: versions[0]!.id })
    expect(back.structuredContent).toMatchObject({ path: 'vfs:///h.txt', restored_from: versions[0]!.id })
    expect(await fs.readFile('/h.txt')).toBe('v1\n')
    expect((await err('diff', { path: 'vfs:///h.txt', from_version: 'nope' })).code).toBe('ENOENT')
    const cp = (await ok('checkpoint', { label: 'before' })).structuredContent.checkpoint as { id: string }
    await ok('write_file', { path: 'vfs:///added.txt', content: 'new' })
    await ok('write_file', { path: 'vfs:///h.txt', content: 'changed\n' })
    const r = await ok('restore_checkpoint', { id: cp.id })
    expect(r.structuredContent.undone).toMatchObject({
      added: ['vfs:///added.txt'],
      changed: ['vfs:///h.txt'],
    })
    expect(await fs.readFile('/h.txt')).toBe('v1\n')
    expect(await fs.exists('/added.txt')).toBe(false)
  })
})

describe('concurrency', () => {
  it('the registry is safe to call concurrently', async () => {
    const { ok, fs } = setup()
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
})

describe('error codes of every tool', () => {
  it('each tool reports the POSIX code of its failure, with the vfs path', async () => {
    const { ok, err } = setup()
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
