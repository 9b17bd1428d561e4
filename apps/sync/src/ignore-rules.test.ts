/** ignore-rules: defaults, extra patterns, .yfsignore, and nested .gitignore files relative to their folder. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, expect, it } from 'vitest'
import { createIgnoreRules, DEFAULT_IGNORES } from './ignore-rules.js'

const root = mkdtempSync(join(tmpdir(), 'yfs-ignore-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

it('applies defaults, patterns, .yfsignore and nested .gitignore files', async () => {
  writeFileSync(join(root, '.gitignore'), '*.log\nbuild/\n')
  writeFileSync(join(root, '.yfsignore'), 'secret.txt\n')
  mkdirSync(join(root, 'sub'))
  writeFileSync(join(root, 'sub', '.gitignore'), 'only-here.txt\n')
  const rules = createIgnoreRules(root, { patterns: ['*.tmp'] })
  await rules.reload('/')
  await rules.reload('/sub')
  expect(rules.ignores('/.git', true)).toBe(true)
  expect(rules.ignores('/a/node_modules/x.js', false)).toBe(true)
  expect(rules.ignores('/.yfs-sync/state.sqlite', false)).toBe(true)
  expect(rules.ignores('/x.log', false)).toBe(true)
  expect(rules.ignores('/build/out.js', false)).toBe(true)
  expect(rules.ignores('/build', false)).toBe(false)
  expect(rules.ignores('/secret.txt', false)).toBe(true)
  expect(rules.ignores('/a.tmp', false)).toBe(true)
  expect(rules.ignores('/sub/only-here.txt', false)).toBe(true)
  expect(rules.ignores('/only-here.txt', false)).toBe(false)
  expect(rules.ignores('/src/main.ts', false)).toBe(false)
  expect(createIgnoreRules(root, { useDefaults: false }).ignores('/.git', true)).toBe(false)
})

it('answers like a walk over every ancestor (property), before and after a reload', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-ignore-prop-'))
  try {
    mkdirSync(join(dir, 'a', 'b'), { recursive: true })
    writeFileSync(join(dir, '.gitignore'), 'x\nb/c/\n*.log\n!keep.log\n')
    writeFileSync(join(dir, 'a', '.gitignore'), 'c\n/d/\nb/x/\n')
    writeFileSync(join(dir, 'a', 'b', '.gitignore'), '*\n!c\n')
    const rules = createIgnoreRules(dir, { patterns: ['tmp/'] })
    const reference = await walkReference(dir, ['tmp/'])
    for (const folder of ['/', '/a', '/a/b']) await rules.reload(folder)
    const name = fc.constantFrom('a', 'b', 'c', 'd', 'x', 'tmp', 'keep.log', 'e.log', 'node_modules')
    const property = fc.property(
      fc.array(name, { minLength: 1, maxLength: 5 }),
      fc.boolean(),
      (parts, isDir) => {
        const path = `/${parts.join('/')}`
        expect(rules.ignores(path, isDir)).toBe(reference(path, isDir))
      },
    )
    fc.assert(property, { numRuns: 400 })
    // A changed rule file is seen after its reload, including by folders answered before.
    writeFileSync(join(dir, 'a', '.gitignore'), 'e.log\n')
    await rules.reload('/a')
    const after = await walkReference(dir, ['tmp/'])
    expect(rules.ignores('/a/c/f', false)).toBe(false)
    fc.assert(
      fc.property(fc.array(name, { minLength: 1, maxLength: 5 }), fc.boolean(), (parts, isDir) => {
        const path = `/${parts.join('/')}`
        expect(rules.ignores(path, isDir)).toBe(after(path, isDir))
      }),
      { numRuns: 400 },
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

/** The rules as a plain walk over every ancestor (the definition the memoised rules must agree with). */
async function walkReference(dir: string, patterns: string[]) {
  const { readFileSync, existsSync } = await import('node:fs')
  const ignore = (await import('ignore')).default
  const base = ignore().add([...DEFAULT_IGNORES, ...patterns])
  const perFolder = new Map<string, ReturnType<typeof ignore>>()
  for (const folder of ['/', '/a', '/a/b']) {
    const file = join(dir, ...folder.split('/').filter(Boolean), '.gitignore')
    if (existsSync(file)) perFolder.set(folder, ignore().add(readFileSync(file, 'utf8')))
  }
  const test = (m: ReturnType<typeof ignore>, rel: string, isDir: boolean) =>
    m.ignores(isDir ? `${rel}/` : rel)
  return (path: string, isDir: boolean): boolean => {
    const rel = path.replace(/^\/+/, '')
    if (test(base, rel, isDir)) return true
    const parts = rel.split('/')
    for (let i = 0; i < parts.length; i++) {
      if (i > 0 && test(base, parts.slice(0, i).join('/'), true)) return true
      const matcher = perFolder.get(i === 0 ? '/' : `/${parts.slice(0, i).join('/')}`)
      if (!matcher) continue
      if (test(matcher, parts.slice(i).join('/'), isDir)) return true
      for (let j = i + 1; j < parts.length; j++)
        if (test(matcher, parts.slice(i, j).join('/'), true)) return true
    }
    return false
  }
}
