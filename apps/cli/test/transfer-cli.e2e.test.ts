// `yfs import` and `yfs export`: a folder with every kind of entry (text, binary, modes, times,
// symlinks, an empty folder, a unicode name) goes into a workspace and comes back out byte for
// byte, as a folder and through a tar file, on a data folder and on a running server; a tar that
// reaches outside its target is refused with nothing written.
import {
  createWriteStream,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { connectWorkspace } from '@yfs/client'
import { createSqliteStore } from '@yfs/server'
import { startTestServer, type TestServer } from '@yfs/server/testing'
import { pack } from 'tar-stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { yfs } from './run-cli.js'

/** Every entry under a folder: kind, bytes (base64), mode, mtime in seconds, link target. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string, rel: string) => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name)
      const path = rel ? `${rel}/${name}` : name
      const st = lstatSync(full)
      if (st.isSymbolicLink()) out[path] = `link ${readlinkSync(full)}`
      else if (st.isDirectory()) {
        out[path] = 'folder'
        walk(full, path)
      } else
        out[path] =
          `file ${(st.mode & 0o777).toString(8)} ${Math.round(st.mtimeMs / 1000)}s ${readFileSync(full).toString('base64')}`
    }
  }
  walk(root, '')
  return out
}

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `yfs-transfer-${name}-`))

describe('yfs import / yfs export', () => {
  const source = tmp('source')
  const data = tmp('data')
  let t: TestServer
  let token: string

  beforeAll(async () => {
    mkdirSync(join(source, 'src/deep/er'), { recursive: true })
    mkdirSync(join(source, 'empty'))
    writeFileSync(join(source, 'README.md'), '# Title\n\n- one\n- two\n')
    writeFileSync(join(source, 'src/deep/er/main.ts'), 'export const x = 1\n')
    writeFileSync(join(source, 'run.sh'), '#!/bin/sh\necho run\n', { mode: 0o755 })
    writeFileSync(join(source, 'secret.txt'), 'private\n', { mode: 0o600 })
    writeFileSync(
      join(source, 'bytes.bin'),
      Buffer.from(Array.from({ length: 512 }, (_, i) => (i * 131) % 256)),
    )
    writeFileSync(join(source, 'naïve 日本.txt'), 'unicode name\n')
    symlinkSync('src/deep/er/main.ts', join(source, 'main-link.ts'))
    symlinkSync('src', join(source, 'src-link'))
    // Whole seconds (a tar header keeps seconds), a different one per file.
    for (const [k, file] of [
      'README.md',
      'run.sh',
      'secret.txt',
      'bytes.bin',
      'naïve 日本.txt',
      'src/deep/er/main.ts',
    ].entries()) {
      const when = new Date(Date.UTC(2025, 2, 4, 5, 6, k))
      utimesSync(join(source, file), when, when)
    }
    const store = createSqliteStore({ file: join(data, 'yfs.sqlite') })
    for (const id of ['one', 'two']) await store.createWorkspace(id)
    await store.close()
    t = await startTestServer()
    token = (await t.workspace('team')).write
  })
  afterAll(async () => {
    await t.close()
    for (const dir of [source, data]) rmSync(dir, { recursive: true, force: true })
  })

  it('a folder round-trips through a data-folder workspace byte for byte, and through a tar into another', async () => {
    const imported = await yfs('import', source, '--data', data, '--workspace', 'one', '--json')
    expect(imported.code).toBe(0)
    expect(JSON.parse(imported.out)).toMatchObject({ files: 6, folders: 4, symlinks: 2 })
    const back = join(tmp('back'), 'out')
    expect((await yfs('export', back, '--data', data, '--workspace', 'one')).code).toBe(0)
    expect(snapshot(back)).toEqual(snapshot(source))

    const tar = join(tmp('tar'), 'one.tar')
    expect((await yfs('export', tar, '--data', data, '--workspace', 'one')).code).toBe(0)
    expect((await yfs('import', tar, '--data', data, '--workspace', 'two', '--to', '/restored')).code).toBe(0)
    const again = join(tmp('again'), 'out')
    expect(
      (await yfs('export', again, '--data', data, '--workspace', 'two', '--from', '/restored')).code,
    ).toBe(0)
    expect(snapshot(again)).toEqual(snapshot(source))
  }, 120_000)

  it('the same against a running server; another client sees the files', async () => {
    const at = ['--server', t.url, '--token', token, '--workspace', 'team']
    expect((await yfs('import', source, ...at, '--to', '/p')).code).toBe(0)
    const other = await connectWorkspace({ url: t.url, workspace: 'team', token })
    try {
      expect(await other.fs.readFile('/p/src/deep/er/main.ts')).toBe('export const x = 1\n')
      expect(await other.fs.readlink('/p/main-link.ts')).toBe('src/deep/er/main.ts')
      expect((await other.fs.stat('/p/run.sh')).mode & 0o777).toBe(0o755)
    } finally {
      await other.close()
    }
    const back = join(tmp('server-back'), 'out')
    expect((await yfs('export', back, ...at, '--from', '/p')).code).toBe(0)
    expect(snapshot(back)).toEqual(snapshot(source))
  }, 120_000)

  it('refuses a tar entry outside its target, and an export into a folder with files, changing nothing', async () => {
    const evil = join(tmp('evil'), 'evil.tar')
    const tar = pack()
    const writing = pipeline(tar, createWriteStream(evil))
    tar.entry({ name: 'fine.txt' }, 'fine\n')
    tar.entry({ name: '../escape.txt' }, 'out\n')
    tar.finalize()
    await writing
    const r = await yfs('import', evil, '--data', data, '--workspace', 'two', '--to', '/evil')
    expect(r.code).toBe(2)
    expect(r.err).toContain("yfs import: EINVAL: entry '../escape.txt'")
    const check = await yfs('bash', '--data', data, '--workspace', 'two', 'ls /evil /fine.txt 2>&1; true')
    expect(check.out).toContain('No such file')

    const full = tmp('full')
    writeFileSync(join(full, 'keep.txt'), 'mine\n')
    const e = await yfs('export', full, '--data', data, '--workspace', 'one')
    expect(e.code).toBe(2)
    expect(e.err).toContain('ENOTEMPTY')
    expect(readdirSync(full)).toEqual(['keep.txt'])
  }, 120_000)
})
