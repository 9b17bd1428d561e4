/**
 * Edge cases against a real `yfs serve` and real temp folders: a synced file
 * growing over the size limit, the folder itself removed, a chmod alone, a
 * symlink whose target does not resolve, and a file replaced by a folder (and
 * back) on disk.
 */

import { execFileSync } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { hostname } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { WorkspaceConnection } from '@yfs/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SyncEvent } from '../src/sync-events.js'
import { type SyncTestEnv, sameRowsAsServer, spawnDaemon, startEnv, tempDir, waitFor } from './helpers.js'

let env: SyncTestEnv
beforeAll(async () => {
  env = await startEnv()
})
afterAll(async () => {
  await env?.close()
})

async function setup(name: string, files: Record<string, string> = {}) {
  const ws = await env.workspace(name)
  const dir = tempDir()
  env.dirs.push(dir)
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), content)
  }
  const client = await env.connect(ws)
  return { ws, dir, client }
}

const text = (client: WorkspaceConnection, path: string) => client.fs.readFile(path).catch(() => undefined)
const errors = (events: SyncEvent[]) => events.filter((e) => e.type === 'error')

describe('refused is not deleted', () => {
  it('a synced file that grows over the size limit is reported once and kept in the workspace', async () => {
    const { ws, dir, client } = await setup('grows', { 'grow.txt': 'small\n' })
    const daemon = await env.startSync(ws, dir)
    await waitFor(async () => (await text(client, '/grow.txt')) === 'small\n', 'grow.txt in client')
    daemon.connection.fs.limits.maxFileSize = 1024
    const big = 'x'.repeat(4096)
    writeFileSync(join(dir, 'grow.txt'), big)
    const efbig = () => daemon.events.filter((e) => e.type === 'skip' && e.code === 'EFBIG')
    await waitFor(() => efbig().length > 0, 'EFBIG reported')
    // It settles (no refusal loop) and nothing is deleted or truncated on either side.
    await daemon.sync.idle(5000)
    await new Promise((r) => setTimeout(r, 500))
    await daemon.sync.idle(5000)
    expect(efbig().length).toBe(1)
    // A full compare (as after a restart) leaves it alone too.
    await daemon.sync.rescan()
    await daemon.connection.flush()
    expect(client.fs.index.lookup('/grow.txt')).toBeDefined()
    expect(await text(client, '/grow.txt')).toBe('small\n')
    // A remote edit meanwhile neither overwrites nor merges into the big disk file.
    await client.fs.writeFile('/grow.txt', 'small\nedited\n')
    await waitFor(() => efbig().length >= 3, 'refusal of the download')
    await daemon.sync.idle(5000)
    expect(readFileSync(join(dir, 'grow.txt'), 'utf8')).toBe(big)
    expect(await text(client, '/grow.txt')).toBe('small\nedited\n')
    expect(errors(daemon.events)).toEqual([])
    await daemon.stop()
  })
})

describe('the folder itself removed', () => {
  it('stops the daemon with exit 1 and deletes nothing in the workspace', async () => {
    const { ws, dir, client } = await setup('root-removed', { 'a.txt': 'a\n', 'b/c.txt': 'c\n' })
    const daemon = spawnDaemon(env.server, ws, dir)
    try {
      await daemon.ready
      await waitFor(() => client.fs.index.lookup('/b/c.txt'), 'c.txt in client')
      rmSync(dir, { recursive: true, force: true })
      expect(await daemon.exited).toBe(1)
    } finally {
      if (daemon.child.exitCode === null) daemon.child.kill('SIGKILL')
    }
    expect(daemon.events).toContainEqual(expect.objectContaining({ type: 'error' }))
    // Whatever the daemon sent before it stopped has reached the client.
    await sameRowsAsServer(env, ws, client)
    expect(await text(client, '/a.txt')).toBe('a\n')
    expect(await text(client, '/b/c.txt')).toBe('c\n')
    expect(client.fs.trash.list()).toEqual([])
    // The daemon signs its versions as the disk of its host (the history and activity panels show it).
    expect((await client.fs.history('/a.txt')).map((v) => v.author)).toEqual([`disk:${hostname()}`])
  })

  it('a folder replaced by a new empty one is not a delete of everything either', async () => {
    const { ws, dir, client } = await setup('root-replaced', { 'a.txt': 'a\n' })
    const daemon = await env.startSync(ws, dir)
    await waitFor(() => client.fs.index.lookup('/a.txt'), 'a.txt in client')
    rmSync(dir, { recursive: true, force: true })
    mkdirSync(dir)
    await waitFor(() => daemon.events.some((e) => e.type === 'stopped'), 'sync stopped')
    expect(await text(client, '/a.txt')).toBe('a\n')
    expect(client.fs.trash.list()).toEqual([])
  })
})

