/**
 * grep: substring and RE2 regex search, options, caps, and linear-time
 * matching.
 */
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

describe('grep', () => {
  it('grep: substring, regex, case, include, context, count_only, cap', async () => {
    const { ok, err } = setupTools({ maxResults: 3 })
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
    const { ok, err } = setupTools()
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

  it('grep: a substring search that finds nothing but reads like a regex says so and shows the regex call', async () => {
    const { ok } = setupTools()
    await ok('write_file', { path: 'vfs:///src/a.ts', content: 'console.log("hello")\nfoo(1, 2)\n' })
    const miss = await ok('grep', { pattern: 'hel+o', path: 'vfs:///src', include: '*.ts' })
    expect(miss.structuredContent).toMatchObject({ count: 0, matches: [] })
    const hint = miss.structuredContent.hint as string
    expect(hint).toContain('regular expression')
    expect(hint).toContain('{"pattern":"hel+o","path":"vfs:///src","include":"*.ts","regex":true}')
    expect(miss.content[0]!.text).toBe(`(no matches)\nhint: ${hint}`)
    // The suggested call works.
    const call = JSON.parse(hint.slice(hint.indexOf('{')))
    expect((await ok('grep', call)).structuredContent.count).toBe(1)
    for (const pattern of ['\\bfoo\\b', 'log\\(', 'a.*b', '^foo', 'x$', '[0-9]+', 'a|b', 'z{2,3}', '(x)'])
      expect((await ok('grep', { pattern })).structuredContent.hint, pattern).toBeTypeOf('string')
    expect((await ok('grep', { pattern: 'hel+o', count_only: true })).structuredContent).toMatchObject({
      count: 0,
      hint: expect.stringContaining('"regex":true'),
    })
    // No hint when something was found, for plain words, or when regex was asked for.
    expect((await ok('grep', { pattern: 'foo(1' })).structuredContent.hint).toBeUndefined()
    for (const args of [{ pattern: 'missing word' }, { pattern: 'a.b' }, { pattern: 'hel+o', regex: true }])
      expect((await ok('grep', args)).structuredContent.hint, args.pattern).toBeUndefined()
  })

  it('grep and glob search /tmp when asked to, and never list it otherwise', async () => {
    const { ok, fs } = setupTools()
    await ok('write_file', { path: 'vfs:///src/a.txt', content: 'needle\n' })
    await fs.mkdir('/tmp/work')
    await fs.writeFile('/tmp/work/scratch.txt', 'needle in tmp\n')
    expect((await ok('grep', { pattern: 'needle' })).structuredContent.count).toBe(1)
    const inTmp = await ok('grep', { pattern: 'needle', path: 'vfs:///tmp' })
    expect(inTmp.structuredContent).toMatchObject({
      count: 1,
      matches: [{ path: 'vfs:///tmp/work/scratch.txt', line: 1 }],
    })
  })
})
