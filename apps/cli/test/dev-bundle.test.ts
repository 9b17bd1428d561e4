// The checkout's cached bundle of `yfs sync` (bin/dev-bundle.cjs): built from TypeScript sources,
// reused while they are unchanged, rebuilt when one changes, its package imports pinned to the
// files Node loads (one yjs), and a failed build reported, so that the launcher falls back to tsx.
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, expect, it } from 'vitest'
import * as Y from 'yjs'

const require = createRequire(import.meta.url)
const { devBundle } = require('../bin/dev-bundle.cjs') as {
  devBundle: (entry: string, name: string, options?: { cacheDir?: string }) => Promise<string>
}
const BIN = fileURLToPath(new URL('../bin/yfs.cjs', import.meta.url))

// Inside apps/cli/node_modules, so that the fixture's `yjs` resolves to the one this test loads.
const scratchRoot = fileURLToPath(new URL('../node_modules/.cache/yfs-dev-test', import.meta.url))
let dir: string
let cacheDir: string
beforeEach(() => {
  mkdirSync(scratchRoot, { recursive: true })
  dir = mkdtempSync(join(scratchRoot, 'src-'))
  cacheDir = join(dir, 'cache')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** Write a source file with an mtime a minute back (the builder does not stamp files saved during a build). */
function source(name: string, text: string, ageMs = 60_000): string {
  const file = join(dir, name)
  writeFileSync(file, text)
  const t = new Date(Date.now() - ageMs)
  utimesSync(file, t, t)
  return file
}

const load = async (url: string) =>
  (await import(`${url}?v=${statSync(fileURLToPath(url)).mtimeMs}`)) as {
    answer: () => string
    Doc: typeof Y.Doc
  }

it('bundles TypeScript sources, reuses the bundle while they are unchanged and rebuilds when one changes', async () => {
  source('part.ts', `export const word = (): string => 'first'\n`)
  const entry = source(
    'entry.ts',
    `import { Doc } from 'yjs'\nimport { word } from './part.js'\nexport const answer = (): string => word()\nexport { Doc }\n`,
  )
  const url = await devBundle(entry, 'fixture', { cacheDir })
  const bundled = await load(url)
  expect(bundled.answer()).toBe('first')
  // The package import is pinned to the file this process loads too: one Y.Doc class, not two.
  expect(bundled.Doc).toBe(Y.Doc)

  const built = statSync(fileURLToPath(url)).mtimeMs
  await new Promise((resolve) => setTimeout(resolve, 20))
  expect(await devBundle(entry, 'fixture', { cacheDir })).toBe(url)
  expect(statSync(fileURLToPath(url)).mtimeMs).toBe(built)

  source('part.ts', `export const word = (): string => 'second'\n`, 30_000)
  const rebuilt = await devBundle(entry, 'fixture', { cacheDir })
  expect(statSync(fileURLToPath(rebuilt)).mtimeMs).toBeGreaterThan(built)
  expect((await load(rebuilt)).answer()).toBe('second')
})

it('does not stamp a bundle fresh when a source was saved during its build', async () => {
  const entry = source('entry.ts', `export const answer = (): string => 'now'\nexport const Doc = null\n`, 0)
  const url = await devBundle(entry, 'fixture', { cacheDir })
  const built = statSync(fileURLToPath(url)).mtimeMs
  await new Promise((resolve) => setTimeout(resolve, 20))
  await devBundle(entry, 'fixture', { cacheDir })
  // Built again: the first build could have read the file before its last save.
  expect(statSync(fileURLToPath(url)).mtimeMs).toBeGreaterThan(built)
})

it('rejects when the sources do not build (the launcher then runs them through tsx)', async () => {
  const entry = source('entry.ts', `export const answer = ( => 'broken'\n`)
  await expect(devBundle(entry, 'fixture', { cacheDir })).rejects.toThrow(/Expected|Unexpected/)
  await expect(devBundle(join(dir, 'missing.ts'), 'fixture', { cacheDir })).rejects.toThrow()
})

it('yfs sync runs from the bundle and, with YFS_DEV_BUNDLE=0, through tsx', () => {
  for (const env of [{ YFS_DEV_BUNDLE_DEBUG: '1' }, { YFS_DEV_BUNDLE: '0' }]) {
    const run = spawnSync(process.execPath, [BIN, 'sync', '--help'], {
      env: { ...process.env, ...env },
      encoding: 'utf8',
    })
    expect(run.status).toBe(0)
    expect(run.stdout).toMatch(/^Usage: yfs sync \[options\] <dir>/)
    // With the debug switch, a bundle that could not be had is reported before falling back.
    expect(run.stderr).not.toMatch(/dev bundle/)
  }
  const cached = fileURLToPath(new URL('../node_modules/.cache/yfs-dev/yfs-sync.mjs', import.meta.url))
  expect(statSync(cached).size).toBeGreaterThan(0)
})