describe('changes chokidar does not report', () => {
  const modeOf = (client: WorkspaceConnection, path: string) => {
    const id = client.fs.index.lookup(path)
    return id === undefined ? undefined : (client.fs.table.get(id)?.mode ?? 0o644)
  }
  it('a chmod alone on disk reaches the workspace, both ways of the bit', async () => {
    const { ws, dir, client } = await setup('chmod', { 'run.sh': '#!/bin/sh\necho hi\n' })
    const daemon = await env.startSync(ws, dir)
    await waitFor(() => client.fs.index.lookup('/run.sh'), 'run.sh in client')
    // Read after the write (as editors and the daemon do): the atime passes the mtime.
    readFileSync(join(dir, 'run.sh'))
    chmodSync(join(dir, 'run.sh'), 0o755)
    await waitFor(() => modeOf(client, '/run.sh') === 0o755, 'mode +x in client')
    chmodSync(join(dir, 'run.sh'), 0o644)
    await waitFor(() => modeOf(client, '/run.sh') === 0o644, 'mode -x in client')
    expect(statSync(join(dir, 'run.sh')).mode & 0o777).toBe(0o644)
    await daemon.stop()
  })

  it('a symlink whose target does not exist is mirrored; one retargeted out of the folder is refused', async () => {
    const { ws, dir, client } = await setup('dangling', { 'in.txt': 'in\n' })
    const daemon = await env.startSync(ws, dir)
    await waitFor(() => client.fs.index.lookup('/in.txt'), 'in.txt in client')
    symlinkSync('not-yet.txt', join(dir, 'dangling'))
    await waitFor(() => client.fs.index.lookup('/dangling'), 'dangling link in client')
    expect(client.fs.table.get(client.fs.index.lookup('/dangling')!)?.target).toBe('not-yet.txt')
    rmSync(join(dir, 'dangling'))
    symlinkSync('../outside-missing', join(dir, 'dangling'))
    await waitFor(
      () => daemon.events.some((e) => e.type === 'skip' && e.path === '/dangling' && e.code === 'EACCES'),
      'refusal of the retargeted link',
    )
    await daemon.stop()
  })
})

describe('a path changing kind on disk', () => {
  it('file → folder and folder → file are a delete and a create in the workspace', async () => {
    const { ws, dir, client } = await setup('kind', { a: 'file a\n', 'd/x.txt': 'x\n' })
    const daemon = await env.startSync(ws, dir)
    await waitFor(() => client.fs.index.lookup('/d/x.txt'), 'x.txt in client')
    const fileId = client.fs.index.lookup('/a')
    rmSync(join(dir, 'a'))
    mkdirSync(join(dir, 'a'))
    writeFileSync(join(dir, 'a/in.txt'), 'in\n')
    rmSync(join(dir, 'd'), { recursive: true })
    writeFileSync(join(dir, 'd'), 'now a file\n')
    await waitFor(
      async () =>
        (await text(client, '/a/in.txt')) === 'in\n' && (await text(client, '/d')) === 'now a file\n',
      'both replacements in client',
    )
    await daemon.sync.idle()
    const row = (path: string) => client.fs.table.get(client.fs.index.lookup(path)!)!
    expect(row('/a').type).toBe('folder')
    expect(row('/d').type).toBe('file')
    expect(client.fs.index.lookup('/d/x.txt')).toBeUndefined()
    // The old file went to the trash (recoverable), and nothing failed on the way.
    expect(client.fs.trash.list().some((t) => t.id === fileId)).toBe(true)
    expect(errors(daemon.events)).toEqual([])
    expect(existsSync(join(dir, 'a/in.txt'))).toBe(true)
    await daemon.stop()
  })
})

