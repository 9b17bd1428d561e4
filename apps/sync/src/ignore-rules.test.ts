/** ignore-rules: defaults, extra patterns, .yfsignore, and nested .gitignore files relative to their folder. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { createIgnoreRules } from './ignore-rules.js'

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
