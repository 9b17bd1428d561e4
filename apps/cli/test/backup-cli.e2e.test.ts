// `yfs backup <file>` and `yfs restore <file>`: a real `yfs serve` on a SQLite data folder while
// a client keeps writing; backups from the data folder (beside the running server) and through
// the server; restores into a fresh data folder, a new server workspace and PostgreSQL give back
// every file's bytes, mode, symlinks, history versions and checkpoints; a corrupted or truncated
// file is refused with nothing written; a read token may back up but never restore.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import type { YjsFileSystem } from '@yfs/core'
import {
  createPostgresStore,
  createServer,
  createSqliteStore,
  type DocumentStore,
  silentLogger,
} from '@yfs/server'
import { dropSchema, POSTGRES_URL, postgresAvailable, testSchema, waitFor } from '@yfs/server/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { yfs } from './run-cli.js'
import { adminSetup, type ServerProcess, spawnServer } from './spawn-server.js'

const ADMIN = 'backup-admin-token'
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `yfs-backup-${name}-`))

/** Every path of a workspace: kind, mode, bytes, link target, versions (with their content). */
async function workspaceState(fs: YjsFileSystem): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {}
  const walk = async (dir: string) => {
    for (const name of (await fs.readdir(dir)).sort()) {
      const path = dir === '/' ? `/${name}` : `${dir}/${name}`
      const st = await fs.lstat(path)
      if (st.isSymbolicLink) out[path] = { link: await fs.readlink(path) }
      else if (st.isDirectory) {
        out[path] = { dir: st.mode & 0o7777 }
        await walk(path)
      } else {
        const versions = []
        for (const v of await fs.history(path)) {
          const content = await fs.readVersionContent(path, v.id)
          versions.push({
            ...v,
            content: content.text ?? Buffer.from(content.bytes ?? []).toString('base64'),
          })
        }
        out[path] = {
          mode: st.mode & 0o7777,
          bytes: Buffer.from(await fs.readFileBuffer(path)).toString('base64'),
          versions,
        }
      }
    }
  }
  await walk('/')
  out.checkpoints = fs.checkpoints()
  return out
}

/** The state of a workspace in a SQLite data folder or PostgreSQL store, through an in-process server. */
async function storeState(open: () => Promise<DocumentStore>, workspace: string) {
  const store = await open()
  const server = createServer({ store, logger: silentLogger })
  const { port } = await server.listen(0)
  const token = await store.createToken(workspace, 'read')
  const ws = await connectWorkspace({ url: `ws://127.0.0.1:${port}`, workspace, token })
  try {
    return await workspaceState(ws.fs)
  } finally {
    await ws.close()
    await server.close()
    await store.close()
  }
}

const sqliteState = (dir: string, workspace: string) =>
  storeState(async () => createSqliteStore({ file: join(dir, 'yfs.sqlite') }), workspace)

