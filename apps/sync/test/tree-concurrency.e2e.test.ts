/**
 * Tree changes on both sides at once, through a real `yfs serve`.
 *
 * The property: a few files (`a.txt`, `b.txt`, `c.txt` in a folder of their
 * own per run) are created, edited, renamed and deleted on disk (by this
 * process, between any two steps of the daemon's) and in the workspace (by a
 * client), 0–60 ms apart. Once both sides are quiet, the folder on disk and
 * the workspace folder hold the same paths with the same contents.
 *
 * And the case it found: the same new path created on both sides at once.
 * The workspace then has two files of that name (core shows the later one as
 * `f (1).txt`); both must reach the disk under the names the workspace shows,
 * with both contents, whichever was created first.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { WorkspaceConnection } from '@yfs/client'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SyncTestEnv, startEnv, tempDir, waitFor } from './helpers.js'

let env: SyncTestEnv
let dir: string
let client: WorkspaceConnection
let daemon: Awaited<ReturnType<SyncTestEnv['startSync']>>

beforeAll(async () => {
  env = await startEnv()
  const ws = await env.workspace('tree-concurrency')
  dir = tempDir()
  env.dirs.push(dir)
  daemon = await env.startSync(ws, dir)
  client = await env.connect(ws)
})
afterAll(async () => {
  await env?.close()
})

/** Wait until the disk folder and the workspace folder hold the same files; the message shows both. */
async function sameTrees(folder: string, timeoutMs = 15_000): Promise<Record<string, string>> {
  let last = ''
  await waitFor(
    async () => {
      const d = diskTree(folder)
      const w = await wsTree(folder)
      last = `disk ${JSON.stringify(d)} workspace ${JSON.stringify(w)}`
      return JSON.stringify(d) === JSON.stringify(w)
    },
    `the same files on both sides of ${folder}`,
    timeoutMs,
  ).catch((error) => {
    throw new Error(`${String(error)}: ${last}`)
  })
  await daemon.sync.idle()
  const d = diskTree(folder)
  expect(await wsTree(folder)).toEqual(d)
  return d
}

/** The client's changes wait while it is offline; `fn` runs then, and the client reconnects after. */
async function clientOffline(fn: () => Promise<void>): Promise<void> {
  client.socket.disconnect()
  try {
    await fn()
  } finally {
    await client.socket.connect()
  }
  await client.flush(10_000)
}

describe('the same new path created on disk and in the workspace at once', () => {
  it('keeps both files on both sides when the disk file is created first', async () => {
    await client.fs.mkdir('/cc1')
    await waitFor(() => existsSync(join(dir, 'cc1')), 'cc1 on disk')
    await clientOffline(async () => {
      writeFileSync(join(dir, 'cc1/f.txt'), 'from disk\n')
      await waitFor(() => daemon.connection.fs.index.lookup('/cc1/f.txt') !== undefined, 'the upload')
      await daemon.connection.flush(10_000)
      await client.fs.writeFile('/cc1/f.txt', 'from the workspace\n')
    })
    const files = await sameTrees('cc1')
    expect(files).toEqual({ 'cc1/f.txt': 'from disk\n', 'cc1/f (1).txt': 'from the workspace\n' })
  })

  it('keeps both files on both sides when the workspace file is created first', async () => {
    await client.fs.mkdir('/cc2')
    await waitFor(() => existsSync(join(dir, 'cc2')), 'cc2 on disk')
    await clientOffline(async () => {
      await client.fs.writeFile('/cc2/f.txt', 'from the workspace\n')
      // Created later, so core shows the disk's file as `f (1).txt` once both meet.
      await new Promise((r) => setTimeout(r, 5))
      writeFileSync(join(dir, 'cc2/f.txt'), 'from disk\n')
      await waitFor(() => daemon.connection.fs.index.lookup('/cc2/f.txt') !== undefined, 'the upload')
      await daemon.connection.flush(10_000)
    })
    const files = await sameTrees('cc2')
    expect(files).toEqual({ 'cc2/f.txt': 'from the workspace\n', 'cc2/f (1).txt': 'from disk\n' })
    // The disk's copy is still the daemon's row: an edit on disk reaches it, not the other file.
    writeFileSync(join(dir, 'cc2/f (1).txt'), 'from disk, edited\n')
    await waitFor(
      async () => (await client.fs.readFile('/cc2/f (1).txt')) === 'from disk, edited\n',
      'the edit in the workspace',
    )
    expect(await sameTrees('cc2')).toEqual({
      'cc2/f.txt': 'from the workspace\n',
      'cc2/f (1).txt': 'from disk, edited\n',
    })
  })

  it('renames the disk copy back when the file that kept the name goes away', async () => {
    await client.fs.mkdir('/cc3')
    await waitFor(() => existsSync(join(dir, 'cc3')), 'cc3 on disk')
    await clientOffline(async () => {
      writeFileSync(join(dir, 'cc3/f.txt'), 'from disk\n')
      await waitFor(() => daemon.connection.fs.index.lookup('/cc3/f.txt') !== undefined, 'the upload')
      await daemon.connection.flush(10_000)
      await client.fs.writeFile('/cc3/f.txt', 'from the workspace\n')
    })
    await sameTrees('cc3')
    // The older file (the disk's) is deleted in the workspace: the other one is `f.txt` now.
    await client.fs.rm('/cc3/f.txt')
    expect(await sameTrees('cc3')).toEqual({ 'cc3/f.txt': 'from the workspace\n' })
  })
})