describe('a path changing kind on disk while the daemon is stopped', () => {
  it('is the same delete and create at the next start; changed in the workspace meanwhile, both are kept', async () => {
    const { ws, dir, client } = await setup('kind-offline', {
      a: 'file a\n',
      b: 'file b\n',
      'd/x.txt': 'x\n',
    })
    const first = await env.startSync(ws, dir)
    await waitFor(() => client.fs.index.lookup('/d/x.txt') && client.fs.index.lookup('/b'), 'files in client')
    await first.stop()
    rmSync(join(dir, 'a'))
    mkdirSync(join(dir, 'a'))
    writeFileSync(join(dir, 'a/in.txt'), 'in\n')
    rmSync(join(dir, 'd'), { recursive: true })
    writeFileSync(join(dir, 'd'), 'now a file\n')
    // /b: replaced on disk, but edited in the workspace meanwhile.
    rmSync(join(dir, 'b'))
    mkdirSync(join(dir, 'b'))
    writeFileSync(join(dir, 'b/in.txt'), 'in b\n')
    await client.fs.writeFile('/b', 'file b\nedited\n')
    await client.flush()
    const again = await env.startSync(ws, dir)
    await again.connection.flush()
    await waitFor(
      async () =>
        (await text(client, '/a/in.txt')) === 'in\n' && (await text(client, '/d')) === 'now a file\n',
      'both replacements in client',
    )
    expect(client.fs.index.lookup('/d/x.txt')).toBeUndefined()
    expect(await text(client, '/b')).toBe('file b\nedited\n')
    expect(readFileSync(join(dir, 'b/in.txt'), 'utf8')).toBe('in b\n')
    expect(again.events).toContainEqual(expect.objectContaining({ type: 'skip', path: '/b', code: 'EEXIST' }))
    expect(errors(again.events)).toEqual([])
    await again.stop()
  })
})

describe("the daemon's own state edited by a person", () => {
  it('an unreadable state refuses to start with a message naming the file; moved away, a first run merges without deleting', async () => {
    const { ws, dir, client } = await setup('state-garbage', { 'a.txt': 'a\n' })
    const first = await env.startSync(ws, dir)
    await waitFor(() => client.fs.index.lookup('/a.txt'), 'a.txt in client')
    await first.stop()
    writeFileSync(join(dir, '.yfs-sync/state.sqlite'), 'not a database, edited by hand')
    await expect(env.startSync(ws, dir)).rejects.toThrow(
      /state\.sqlite is unreadable.*move \.yfs-sync\/ away/,
    )
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('a\n')
    rmSync(join(dir, '.yfs-sync'), { recursive: true })
    writeFileSync(join(dir, 'b.txt'), 'b\n')
    const again = await env.startSync(ws, dir)
    await waitFor(() => client.fs.index.lookup('/b.txt'), 'b.txt in client')
    expect(await text(client, '/a.txt')).toBe('a\n')
    expect(errors(again.events)).toEqual([])
    await again.stop()
  })
})

/** True when users other than the owner can reach `path` (every folder above it searchable by others). */
function reachableByOthers(path: string): boolean {
  for (let d = path; ; d = dirname(d)) {
    if ((statSync(d).mode & 0o001) === 0) return false
    if (d === dirname(d)) return true
  }
}

