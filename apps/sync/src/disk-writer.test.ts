// writeFilesAtomic on real temp folders: contents, modes and mtimes, the replace flag, and one
// failing file not stopping the others (nothing of it left behind).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { TEMP_PREFIX, writeFilesAtomic } from './disk-writer.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'yfs-writer-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const bytesOf = (text: string) => new TextEncoder().encode(text)
const temps = (folder: string) => readdirSync(folder).filter((n) => n.startsWith(TEMP_PREFIX))

it('writes every file with its bytes, mode and mtime', async () => {
  mkdirSync(join(dir, 'a'))
  const mtimeMs = Date.UTC(2024, 0, 2, 3, 4, 5)
  const files = Array.from({ length: 40 }, (_, i) => ({
    host: join(dir, i % 2 ? 'a' : '', `f${i}.txt`),
    bytes: bytesOf(`file ${i}\n`),
    mode: i % 3 === 0 ? 0o755 : 0o644,
    mtimeMs,
  }))
  const outcomes = await writeFilesAtomic(files, { concurrency: 4 })
  files.forEach((f, i) => {
    expect(outcomes[i]).toEqual({ ok: true, mtimeMs: statSync(f.host).mtimeMs })
    expect(readFileSync(f.host, 'utf8')).toBe(`file ${i}\n`)
    expect(statSync(f.host).mode & 0o777).toBe(f.mode)
    expect(statSync(f.host).mtimeMs).toBe(mtimeMs)
  })
  expect([...temps(dir), ...temps(join(dir, 'a'))]).toEqual([])
})

it('replaces existing files unless told not to', async () => {
  writeFileSync(join(dir, 'kept.txt'), 'theirs\n')
  writeFileSync(join(dir, 'replaced.txt'), 'old\n')
  const [kept, fresh] = await writeFilesAtomic(
    [
      { host: join(dir, 'kept.txt'), bytes: bytesOf('ours\n') },
      { host: join(dir, 'new.txt'), bytes: bytesOf('new\n') },
    ],
    { replace: false },
  )
  expect(kept).toEqual({ ok: false, exists: true })
  expect(fresh?.ok).toBe(true)
  expect(readFileSync(join(dir, 'kept.txt'), 'utf8')).toBe('theirs\n')
  const [replaced] = await writeFilesAtomic([{ host: join(dir, 'replaced.txt'), bytes: bytesOf('new\n') }])
  expect(replaced?.ok).toBe(true)
  expect(readFileSync(join(dir, 'replaced.txt'), 'utf8')).toBe('new\n')
  expect(temps(dir)).toEqual([])
})

it('a file that cannot be written fails alone and leaves nothing behind', async () => {
  const outcomes = await writeFilesAtomic([
    { host: join(dir, 'one.txt'), bytes: bytesOf('1') },
    { host: join(dir, 'missing-folder', 'two.txt'), bytes: bytesOf('2') },
    { host: join(dir, 'three.txt'), bytes: bytesOf('3') },
  ])
  expect(outcomes.map((o) => o.ok)).toEqual([true, false, true])
  expect(outcomes[1]).toMatchObject({ ok: false, error: { code: 'ENOENT' } })
  expect(readdirSync(dir).sort()).toEqual(['one.txt', 'three.txt'])
})
