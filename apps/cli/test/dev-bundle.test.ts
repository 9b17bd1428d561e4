// The checkout's cached bundle of `yfs sync` (bin/dev-bundle.cjs): built from TypeScript sources,
// reused while they are unchanged, rebuilt when one changes, its package imports pinned to the
// files Node loads (one yjs), and a failed build reported, so that the launcher falls back to tsx.
import { spawnSync } from 'node:child_process'
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
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

// A query per load: the same file URL imported twice is the module loaded first.
const load = async (url: string, version: number) =>
  (await import(`${url}?v=${version}`)) as {
    answer: () => string
    Doc: typeof Y.Doc
  }

/** Append a marker to a built bundle: a later call that returns it unmarked has rebuilt it. */
function mark(url: string): void {
  appendFileSync(fileURLToPath(url), '\n// marked by the test\n')
}
const marked = (url: string) => readFileSync(fileURLToPath(url), 'utf8').includes('// marked by the test')

it('bundles TypeScript sources, reuses the bundle while they are unchanged and rebuilds when one changes', async () => {
  source('part.ts', `export const word = (): string => 'first'\n`)
  const entry = source(
    'entry.ts',
    `import { Doc } from 'yjs'\nimport { word } from './part.js'\nexport const answer = (): string => word()\nexport { Doc }\n`,
  )
  const url = await devBundle(entry, 'fixture', { cacheDir })
  const bundled = await load(url, 1)
  expect(bundled.answer()).toBe('first')
  // The package import is pinned to the file this process loads too: one Y.Doc class, not two.
  expect(bundled.Doc).toBe(Y.Doc)

  mark(url)
  expect(await devBundle(entry, 'fixture', { cacheDir })).toBe(url)
  expect(marked(url)).toBe(true)

  source('part.ts', `export const word = (): string => 'second'\n`, 30_000)
  const rebuilt = await devBundle(entry, 'fixture', { cacheDir })
  expect(marked(rebuilt)).toBe(false)
  expect((await load(rebuilt, 2)).answer()).toBe('second')
})

it('does not stamp a bundle fresh when a source was saved during its build', async () => {
  const entry = source('entry.ts', `export const answer = (): string => 'now'\nexport const Doc = null\n`, 0)
  const url = await devBundle(entry, 'fixture', { cacheDir })
  mark(url)
  await devBundle(entry, 'fixture', { cacheDir })
  // Built again: the first build could have read the file before its last save.
  expect(marked(url)).toBe(false)
})

it("keeps each source's import.meta.url its own file's URL", async () => {
  // Outside node_modules, as the workspace's sources are (a package's own files are left as they are).
  const sources = mkdtempSync(join(tmpdir(), 'yfs-dev-bundle-'))
  try {
    const part = join(sources, 'part.ts')
    writeFileSync(part, `export const partUrl = import.meta.url\n`)
    const entry = join(sources, 'entry.ts')
    writeFileSync(
      entry,
      `export { partUrl } from './part.js'\nexport const entryUrl: string = import.meta.url\n`,
    )
    const url = await devBundle(entry, 'fixture', { cacheDir })
    const bundled = (await load(url, 3)) as unknown as { partUrl: string; entryUrl: string }
    expect(bundled.entryUrl).toBe(pathToFileURL(entry).href)
    expect(bundled.partUrl).toBe(pathToFileURL(part).href)
  } finally {
    rmSync(sources, { recursive: true, force: true })
  }
})

it('rejects when the sources do not build (the launcher then runs them through tsx)', async () => {
  const entry = source('entry.ts', `export const answer = ( => 'broken'\n`)
  await expect(devBundle(entry, 'fixture', { cacheDir })).rejects.toThrow(/Expected|Unexpected/)
  await expect(devBundle(join(dir, 'missing.ts'), 'fixture', { cacheDir })).rejects.toThrow()
})

it('yfs and yfs sync run from their bundles and, with YFS_DEV_BUNDLE=0, through tsx', () => {
  for (const [args, usage, bundle] of [
    [['sync', '--help'], /^Usage: yfs sync \[options\] <dir>/, 'yfs-sync.mjs'],
    [['--help'], /^Usage: yfs \[options\] \[command\]/, 'yfs.mjs'],
  ] as const) {
    for (const env of [{ YFS_DEV_BUNDLE_DEBUG: '1' }, { YFS_DEV_BUNDLE: '0' }]) {
      const run = spawnSync(process.execPath, [BIN, ...args], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
      })
      expect(run.status).toBe(0)
      expect(run.stdout).toMatch(usage)
      // With the debug switch, a bundle that could not be had is reported before falling back.
      expect(run.stderr).not.toMatch(/dev bundle/)
    }
    const cached = fileURLToPath(new URL(`../node_modules/.cache/yfs-dev/${bundle}`, import.meta.url))
    expect(statSync(cached).size).toBeGreaterThan(0)
  }
})
