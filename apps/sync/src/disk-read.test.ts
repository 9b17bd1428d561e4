// readBytes on real temp files: a save landing while the file is read (an editor in the daemon's
// process, between two of its steps) never gives part of one version and part of another.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it, vi } from 'vitest'
import { readBytes } from './disk-read.js'

// Runs once right after readBytes has taken the file's size (its first fstat), when armed.
const afterSize = vi.hoisted(() => ({ run: undefined as (() => void) | undefined }))
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>()
  const fstatSync = ((...args: Parameters<typeof actual.fstatSync>) => {
    const stats = actual.fstatSync(...args)
    const run = afterSize.run
    afterSize.run = undefined
    run?.()
    return stats
  }) as typeof actual.fstatSync
  return { ...actual, default: { ...actual, fstatSync }, fstatSync }
})

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'yfs-read-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const text = (bytes: Uint8Array | undefined) => (bytes ? Buffer.from(bytes).toString('utf8') : bytes)
const SHORT = 'line 0\nline 1\n'
const LONG = 'disk 5 on 0\nline 1\nclient 4 on 2\n'

it('reads a save that lands after it took the size whole, not cut at the old size', async () => {
  const host = join(dir, 'f.txt')
  writeFileSync(host, SHORT)
  afterSize.run = () => writeFileSync(host, LONG)
  expect(text(await readBytes(host))).toBe(LONG)
  expect(afterSize.run).toBeUndefined()
})

it('gives one version or the other when an editor in this process saves as the file is read', async () => {
  // The daemon's upload and merge read the file as editors save it: with Node's asynchronous
  // readFile (size, then bytes, each a thread-pool step) a save between the two gave the new bytes
  // cut at the old size, which the daemon merged into the workspace as the disk's text.
  const host = join(dir, 'f.txt')
  const seen = new Set<string | undefined>()
  for (let i = 0; i < 200; i++) {
    writeFileSync(host, SHORT)
    const read = readBytes(host)
    setImmediate(() => writeFileSync(host, LONG))
    seen.add(text(await read))
    await new Promise((r) => setImmediate(r))
  }
  for (const got of seen) expect([SHORT, LONG]).toContain(got)
})

it('is undefined for a path that is gone or a folder', async () => {
  expect(await readBytes(join(dir, 'missing.txt'))).toBeUndefined()
  expect(await readBytes(dir)).toBeUndefined()
})
