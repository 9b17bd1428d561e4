/**
 * First run against a real `yfs serve`: an empty folder is materialised from
 * the workspace, an empty workspace ingests the folder, and when both have
 * content they are merged (same bytes: nothing; text: three-way with an
 * empty base; binary: both kept).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
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

  it('a disk edit made while the initial pass writes files still reaches the workspace', async () => {
    // The watcher starts after the initial pass; a second compare catches what changed meanwhile.
    const ws = await env.workspace('first-during')
    const writer = await env.connect(ws)
    await writer.fs.writeTree(
      Array.from({ length: 600 }, (_, i) => ({ path: `/d${i % 4}/f${i}.txt`, content: `file ${i}\n` })),
    )
    await writer.flush()
    const dir = tempDir()
    env.dirs.push(dir)
    writeFileSync(join(dir, 'early.txt'), 'before the pass\n')
    let edited = false
    const sync = await env.startSync(ws, dir, {
      onEvent: (e) => {
        // f0 is on disk: the initial pass is under way (or just done), nothing watches yet.
        if (e.type === 'progress' && !edited && existsSync(join(dir, 'd0', 'f0.txt'))) {
          edited = true
          writeFileSync(join(dir, 'during.txt'), 'written during the pass\n')
          writeFileSync(join(dir, 'd0', 'f0.txt'), 'edited during the pass\n')
        }
      },
    })
    expect(edited).toBe(true)
    await sync.sync.idle()
    expect(await writer.fs.readFile('/early.txt')).toBe('before the pass\n')
    expect(await sync.connection.fs.readFile('/during.txt')).toBe('written during the pass\n')
    expect(await sync.connection.fs.readFile('/d0/f0.txt')).toBe('edited during the pass\n')
    await sync.stop()
    // And the edit reached the server: another client reads it.
    const reader = await env.connect(ws)
    expect(await reader.fs.readFile('/d0/f0.txt')).toBe('edited during the pass\n')
    expect(readFileSync(join(dir, 'd3', 'f599.txt'), 'utf8')).toBe('file 599\n')
  })
})
