/**
 * fs.writeTree: a whole tree at once. All or nothing (the failing entry's
 * FsError with `opIndex`, nothing written, no events), content before rows,
 * every row in one main-doc update, change events tagged with the load's
 * transactionId, history kept, and the same checks as single writes.
 */
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { FsError } from '../errors.js'
import { createReplicaNetwork } from '../testing/replica-network.js'
import type { FsEvent } from './events.js'
import { createFileSystem } from './yjs-file-system.js'

async function failure(p: Promise<unknown>): Promise<{ code: string; opIndex: number; message: string }> {
  try {
    await p
  } catch (error) {
    if (error instanceof FsError)
      return {
        code: error.code,
        opIndex: (error as FsError & { opIndex: number }).opIndex,
        message: error.message,
      }
    throw error
  }
  throw new Error('expected a failure')
}

describe('fs.writeTree', () => {
  it('writes files and folders (missing parents made), each file with its first version, in one main-doc update', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/old.txt', 'before')
    const updates: Uint8Array[] = []
    fs.doc.on('update', (u: Uint8Array) => updates.push(u))
    const bytes = new Uint8Array([0, 1, 2, 255])
    const result = await fs.writeTree([
      { path: '/src/a/one.ts', content: 'one\n' },
      { path: '/src/b/two.md', content: '# two\n' },
      { path: '/empty', folder: true },
      { path: '/bin.dat', content: bytes },
      { path: '/old.txt', content: 'after' },
      { path: '/src/a/one.ts', content: 'one again\n' }, // the last content wins
    ])
    expect(updates).toHaveLength(1)
    expect(result).toMatchObject({ created: 3, updated: 1, folders: 4 })
    expect(await fs.readFile('/src/a/one.ts')).toBe('one again\n')
    expect(await fs.readFile('/src/b/two.md')).toBe('# two\n')
    expect(await fs.readFileBuffer('/bin.dat')).toEqual(bytes)
    expect(await fs.readFile('/old.txt')).toBe('after')
    expect((await fs.stat('/empty')).isDirectory).toBe(true)
    expect((await fs.stat('/src/a/one.ts')).size).toBe(10)
    expect((await fs.history('/src/a/one.ts')).map((v) => v.reason)).toEqual(['write'])
    expect((await fs.history('/old.txt')).length).toBe(2)
    // A peer that receives the one update sees the whole tree.
    const peer = createFileSystem()
    Y.applyUpdate(peer.doc, Y.encodeStateAsUpdate(fs.doc))
    expect(peer.index.allPaths()).toEqual(fs.index.allPaths())
  })

  it('is all or nothing: the first failing entry throws with opIndex and nothing changes', async () => {
    const fs = createFileSystem({ limits: { maxFileSize: 10 } })
    await fs.writeFile('/file.txt', 'x')
    await fs.mkdir('/dir')
    const events: FsEvent[] = []
    fs.watch((e) => events.push(e))
    const before = Y.encodeStateAsUpdate(fs.doc)
    const cases: [Parameters<typeof fs.writeTree>[0], string, number][] = [
      [
        [
          { path: '/ok.txt', content: 'a' },
          { path: '/file.txt/x', content: 'b' },
        ],
        'ENOTDIR',
        1,
      ],
      [
        [
          { path: '/ok.txt', content: 'a' },
          { path: '/dir', content: 'b' },
        ],
        'EISDIR',
        1,
      ],
      [
        [
          { path: '/a/b', folder: true },
          { path: '/a/b', content: 'c' },
        ],
        'EISDIR',
        1,
      ],
      [[{ path: '/big.txt', content: 'x'.repeat(11) }], 'EFBIG', 0],
      [
        [
          { path: '/ok.txt', content: 'a' },
          { path: '/bad\\name', content: 'a' },
        ],
        'EINVAL',
        1,
      ],
      [[{ path: '/bin/sh', content: 'a' }], 'EACCES', 0],
      [[{ path: '/a\0b', content: 'a' }], 'ENOENT', 0],
    ]
    for (const [entries, code, opIndex] of cases) {
      const f = await failure(fs.writeTree(entries))
      expect([f.code, f.opIndex], f.message).toEqual([code, opIndex])
    }
    expect(Y.encodeStateAsUpdate(fs.doc)).toEqual(before)
    expect(events).toEqual([])
    expect(await fs.exists('/ok.txt')).toBe(false)
    const small = createFileSystem({ limits: { maxNodeCount: 3 } })
    expect((await failure(small.writeTree([{ path: '/a/b/c/d', content: '' }]))).code).toBe('ENOSPC')
    expect(small.index.nodeCount).toBe(0)
  })

  it('emits one event per created or changed node, tagged with the transactionId', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/keep.txt', 'old')
    const events: FsEvent[] = []
    fs.watch((e) => events.push(e))
    const { transactionId } = await fs.writeTree([
      { path: '/d/x.txt', content: 'x' },
      { path: '/keep.txt', content: 'new' },
    ])
    expect(events.map((e) => [e.type, e.path, e.transactionId]).sort()).toEqual(
      [
        ['mkdir', '/d', transactionId],
        ['write', '/d/x.txt', transactionId],
        ['write', '/keep.txt', transactionId],
      ].sort(),
    )
  })

  it('is refused on a read-only filesystem', async () => {
    const fs = createFileSystem({ readOnly: true })
    expect((await failure(fs.writeTree([{ path: '/a', content: 'a' }]))).code).toBe('EACCES')
  })

  it('with a provider, content reaches peers before the rows', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs)
    await a!.writeTree(
      Array.from({ length: 20 }, (_, i) => ({ path: `/t/f${i}.txt`, content: `file ${i}\n` })),
    )
    const outbox = net.replicas[0]!.outbox
    const mainAt = outbox.findIndex((m) => m.guid === 'main')
    expect(outbox.slice(mainAt + 1).filter((m) => m.guid !== 'main')).toEqual([])
    await net.syncAll()
    for (let i = 0; i < 20; i++) expect(await b!.readFile(`/t/f${i}.txt`)).toBe(`file ${i}\n`)
    net.destroy()
  })

  it("sets a file entry's mode and mtime in the same row transaction (new and existing files)", async () => {
    const fs = createFileSystem()
    await fs.writeFile('/old.sh', 'before')
    const updates: Uint8Array[] = []
    fs.doc.on('update', (u: Uint8Array) => updates.push(u))
    await fs.writeTree([
      { path: '/scripts/run.sh', content: '#!/bin/sh\n', mode: 0o100755, mtime: 1_600_000_000_123.4 },
      { path: '/old.sh', content: 'after', mode: 0o700, mtime: 1_500_000_000_000 },
      { path: '/plain.txt', content: 'x' },
    ])
    expect(updates).toHaveLength(1)
    const run = await fs.stat('/scripts/run.sh')
    expect(run.mode & 0o7777).toBe(0o755)
    expect(run.mtime.getTime()).toBe(1_600_000_000_123)
    const old = await fs.stat('/old.sh')
    expect(old.mode & 0o7777).toBe(0o700)
    expect(old.mtime.getTime()).toBe(1_500_000_000_000)
    expect(await fs.readFile('/old.sh')).toBe('after')
    expect((await fs.stat('/plain.txt')).mode & 0o7777).toBe(0o644)
    expect(
      await failure(
        fs.writeTree([
          { path: '/ok.txt', content: '' },
          { path: '/bad.txt', content: '', mode: -1 },
        ]),
      ),
    ).toMatchObject({ code: 'EINVAL', opIndex: 1 })
    expect(await failure(fs.writeTree([{ path: '/bad.txt', content: '', mtime: Number.NaN }]))).toMatchObject(
      { code: 'EINVAL', opIndex: 0 },
    )
    expect(fs.index.lookup('/ok.txt')).toBeUndefined()
  })
})