describe('entries the daemon may not read', () => {
  it('an unreadable file or folder is reported and left alone; the rest syncs', async (ctx) => {
    // As root the daemon runs as `nobody` (below), which must reach this checkout to start.
    const checkout = fileURLToPath(new URL('../../..', import.meta.url))
    if (process.getuid?.() === 0 && !reachableByOthers(checkout)) {
      const reason = `the checkout ${checkout} is not reachable by nobody (a folder above it is mode 0700), so the daemon cannot run as nobody`
      console.log(`skipped: ${reason}`)
      ctx.skip(reason)
    }
    const { ws, dir, client } = await setup('unreadable', {
      'a.txt': 'a\n',
      'secret.txt': 's\n',
      'locked/x.txt': 'x\n',
    })
    // Root reads everything: the daemon then runs as `nobody`, on a folder it owns.
    const root = process.getuid?.() === 0
    const as = root ? { uid: 65534, gid: 65534 } : {}
    if (root) execFileSync('chown', ['-R', '65534:65534', dir])
    const first = spawnDaemon(env.server, ws, dir, [], as)
    try {
      await first.ready
      await waitFor(() => client.fs.index.lookup('/locked/x.txt'), 'x.txt in client')
      // The CLI takes signals from its ready event on.
      first.child.kill('SIGTERM')
      expect(await first.exited).toBe(0)
    } finally {
      if (first.child.exitCode === null) first.child.kill('SIGKILL')
    }
    // Made unreadable while stopped: neither a start-up failure nor a delete in the workspace.
    if (root) execFileSync('chown', ['0:0', join(dir, 'secret.txt'), join(dir, 'locked')])
    chmodSync(join(dir, 'secret.txt'), 0o000)
    chmodSync(join(dir, 'locked'), 0o000)
    const daemon = spawnDaemon(env.server, ws, dir, [], as)
    try {
      await daemon.ready
      const skipped = (path: string) =>
        daemon.events.some((e) => e.type === 'skip' && e.code === 'EACCES' && e.path === path)
      expect(skipped('/locked')).toBe(true)
      // A workspace edit of the unreadable file is refused, not written over it.
      await client.fs.writeFile('/secret.txt', 's\nedited\n')
      await waitFor(() => skipped('/secret.txt'), 'refusal of secret.txt')
      writeFileSync(join(dir, 'b.txt'), 'b\n')
      if (root) execFileSync('chown', ['65534:65534', join(dir, 'b.txt')])
      await waitFor(() => client.fs.index.lookup('/b.txt'), 'b.txt in client')
      expect(await text(client, '/secret.txt')).toBe('s\nedited\n')
      expect(await text(client, '/locked/x.txt')).toBe('x\n')
      expect(client.fs.trash.list()).toEqual([])
    } finally {
      daemon.child.kill('SIGTERM')
      await daemon.exited
      chmodSync(join(dir, 'secret.txt'), 0o644)
      chmodSync(join(dir, 'locked'), 0o755)
    }
    expect(readFileSync(join(dir, 'secret.txt'), 'utf8')).toBe('s\n')
  })
})

describe('names that look like the daemon’s', () => {
  it("a person's file starting with the temp prefix survives the start-up sweep of stray temps", async () => {
    const { ws, dir } = await setup('temp-like', {
      '.yfs-sync-tmp-notes.txt': 'mine\n',
      'sub/.yfs-sync-tmp-draft': 'mine too\n',
      // A stray temp of a killed daemon (its shape: prefix, run, counter, '-', name).
      'sub/.yfs-sync-tmp-0123abcd1f-a.txt': 'half written',
    })
    const daemon = await env.startSync(ws, dir)
    expect(readFileSync(join(dir, '.yfs-sync-tmp-notes.txt'), 'utf8')).toBe('mine\n')
    expect(readFileSync(join(dir, 'sub/.yfs-sync-tmp-draft'), 'utf8')).toBe('mine too\n')
    expect(existsSync(join(dir, 'sub/.yfs-sync-tmp-0123abcd1f-a.txt'))).toBe(false)
    await daemon.stop()
  })
})

