/**
 * Offline and restarts against a real `yfs serve`: the daemon is stopped,
 * both sides change, and the next start merges by the rules documented in
 * reconcile.ts (deletes of unchanged files are not resurrected, an edit
 * beats a delete, edits on both sides merge). Ends with a SIGKILL of the
 * real `yfs sync` CLI during a burst of disk edits: after a restart every
 * edit is in the workspace.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { WorkspaceConnection } from '@yfs/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SyncTestEnv, spawnDaemon, startEnv, tempDir, waitFor } from './helpers.js'

let env: SyncTestEnv
beforeAll(async () => {
  env = await startEnv()
})
afterAll(async () => {
  await env?.close()
})

async function setup(name: string) {
  const ws = await env.workspace(name)
  const dir = tempDir()
  env.dirs.push(dir)
  const client = await env.connect(ws)
  return { ws, dir, client }
}

const read = (dir: string, p: string) =>
  existsSync(join(dir, p)) ? readFileSync(join(dir, p), 'utf8') : undefined
const wsText = (c: WorkspaceConnection, p: string) => c.fs.readFile(p).catch(() => undefined)

describe('restart after being offline', () => {
  it('applies disk edits, remote edits, and deletes on either side made while stopped', async () => {
    const { ws, dir, client } = await setup('offline-basic')
    writeFileSync(join(dir, 'disk-edit.txt'), 'before\n')
    writeFileSync(join(dir, 'remote-edit.txt'), 'before\n')
    writeFileSync(join(dir, 'disk-delete.txt'), 'x\n')
    writeFileSync(join(dir, 'remote-delete.txt'), 'y\n')
    writeFileSync(join(dir, 'both.txt'), 'one\ntwo\nthree\nfour\nfive\n')
    let daemon = await env.startSync(ws, dir)
    await daemon.connection.flush()
    await daemon.stop()
    await waitFor(() => client.fs.index.lookup('/both.txt'), 'files in the client')

    writeFileSync(join(dir, 'disk-edit.txt'), 'after on disk\n')
    rmSync(join(dir, 'disk-delete.txt'))
    writeFileSync(join(dir, 'both.txt'), 'one\ntwo (disk)\nthree\nfour\nfive\n')
    writeFileSync(join(dir, 'new-on-disk.txt'), 'new\n')
    await client.fs.writeFile('/remote-edit.txt', 'after remotely\n')
    await client.fs.rm('/remote-delete.txt')
    await client.fs.writeFile('/both.txt', 'one\ntwo\nthree\nfour (remote)\nfive\n')
    await client.fs.writeFile('/new-remote.txt', 'remote new\n')
    await client.flush()

    daemon = await env.startSync(ws, dir)
    await daemon.connection.flush()
    expect(await wsText(client, '/disk-edit.txt')).toBe('after on disk\n')
    expect(read(dir, 'remote-edit.txt')).toBe('after remotely\n')
    await waitFor(
      () => client.fs.index.lookup('/disk-delete.txt') === undefined,
      'disk delete reaches the workspace',
    )
    expect(existsSync(join(dir, 'remote-delete.txt'))).toBe(false)
    expect(read(dir, 'new-remote.txt')).toBe('remote new\n')
    await waitFor(async () => (await wsText(client, '/new-on-disk.txt')) === 'new\n', 'new disk file')
    const merged = 'one\ntwo (disk)\nthree\nfour (remote)\nfive\n'
    expect(read(dir, 'both.txt')).toBe(merged)
    await waitFor(async () => (await wsText(client, '/both.txt')) === merged, 'merge in the client')
    await daemon.stop()
  })

  it('an edit beats a delete: a remote delete plus a disk edit restores the file with its id', async () => {
    const { ws, dir, client } = await setup('offline-edit-vs-delete')
    writeFileSync(join(dir, 'keep.txt'), 'v1\n')
    writeFileSync(join(dir, 'gone.txt'), 'v1\n')
    let daemon = await env.startSync(ws, dir)
    await daemon.connection.flush()
    await daemon.stop()
    const id = await waitFor(() => client.fs.index.lookup('/keep.txt'), 'keep in client')
    await client.fs.rm('/keep.txt')
    await client.fs.writeFile('/gone.txt', 'v2 remote\n')
    await client.flush()
    writeFileSync(join(dir, 'keep.txt'), 'v2 edited on disk\n')
    rmSync(join(dir, 'gone.txt'))

    daemon = await env.startSync(ws, dir)
    await daemon.connection.flush()
    await waitFor(async () => (await wsText(client, '/keep.txt')) === 'v2 edited on disk\n', 'edit restores')
    expect(client.fs.index.lookup('/keep.txt')).toBe(id)
    expect(read(dir, 'gone.txt')).toBe('v2 remote\n')
    await daemon.stop()
  })

  it('a rename in the workspace while stopped is a rename on disk', async () => {
    const { ws, dir, client } = await setup('offline-rename')
    mkdirSync(join(dir, 'folder'))
    writeFileSync(join(dir, 'folder/a.txt'), 'a\n')
    let daemon = await env.startSync(ws, dir)
    await daemon.connection.flush()
    await daemon.stop()
    await waitFor(() => client.fs.index.lookup('/folder/a.txt'), 'a in client')
    await client.fs.mv('/folder', '/renamed')
    await client.flush()
    daemon = await env.startSync(ws, dir)
    expect(read(dir, 'renamed/a.txt')).toBe('a\n')
    expect(existsSync(join(dir, 'folder'))).toBe(false)
    expect(
      daemon.events.some((e) => e.type === 'change' && e.action === 'move' && e.path === '/renamed'),
    ).toBe(true)
    await daemon.stop()
  })
})

describe('crash', () => {
  it('SIGKILL during a burst of disk edits, then a restart: every edit reaches the workspace', async () => {
    const { ws, dir, client } = await setup('sigkill')
    const first = spawnDaemon(env.server, ws, dir)
    await first.ready
    const count = 60
    for (let i = 0; i < count; i++) {
      writeFileSync(join(dir, `burst-${i}.txt`), `edit ${i}\n`)
      if (i === count / 2) first.child.kill('SIGKILL')
      await new Promise((r) => setTimeout(r, 2))
    }
    await first.exited
    const second = spawnDaemon(env.server, ws, dir)
    await second.ready
    await waitFor(
      async () => {
        for (let i = 0; i < count; i++)
          if ((await wsText(client, `/burst-${i}.txt`)) !== `edit ${i}\n`) return false
        return true
      },
      'every burst edit in the workspace',
      30_000,
    )
    second.child.kill('SIGINT')
    expect(await second.exited).toBe(0)
  })
})
