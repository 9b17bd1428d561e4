/**
 * Live sync both ways against a real `yfs serve`: one daemon (syncFolder
 * over a real client connection) on a temp folder, and a second
 * `@yfs/client` playing the person in the browser. Waits are bounded polls;
 * the 1 s limits are the latency promise for single edits.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { WorkspaceConnection } from '@yfs/client'
import type { FileId } from '@yfs/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SyncTestEnv, startEnv, tempDir, waitFor } from './helpers.js'

let env: SyncTestEnv
let dir: string
let client: WorkspaceConnection
let daemon: Awaited<ReturnType<SyncTestEnv['startSync']>>

const read = (p: string) => readFileSync(join(dir, p), 'utf8')
const readOr = (p: string) => (existsSync(join(dir, p)) ? read(p) : undefined)
const text = (p: string) => client.fs.readFile(p).catch(() => undefined)

beforeAll(async () => {
  env = await startEnv()
  const ws = await env.workspace('live')
  dir = tempDir()
  env.dirs.push(dir)
  writeFileSync(join(dir, 'start.txt'), 'start\n')
  daemon = await env.startSync(
    ws,
    dir,
    process.env.DBG ? { onEvent: (e) => console.log(JSON.stringify(e)) } : {},
  )
  client = await env.connect(ws)
  await waitFor(() => client.fs.index.lookup('/start.txt'), 'start.txt in the client')
})
afterAll(async () => {
  await env?.close()
})

describe('workspace → disk', () => {
  it('a client write reaches the disk within 1 s', async () => {
    await client.fs.writeFile('/from-client.txt', 'one\n')
    await waitFor(() => readOr('from-client.txt') === 'one\n', 'create on disk', 1000)
    await client.fs.writeFile('/from-client.txt', 'one\ntwo\n')
    await waitFor(() => readOr('from-client.txt') === 'one\ntwo\n', 'edit on disk', 1000)
  })

  it('rename, move, delete and restore in the workspace', async () => {
    await client.fs.mkdir('/a/b', { recursive: true })
    await client.fs.writeFile('/a/b/f.txt', 'f\n')
    await waitFor(() => readOr('a/b/f.txt') === 'f\n', 'nested file on disk')
    await client.fs.mv('/a/b/f.txt', '/a/g.txt')
    await waitFor(
      () => readOr('a/g.txt') === 'f\n' && !existsSync(join(dir, 'a/b/f.txt')),
      'file move on disk',
    )
    await client.fs.mv('/a', '/renamed')
    await waitFor(
      () => readOr('renamed/g.txt') === 'f\n' && !existsSync(join(dir, 'a')),
      'folder rename on disk',
    )
    const id = client.fs.index.lookup('/renamed/g.txt')!
    await client.fs.rm('/renamed/g.txt')
    await waitFor(() => !existsSync(join(dir, 'renamed/g.txt')), 'delete on disk')
    client.fs.trash.restore(id)
    await waitFor(() => readOr('renamed/g.txt') === 'f\n', 'restore on disk')
    await client.fs.rm('/renamed', { recursive: true })
    await waitFor(() => !existsSync(join(dir, 'renamed')), 'folder delete on disk')
  })

  it('keeps the executable bit and mtime', async () => {
    await client.fs.writeFile('/run.sh', '#!/bin/sh\necho hi\n')
    await client.fs.chmod('/run.sh', 0o755)
    await waitFor(
      () => existsSync(join(dir, 'run.sh')) && (statSync(join(dir, 'run.sh')).mode & 0o777) === 0o755,
      'mode on disk',
    )
    const row = client.fs.table.get(client.fs.index.lookup('/run.sh')!)!
    expect(Math.abs(statSync(join(dir, 'run.sh')).mtimeMs - row.updatedAt)).toBeLessThan(1000)
  })
})

describe('disk → workspace', () => {
  it('a disk write reaches the client within 1 s, as a diff', async () => {
    writeFileSync(join(dir, 'from-disk.txt'), 'alpha\nbeta\n')
    await waitFor(async () => (await text('/from-disk.txt')) === 'alpha\nbeta\n', 'create in client', 1000)
    const id = client.fs.index.lookup('/from-disk.txt')
    writeFileSync(join(dir, 'from-disk.txt'), 'alpha\nbeta\ngamma\n')
    await waitFor(
      async () => (await text('/from-disk.txt')) === 'alpha\nbeta\ngamma\n',
      'edit in client',
      1000,
    )
    expect(client.fs.index.lookup('/from-disk.txt')).toBe(id)
  })

  it('rename and move on disk keep the file id and history', async () => {
    writeFileSync(join(dir, 'moving.txt'), 'moving content\n')
    const id = await waitFor(() => client.fs.index.lookup('/moving.txt'), 'moving.txt in client')
    writeFileSync(join(dir, 'moving.txt'), 'moving content\nmore\n')
    await waitFor(async () => (await text('/moving.txt'))?.includes('more'), 'edit in client')
    renameSync(join(dir, 'moving.txt'), join(dir, 'moved.txt'))
    await waitFor(
      () => client.fs.index.lookup('/moved.txt') === id && !client.fs.index.lookup('/moving.txt'),
      'rename in client',
    )
    mkdirSync(join(dir, 'sub'))
    renameSync(join(dir, 'moved.txt'), join(dir, 'sub/moved.txt'))
    await waitFor(() => client.fs.index.lookup('/sub/moved.txt') === id, 'move in client')
    expect((await client.fs.history('/sub/moved.txt')).length).toBeGreaterThanOrEqual(2)
    // A folder rename keeps the folder's id too.
    const folder = client.fs.index.lookup('/sub')
    renameSync(join(dir, 'sub'), join(dir, 'sub2'))
    await waitFor(() => client.fs.index.lookup('/sub2/moved.txt') === id, 'folder rename in client')
    expect(client.fs.index.lookup('/sub2')).toBe(folder)
  })

  it('delete on disk moves the file to the workspace trash, and a restore brings it back', async () => {
    writeFileSync(join(dir, 'doomed.txt'), 'doomed\n')
    const id = (await waitFor(() => client.fs.index.lookup('/doomed.txt'), 'doomed in client')) as FileId
    rmSync(join(dir, 'doomed.txt'))
    await waitFor(() => client.fs.index.lookup('/doomed.txt') === undefined, 'delete in client')
    expect(client.fs.trash.list().some((t) => t.id === id)).toBe(true)
    client.fs.trash.restore(id)
    await waitFor(() => readOr('doomed.txt') === 'doomed\n', 'restored on disk')
    rmSync(join(dir, 'sub2'), { recursive: true })
    await waitFor(() => client.fs.index.lookup('/sub2') === undefined, 'folder delete in client')
  })

  it('binary files are byte-exact and executable bits travel', async () => {
    const bytes = Buffer.from([0, 159, 146, 150, 255, 0, 10])
    writeFileSync(join(dir, 'img.bin'), bytes)
    await waitFor(
      async () => Buffer.compare(Buffer.from(await client.fs.readFileBuffer('/img.bin')), bytes) === 0,
      'binary in client',
    )
    writeFileSync(join(dir, 'tool.sh'), '#!/bin/sh\n', { mode: 0o755 })
    await waitFor(() => {
      const id = client.fs.index.lookup('/tool.sh')
      return id && (client.fs.table.get(id)!.mode ?? 0o644) === 0o755
    }, 'mode in client')
  })
})

describe('both at once', () => {
  it('a disk save and a client edit of different lines both survive', async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`)
    writeFileSync(join(dir, 'shared.txt'), `${lines.join('\n')}\n`)
    await waitFor(async () => (await text('/shared.txt')) === `${lines.join('\n')}\n`, 'shared in client')
    await daemon.sync.idle()
    const fromClient = [...lines]
    fromClient[2] = 'line 2 edited in the browser'
    const fromDisk = [...lines]
    fromDisk[17] = 'line 17 saved by the editor'
    await Promise.all([
      client.fs.writeFile('/shared.txt', `${fromClient.join('\n')}\n`),
      Promise.resolve().then(() => writeFileSync(join(dir, 'shared.txt'), `${fromDisk.join('\n')}\n`)),
    ])
    const both = (t: string | undefined) =>
      !!t && t.includes('edited in the browser') && t.includes('saved by the editor')
    await waitFor(
      async () => both(await text('/shared.txt')) && both(readOr('shared.txt')),
      'both edits on both sides',
      5000,
    )
    await daemon.sync.idle()
    expect(await text('/shared.txt')).toBe(readOr('shared.txt'))
  })

  it('files written into folders created moments before, in waves, all reach the workspace', async () => {
    // Folders are watched once the daemon sees them; files written into a new folder before or
    // after its watch starts are found by the folder's scan or reported by its watch.
    const expected: string[] = []
    for (let wave = 0; wave < 4; wave++) {
      for (let x = 0; x < 6; x++)
        for (let y = 0; y < 3; y++) {
          const folder = join(dir, 'burst', `x${x}`, `y${y}`, `w${wave}`)
          mkdirSync(folder, { recursive: true })
          for (let f = 0; f < 3; f++) {
            writeFileSync(join(folder, `f${f}.txt`), `wave ${wave} ${x}/${y}/${f}\n`)
            // Also into folders made in earlier waves.
            writeFileSync(join(dir, 'burst', `x${x}`, `y${y}`, `late-${wave}-${f}.txt`), `late ${wave}\n`)
            expected.push(`/burst/x${x}/y${y}/w${wave}/f${f}.txt`, `/burst/x${x}/y${y}/late-${wave}-${f}.txt`)
          }
        }
      await new Promise((r) => setTimeout(r, wave * 15))
    }
    await waitFor(
      () => expected.every((p) => client.fs.index.lookup(p) !== undefined),
      `all ${expected.length} files in the workspace`,
    )
    expect(await text('/burst/x5/y2/w3/f2.txt')).toBe('wave 3 5/2/2\n')
    expect(await text('/burst/x0/y0/late-3-0.txt')).toBe('late 3\n')
  })

  it('git init, add and commit work in the mirror, and a checkout flows back as edits', async () => {
    const git = (...args: string[]) =>
      execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], {
        cwd: dir,
        stdio: 'pipe',
      }).toString()
    writeFileSync(join(dir, 'versioned.txt'), 'version 1\n')
    git('init', '-q')
    git('add', '-A')
    git('commit', '-q', '-m', 'one')
    await waitFor(async () => (await text('/versioned.txt')) === 'version 1\n', 'v1 in client')
    const id = client.fs.index.lookup('/versioned.txt')
    await client.fs.writeFile('/versioned.txt', 'version 2\n')
    await waitFor(() => readOr('versioned.txt') === 'version 2\n', 'v2 on disk')
    expect(git('status', '--porcelain')).toContain('versioned.txt')
    git('checkout', '-q', '--', 'versioned.txt')
    await waitFor(async () => (await text('/versioned.txt')) === 'version 1\n', 'checkout flows back')
    expect(client.fs.index.lookup('/versioned.txt')).toBe(id)
    // .git itself never reaches the workspace.
    expect(client.fs.index.lookup('/.git')).toBeUndefined()
  })
})