describe('fs.writeTree with a store for new content (a connected client)', () => {
  it('writes more files than one random-bytes call can number (over 16,384) and stores each content once', async () => {
    const stored = new Map<string, Uint8Array>()
    const fs = createFileSystem({
      connect: (doc) => {
        const state = stored.get(doc.guid)
        if (state) Y.applyUpdate(doc, state)
        return { whenSynced: Promise.resolve(), destroy() {} }
      },
      storeContent: async (docs) => {
        for (const { id, update } of docs) stored.set(id, update)
      },
    })
    const n = 20_000
    await fs.writeTree(
      Array.from({ length: n }, (_, i) => ({ path: `/many/f${i}.txt`, content: `file ${i}\n` })),
    )
    expect(stored.size).toBe(n)
    // Every content doc gets a client id drawn at random, in 64 KiB calls: a part left unfilled
    // would give thousands the same id (0). Random 32-bit ids themselves collide now and then
    // (20,000 of them: one pair in ~5 % of runs, harmless across docs), so a few repeats are allowed.
    const clients = new Set<number>()
    for (const update of stored.values())
      for (const client of Y.decodeStateVector(Y.encodeStateVectorFromUpdate(update)).keys())
        clients.add(client)
    expect(clients.size).toBeGreaterThanOrEqual(n - 10)
    expect(await fs.readFile('/many/f19999.txt')).toBe('file 19999\n')
    fs.pool.evictIdle(true)
    expect(await fs.readFile('/many/f16500.txt')).toBe('file 16500\n')
  })
})