type Side = 'disk' | 'ws'
type Op =
  | { side: Side; kind: 'write'; name: string; pause: number }
  | { side: Side; kind: 'mv'; name: string; to: string; pause: number }
  | { side: Side; kind: 'rm'; name: string; pause: number }

const NAMES = ['a.txt', 'b.txt', 'c.txt']
const side = fc.constantFrom<Side>('disk', 'ws')
const name = fc.constantFrom(...NAMES)
const pause = fc.constantFrom(0, 0, 5, 20, 60)
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ side, kind: fc.constant('write' as const), name, pause }) },
  { weight: 2, arbitrary: fc.record({ side, kind: fc.constant('mv' as const), name, to: name, pause }) },
  { weight: 1, arbitrary: fc.record({ side, kind: fc.constant('rm' as const), name, pause }) },
)

describe('tree changes on both sides at once', () => {
  it('end with the same files on disk and in the workspace (property)', async () => {
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        const folder = `t${run++}`
        await client.fs.mkdir(`/${folder}`)
        await waitFor(() => existsSync(join(dir, folder)), `${folder} on disk`)
        for (const [i, o] of ops.entries()) {
          const text = `${o.side} ${i}\n`
          const host = (n: string) => join(dir, folder, n)
          const ws = (n: string) => `/${folder}/${n}`
          // Each side acts on what it sees; a step whose source is gone (or target taken) is skipped.
          if (o.side === 'disk') {
            if (o.kind === 'write') writeFileSync(host(o.name), text)
            else if (o.kind === 'rm') rmSync(host(o.name), { force: true })
            else if (o.name !== o.to && existsSync(host(o.name)) && !existsSync(host(o.to)))
              renameSync(host(o.name), host(o.to))
          } else {
            const fs = client.fs
            const done = (p: Promise<unknown>) =>
              p.then(
                () => undefined,
                () => undefined,
              )
            if (o.kind === 'write') await done(fs.writeFile(ws(o.name), text))
            else if (o.kind === 'rm') await done(fs.rm(ws(o.name)))
            else if (o.name !== o.to && !(await fs.exists(ws(o.to)))) await done(fs.mv(ws(o.name), ws(o.to)))
          }
          if (o.pause > 0) await new Promise((r) => setTimeout(r, o.pause))
        }
        await sameTrees(folder)
      }),
      // YFS_SYNC_RUNS raises the count for a longer search.
      { numRuns: Number(process.env.YFS_SYNC_RUNS ?? 20) },
    )
  }, 600_000)
})

function diskTree(rel: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(join(dir, rel)).sort()) {
    if (entry.startsWith('.yfs')) continue
    const p = `${rel}/${entry}`
    const st = statSync(join(dir, p))
    if (st.isDirectory()) Object.assign(out, diskTree(p))
    else out[p] = readFileSync(join(dir, p), 'utf8')
  }
  return out
}

async function wsTree(rel: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const e of [...(await client.fs.readdirWithFileTypes(`/${rel}`))].sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const p = `${rel}/${e.name}`
    if (e.isDirectory) Object.assign(out, await wsTree(p))
    else out[p] = await client.fs.readFile(`/${p}`)
  }
  return out
}
