// `yfs sync <dir> --data DIR`: a workspace in a data folder with no server running, mirrored to a
// folder for as long as the command runs (the store served on loopback for the run), both ways.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { spawnProcess } from '@yfs/core/testing'
import { createSqliteStore } from '@yfs/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { yfs } from './run-cli.js'

const BIN = fileURLToPath(new URL('../bin/yfs.cjs', import.meta.url))

describe('yfs sync on a data folder', () => {
  const root = mkdtempSync(join(tmpdir(), 'yfs-sync-data-'))
  const data = join(root, '.yfs')
  const mirror = join(root, 'mirror')
  const at = ['--data', data, '--workspace', 'demo']
  beforeAll(async () => {
    const store = createSqliteStore({ file: join(data, 'yfs.sqlite') })
    await store.createWorkspace('demo')
    await store.close()
    expect((await yfs('bash', ...at, 'mkdir -p /notes && echo hello > /notes/a.txt')).code).toBe(0)
  }, 120_000)
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('mirrors the workspace both ways until stopped, and the data folder keeps the disk edits', async () => {
    const sync = spawnProcess(process.execPath, [BIN, 'sync', mirror, ...at, '--verbose'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const out = () => sync.stdout()
    try {
      await sync.waitForOutput((p) => p.stdout().includes('in sync'), 'the in sync line', 45_000)
      expect(readFileSync(join(mirror, 'notes/a.txt'), 'utf8')).toBe('hello\n')
      writeFileSync(join(mirror, 'notes/b.txt'), 'from the disk\n')
      // --verbose prints a line per change it carried; the data folder is read back after the stop.
      await sync.waitForOutput(
        () => /b\.txt/.test(out().slice(out().indexOf('in sync'))),
        'the upload line',
        30_000,
      )
    } finally {
      sync.kill('SIGTERM')
    }
    expect(await sync.exited).toBe(0)
    expect((await yfs('cat', '/notes/b.txt', ...at)).out).toBe('from the disk\n')
  }, 90_000)

  it('needs --server and --token, or a data folder: exit 2 otherwise', () => {
    const r = spawnSync(process.execPath, [BIN, 'sync', join(root, 'never'), '--workspace', 'demo'], {
      encoding: 'utf8',
      timeout: 60_000,
    })
    expect(r.status).toBe(2)
    expect(r.stderr).toContain('--server')
    expect(existsSync(join(root, 'never'))).toBe(false)
  }, 120_000)
})
