/**
 * First run against a real `yfs serve`: an empty folder is materialised from
 * the workspace, an empty workspace ingests the folder, and when both have
 * content they are merged (same bytes: nothing; text: three-way with an
 * empty base; binary: both kept).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SyncTestEnv, startEnv, tempDir } from './helpers.js'

let env: SyncTestEnv
beforeAll(async () => {
  env = await startEnv()
})
afterAll(async () => {
  await env?.close()
})

describe('first run', () => {
  it('ingests a folder into an empty workspace and materialises it in another folder', async () => {
    const ws = await env.workspace('first-ingest')
    const a = tempDir()
    const b = tempDir()
    env.dirs.push(a, b)
    mkdirSync(join(a, 'docs/deep'), { recursive: true })
    writeFileSync(join(a, 'hello.txt'), 'hello\n')
    writeFileSync(join(a, 'docs/deep/notes.md'), '# Notes\n\nSome text.\n')
    writeFileSync(join(a, 'blob.bin'), Buffer.from([0, 1, 2, 255, 254]))
    const one = await env.startSync(ws, a)
    expect(await one.connection.fs.readFile('/hello.txt')).toBe('hello\n')
    await one.connection.flush()
    const two = await env.startSync(ws, b)
    expect(readFileSync(join(b, 'hello.txt'), 'utf8')).toBe('hello\n')
    expect(readFileSync(join(b, 'docs/deep/notes.md'), 'utf8')).toBe('# Notes\n\nSome text.\n')
    expect([...readFileSync(join(b, 'blob.bin'))]).toEqual([0, 1, 2, 255, 254])
    await one.stop()
    await two.stop()
  })
})