describe('yfs backup / yfs restore', () => {
  const data = tmp('data')
  let server: ServerProcess
  let write: string
  let read: string
  let client: WorkspaceConnection

  beforeAll(async () => {
    server = await spawnServer(['--data', data, '--admin-token', ADMIN])
    write = await adminSetup(server.http, ADMIN, 'team', 'write')
    read = await adminSetup(server.http, ADMIN, 'team', 'read')
    client = await connectWorkspace({ url: server.url, workspace: 'team', token: write })
    const fs = client.fs
    await fs.mkdir('/src/deep', { recursive: true })
    await fs.writeFile('/README.md', '# Title\n\nfirst\n')
    await fs.saveVersion('/README.md')
    await fs.writeFile('/README.md', '# Title\n\nsecond\n')
    await fs.saveVersion('/README.md')
    await fs.writeFile('/run.sh', '#!/bin/sh\necho run\n')
    await fs.chmod('/run.sh', 0o755)
    await fs.writeFile('/src/deep/bytes.bin', new Uint8Array(Array.from({ length: 300 }, (_, i) => i % 256)))
    await fs.symlink('src/deep/bytes.bin', '/link.bin')
    await fs.writeFile('/gone.txt', 'to the trash\n')
    await fs.checkpoint('before removing')
    await fs.rm('/gone.txt')
    await client.flush()
  }, 120_000)

  afterAll(async () => {
    await client?.close()
    await server?.stop('SIGTERM')
  })

  it('backs up while a client keeps writing; restores give back every file, mode and version', async () => {
    await client.fs.mkdir('/live', { recursive: true })
    let written = 0
    let stop = false
    const writer = (async () => {
      while (!stop) {
        await client.fs.writeFile(`/live/${written}.txt`, `line ${written}\n`.repeat(written + 1))
        // Each write reaches the server (and the event loop runs) before the next.
        await client.flush()
        written++
      }
    })()
    await waitFor(() => written >= 5, 'five live writes')
    const during = join(tmp('during'), 'team.yfsbackup')
    const duringServer = join(tmp('during-server'), 'team.yfsbackup')
    const local = await yfs('backup', during, '--data', data, '--workspace', 'team', '--json')
    const remote = await yfs(
      'backup',
      duringServer,
      '--server',
      server.url,
      '--token',
      read,
      '--workspace',
      'team',
    )
    const atEnd = written
    await waitFor(() => written >= atEnd + 3, 'writes after the backups')
    stop = true
    await writer
    await client.flush()
    expect(local.code, local.err).toBe(0)
    expect(remote.code, remote.err).toBe(0)
    expect(JSON.parse(local.out)).toMatchObject({ workspace: 'team', file: during })

    // The backups taken during the writes restore to a consistent workspace: the set-up tree
    // as it was, and some of the live files, each whole.
    const before = await workspaceState(client.fs)
    for (const [i, file] of [during, duringServer].entries()) {
      const fresh = tmp(`fresh-${i}`)
      const r = await yfs('restore', file, '--data', fresh, '--workspace', 'team')
      expect(r.code, r.err).toBe(0)
      const state = await sqliteState(fresh, 'team')
      for (const path of [
        '/README.md',
        '/run.sh',
        '/src/deep/bytes.bin',
        '/link.bin',
        '/src',
        'checkpoints',
      ]) {
        expect(state[path]).toEqual(before[path])
      }
      const live = Object.keys(state).filter((p) => p.startsWith('/live/'))
      expect(live.length).toBeGreaterThan(0)
      expect(live.length).toBeLessThan(written)
    }

    // A backup of the quiet workspace restores to an equal one: in a fresh data folder …
    const quiet = join(tmp('quiet'), 'team.yfsbackup')
    expect(
      (await yfs('backup', quiet, '--server', server.url, '--token', read, '--workspace', 'team')).code,
    ).toBe(0)
    const fresh = tmp('fresh')
    expect((await yfs('restore', quiet, '--data', fresh, '--workspace', 'copy')).code).toBe(0)
    expect(await sqliteState(fresh, 'copy')).toEqual(before)

    // … and on the running server, as a new workspace made by the admin token.
    const r = await yfs(
      'restore',
      quiet,
      '--server',
      server.url,
      '--token',
      ADMIN,
      '--workspace',
      'team2',
      '--json',
    )
    expect(r.code, r.err).toBe(0)
    expect(JSON.parse(r.out)).toMatchObject({ workspace: 'team2', from: 'team' })
    const token2 = await adminSetup(server.http, ADMIN, 'team2', 'read')
    const other = await connectWorkspace({ url: server.url, workspace: 'team2', token: token2 })
    try {
      expect(await workspaceState(other.fs)).toEqual(before)
    } finally {
      await other.close()
    }
  }, 180_000)

  it('refuses a read token, a non-empty workspace and a corrupted or truncated file, writing nothing', async () => {
    const file = join(tmp('refuse'), 'team.yfsbackup')
    expect(
      (await yfs('backup', file, '--server', server.url, '--token', write, '--workspace', 'team')).code,
    ).toBe(0)
    const workspaces = async () =>
      (
        (await (
          await fetch(`${server.http}/api/workspaces`, { headers: { authorization: `Bearer ${ADMIN}` } })
        ).json()) as { workspaces: string[] }
      ).workspaces

    const readOnly = await yfs(
      'restore',
      file,
      '--server',
      server.url,
      '--token',
      read,
      '--workspace',
      'team',
    )
    expect(readOnly.code).toBe(1)
    expect(readOnly.err).toMatch(/EACCES/)

    const notEmpty = await yfs(
      'restore',
      file,
      '--server',
      server.url,
      '--token',
      write,
      '--workspace',
      'team',
    )
    expect(notEmpty.code).toBe(1)
    expect(notEmpty.err).toMatch(/EEXIST/)
    const localNotEmpty = await yfs('restore', file, '--data', data, '--workspace', 'team')
    expect(localNotEmpty.code).toBe(1)
    expect(localNotEmpty.err).toMatch(/EBUSY/) // the server holds the folder

    const bytes = readFileSync(file)
    const truncated = join(tmp('truncated'), 'x.yfsbackup')
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.byteLength / 2)))
    const corrupted = join(tmp('corrupted'), 'x.yfsbackup')
    const flipped = Buffer.from(bytes)
    const at = bytes.indexOf('"state":"') + 20
    flipped[at] = flipped[at] === 0x41 ? 0x42 : 0x41
    writeFileSync(corrupted, flipped)
    for (const bad of [truncated, corrupted]) {
      const target = join(tmp('bad'), 'data')
      const local = await yfs('restore', bad, '--data', target, '--workspace', 'team')
      expect(local.code).toBe(1)
      expect(local.err).toMatch(/EINVAL: not a valid yfs backup/)
      expect(existsSync(target)).toBe(false)
      const remote = await yfs(
        'restore',
        bad,
        '--server',
        server.url,
        '--token',
        ADMIN,
        '--workspace',
        'team3',
      )
      expect(remote.code).toBe(1)
      expect(remote.err).toMatch(/EINVAL/)
    }
    expect(await workspaces()).not.toContain('team3')

    const missing = await yfs('restore', join(tmp('missing'), 'nope'), '--data', tmp('x'), '--workspace', 'w')
    expect(missing.code).toBe(1)
    expect(missing.err).toMatch(/ENOENT/)
  }, 120_000)

  it('round-trips through PostgreSQL', async (ctx) => {
    if (!(await postgresAvailable())) return ctx.skip()
    const schema = testSchema('yfs_backup')
    try {
      const file = join(tmp('pg'), 'team.yfsbackup')
      expect((await yfs('backup', file, '--data', data, '--workspace', 'team')).code).toBe(0)
      const pg = ['--postgres', POSTGRES_URL, '--pg-schema', schema, '--workspace', 'pgteam']
      const r = await yfs('restore', file, ...pg)
      expect(r.code, r.err).toBe(0)
      const again = join(tmp('pg-again'), 'team.yfsbackup')
      expect((await yfs('backup', again, ...pg)).code).toBe(0)
      const fresh = tmp('pg-fresh')
      expect((await yfs('restore', again, '--data', fresh, '--workspace', 'team')).code).toBe(0)
      const expected = await sqliteState(fresh, 'team')
      expect(await storeState(() => createPostgresStore({ url: POSTGRES_URL, schema }), 'pgteam')).toEqual(
        expected,
      )
      expect(expected['/README.md']).toEqual((await workspaceState(client.fs))['/README.md'])
    } finally {
      await dropSchema(schema)
    }
  }, 120_000)
})