describe('a sync folder given as a symlink', () => {
  it('syncs live through the link (the removed-folder check looks at the folder it points to)', async () => {
    const { ws, dir, client } = await setup('root-link', { 'a.txt': 'a\n' })
    const link = `${dir}-link`
    symlinkSync(dir, link)
    env.dirs.push(link)
    const daemon = await env.startSync(ws, link)
    await waitFor(() => client.fs.index.lookup('/a.txt'), 'a.txt in client')
    writeFileSync(join(dir, 'b.txt'), 'b\n')
    await waitFor(() => client.fs.index.lookup('/b.txt'), 'b.txt in client')
    await client.fs.writeFile('/c.txt', 'c\n')
    await waitFor(() => existsSync(join(dir, 'c.txt')), 'c.txt on disk')
    expect(daemon.events.some((e) => e.type === 'stopped')).toBe(false)
    await daemon.stop()
  })
})

describe('files without a merge base', () => {
  it('a disk save racing a workspace edit of a text over 1 MB keeps both (a conflict copy, or merged in core), never drops one', async () => {
    const lines = Array.from({ length: 40_000 }, (_, i) => `line number ${i} with some padding text`)
    const { ws, dir, client } = await setup('big-text', { 'big.txt': `${lines.join('\n')}\n` })
    const daemon = await env.startSync(ws, dir)
    await waitFor(() => client.fs.index.lookup('/big.txt'), 'big.txt in client')
    await daemon.sync.idle()
    const remote = [...lines]
    remote[0] = 'REMOTE EDIT'
    const local = [...lines]
    local[39_999] = 'DISK EDIT'
    writeFileSync(join(dir, 'big.txt'), `${local.join('\n')}\n`)
    await client.fs.writeFile('/big.txt', `${remote.join('\n')}\n`)
    // Who sees whom first is a race. The daemon meeting both changes keeps both as a conflict
    // copy; the workspace edit arriving while the disk upload waits in core's write queue is
    // merged there (core's stale write, against what the daemon last saw). Neither edit is dropped.
    const copy = join(dir, 'big (conflict).txt')
    const disk = () =>
      [join(dir, 'big.txt'), copy].map((f) => (existsSync(f) ? readFileSync(f, 'utf8') : undefined))
    const both = (side: (string | undefined)[]) =>
      side.some((t) => t?.includes('REMOTE EDIT')) && side.some((t) => t?.includes('DISK EDIT'))
    await waitFor(() => both(disk()), 'both edits on disk')
    await daemon.sync.idle()
    await daemon.connection.flush()
    const onDisk = disk()
    // The other client hears of the daemon's upload (a conflict copy, a merge) after the server has it.
    const workspace = async () => [await text(client, '/big.txt'), await text(client, '/big (conflict).txt')]
    await waitFor(async () => both(await workspace()), 'both edits in the workspace')
    const inWs = await workspace()
    for (const side of [onDisk, inWs]) {
      expect(side.some((t) => t?.includes('REMOTE EDIT'))).toBe(true)
      expect(side.some((t) => t?.includes('DISK EDIT'))).toBe(true)
    }
    // Both sides agree. A conflict copy is reported as one; without a copy the two edits met in
    // one text (the daemon's upload and the client's write merged as Yjs edits of one Y.Text, or
    // a stale write merged in core), so big.txt itself holds both.
    expect(inWs).toEqual(onDisk)
    if (onDisk[1] !== undefined)
      expect(daemon.events).toContainEqual(
        expect.objectContaining({ type: 'change', action: 'conflict', path: '/big (conflict).txt' }),
      )
    else expect(both([onDisk[0]])).toBe(true)
    await daemon.stop()
  })
})
