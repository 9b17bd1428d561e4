/**
 * The 2,000-file round trip: a tree of text, Markdown, binary,
 * nested folders, unicode names and an executable script is ingested by one
 * daemon, and materialised into an empty folder by a second daemon (the
 * real `yfs sync` CLI, a child process) through a real `yfs serve`. The
 * copy must be byte-identical with the same executable bits and symlinks.
 */
import { randomBytes } from 'node:crypto'
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { join, relative } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { type SyncTestEnv, spawnDaemon, startEnv, tempDir } from './helpers.js'

let env: SyncTestEnv
beforeAll(async () => {
  env = await startEnv()
})
afterAll(async () => {
  await env?.close()
})

/** Write a deterministic tree of `count` files; returns nothing, the folder is the fixture. */
function makeTree(root: string, count: number): void {
  const names = ['notes', 'ünïcödé', '日本語', 'emoji 🎉', 'spaces in name', 'a-b_c.d']
  for (let i = 0; i < count; i++) {
    const dir = join(root, `d${i % 10}`, `e${i % 7}`, i % 3 === 0 ? names[i % names.length]! : '')
    mkdirSync(dir, { recursive: true })
    const kind = i % 5
    if (kind === 0) writeFileSync(join(dir, `f${i}.md`), `# Title ${i}\n\nParagraph ${i} with *emphasis*.\n`)
    else if (kind === 1) writeFileSync(join(dir, `bin${i}.dat`), randomBytes(64 + (i % 200)))
    else if (kind === 2)
      writeFileSync(join(dir, `${names[i % names.length]} ${i}.txt`), `line ${i}\n`.repeat(i % 20))
    else writeFileSync(join(dir, `f${i}.ts`), `export const x${i} = ${i}\n`)
  }
  writeFileSync(join(root, 'run.sh'), '#!/bin/sh\necho run\n', { mode: 0o755 })
  symlinkSync('d0/e0', join(root, 'link-to-folder'))
  symlinkSync('run.sh', join(root, 'link-to-script'))
}

/** Every entry below `root` (skipping the state folder): relative path → kind, bytes/target, mode. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>()
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === '.yfs-sync') continue
      const full = join(dir, name)
      const st = lstatSync(full)
      const rel = relative(root, full)
      if (st.isSymbolicLink()) out.set(rel, `link:${readlinkSync(full)}`)
      else if (st.isDirectory()) {
        out.set(rel, 'dir')
        walk(full)
      } else
        out.set(rel, `file:${(st.mode & 0o111) !== 0 ? 'x' : '-'}:${readFileSync(full).toString('base64')}`)
    }
  }
  walk(root)
  return out
}

it('ingests a 2,000-file tree and materialises it byte-identical in another folder', async () => {
  const ws = await env.workspace('tree')
  const a = tempDir()
  const b = tempDir()
  env.dirs.push(a, b)
  makeTree(a, 2000)
  const one = await env.startSync(ws, a)
  await one.connection.flush(60_000)
  const skips = one.events.filter((e) => e.type === 'skip' || e.type === 'error')
  expect(skips).toEqual([])
  const daemon = spawnDaemon(env.server, ws, b)
  await daemon.ready
  const expected = snapshot(a)
  const actual = snapshot(b)
  expect(actual.size).toBe(expected.size)
  for (const [path, value] of expected) expect(actual.get(path), path).toBe(value)
  daemon.child.kill('SIGTERM')
  expect(await daemon.exited).toBe(0)
  await one.stop()
}, 400_000)
