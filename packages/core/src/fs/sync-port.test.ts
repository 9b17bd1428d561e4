/**
 * The sync port's contract (sync-port.ts), as the disk sync daemon relies on
 * it: rows by id, display paths ↔ ids (duplicates suffixed, the stored name
 * kept), the visible rows, a folder's children with the trashed ones, row
 * changes told apart by origin, a peer's outvoted content announcement
 * reported once its transaction is done, and metadata of many rows written
 * in one transaction.
 */
import { describe, expect, it } from 'vitest'
import { type FileId, ROOT_ID } from '../ids.js'
import { createReplicaNetwork } from '../testing/replica-network.js'
import { createSyncPort } from './sync-port.js'

const tick = () => new Promise((r) => setTimeout(r, 0))

describe('the sync port: rows and paths', () => {
  it('reads rows by id and by display path, both ways, with duplicate names suffixed', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = [net.replicas[0]!.fs, net.replicas[1]!.fs]
    // The same new name on both replicas before either saw the other: two rows, the later shown suffixed.
    await a.writeFile('/f.txt', 'from a')
    await b.writeFile('/f.txt', 'from b')
    await net.syncAll()
    const port = createSyncPort(a)
    const first = port.idAt('/f.txt')!
    const second = port.idAt('/f (1).txt')!
    expect(first).toBeDefined()
    expect(second).toBeDefined()
    expect(second).not.toBe(first)
    expect(port.pathOf(second)).toBe('/f (1).txt')
    // The stored name is kept; only the display path is suffixed.
    expect(port.row(second)?.name).toBe('f.txt')
    expect(port.rowAt('/f (1).txt')).toEqual(port.row(second))
    expect(port.idAt('/')).toBe(ROOT_ID)
    expect(port.idAt('/missing')).toBeUndefined()
    expect(port.rowAt('/missing')).toBeUndefined()
    net.destroy()
  })

  it('lists visible rows with their paths, keeps trashed rows by id, and a folder’s trashed children', async () => {
    const net = createReplicaNetwork(1)
    const fs = net.replicas[0]!.fs
    await fs.mkdir('/keep/sub', { recursive: true })
    await fs.writeFile('/keep/sub/a.txt', 'a')
    await fs.mkdir('/gone')
    await fs.writeFile('/gone/b.txt', 'b')
    await fs.writeFile('/c.txt', 'c')
    const port = createSyncPort(fs)
    const c = port.idAt('/c.txt')!
    const b = port.idAt('/gone/b.txt')!
    await fs.rm('/c.txt')
    await fs.rm('/gone', { recursive: true })
    const visible = new Map<string, string>()
    port.forEachVisible((row, path) => visible.set(path, row.type))
    expect(Object.fromEntries(visible)).toEqual({
      '/keep': 'folder',
      '/keep/sub': 'folder',
      '/keep/sub/a.txt': 'file',
    })
    // A trashed row is still there by id, without a path.
    expect(port.row(c)?.trashedAt).not.toBeNull()
    expect(port.pathOf(c)).toBeUndefined()
    expect(port.pathOf(b)).toBeUndefined()
    expect(port.childrenOf(ROOT_ID).has(c)).toBe(true)
    net.destroy()
  })
})

describe('the sync port: row changes', () => {
  it('tells the replica’s own row changes from a peer’s', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = [net.replicas[0]!.fs, net.replicas[1]!.fs]
    const port = createSyncPort(a)
    const seen: { ids: FileId[]; local: boolean; created: boolean[] }[] = []
    const stop = port.observeRows((changes, local) =>
      seen.push({ ids: [...changes.keys()], local, created: [...changes.values()].map((c) => !c.before) }),
    )
    await a.writeFile('/mine.txt', 'mine')
    const mine = port.idAt('/mine.txt')!
    expect(seen).toContainEqual({ ids: [mine], local: true, created: [true] })
    seen.length = 0
    await b.writeFile('/theirs.txt', 'theirs')
    await net.syncAll()
    const theirs = port.idAt('/theirs.txt')!
    expect(seen.filter((s) => !s.local).flatMap((s) => s.ids)).toContain(theirs)
    stop()
    seen.length = 0
    await b.writeFile('/theirs.txt', 'again')
    await net.syncAll()
    expect(seen).toEqual([])
    net.destroy()
  })

  it('reports a peer’s content announcement that lost to this replica’s newer metadata write, once the transaction is done', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = [net.replicas[0]!.fs, net.replicas[1]!.fs]
    await a.writeFile('/f.txt', 'one\n')
    await a.mkdir('/dir')
    await net.syncAll()
    const port = createSyncPort(a)
    const id = port.idAt('/f.txt')!
    const dir = port.idAt('/dir')!
    const outvoted: FileId[][] = []
    const remote: FileId[] = []
    port.observeOutvoted((ids) => outvoted.push(ids))
    port.observeRows((changes, local) => {
      if (!local) remote.push(...changes.keys())
    })
    // The peer edits the file (its row announces the new content), and chmods the folder;
    // then this replica writes the file's mtime and the folder's mode (newer stamps), before
    // the peer's changes arrive: the peer's entries lose.
    await b.writeFile('/f.txt', 'one\ntwo\n')
    await b.chmod('/dir', 0o700)
    net.send(1)
    port.setMetadata(
      new Map([
        [id, { updatedAt: 42 }],
        [dir, { mode: 0o750 }],
      ]),
    )
    a.table.flush()
    net.receive(0)
    // Not during the transaction: once it is done.
    expect(outvoted).toEqual([])
    await Promise.resolve()
    expect(outvoted).toEqual([[id]])
    // No row change tells of it (the row is still this replica's), while the content has the edit.
    expect(remote).not.toContain(id)
    expect(port.row(id)?.updatedAt).toBe(42)
    expect(await a.readFile('/f.txt')).toBe('one\ntwo\n')
    net.destroy()
  })

  it('does not report a peer’s content announcement that won', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = [net.replicas[0]!.fs, net.replicas[1]!.fs]
    await a.writeFile('/f.txt', 'one\n')
    await net.syncAll()
    const port = createSyncPort(a)
    const id = port.idAt('/f.txt')!
    const outvoted: FileId[][] = []
    const remote: FileId[] = []
    port.observeOutvoted((ids) => outvoted.push(ids))
    port.observeRows((changes, local) => {
      if (!local) remote.push(...changes.keys())
    })
    port.setMetadata(new Map([[id, { updatedAt: 42 }]]))
    a.table.flush()
    await b.writeFile('/f.txt', 'one\ntwo\n')
    await net.syncAll()
    await tick()
    expect(outvoted).toEqual([])
    expect(remote).toContain(id)
    net.destroy()
  })
})

describe('the sync port: metadata', () => {
  it('writes the metadata of many rows in one transaction, skips rows that are gone, and peers get it', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = [net.replicas[0]!.fs, net.replicas[1]!.fs]
    await a.writeFile('/x.txt', 'x')
    await a.writeFile('/y.sh', 'y')
    const port = createSyncPort(a)
    const x = port.idAt('/x.txt')!
    const y = port.idAt('/y.sh')!
    const before = port.row(x)!
    const calls: { ids: FileId[]; local: boolean }[] = []
    port.observeRows((changes, local) => calls.push({ ids: [...changes.keys()], local }))
    port.setMetadata(
      new Map([
        [x, { updatedAt: 1_000 }],
        [y, { updatedAt: 2_000, mode: 0o755 }],
        ['no-such-row' as FileId, { updatedAt: 3_000 }],
      ]),
    )
    expect(calls).toEqual([{ ids: [x, y], local: true }])
    expect(port.row(x)).toEqual({ ...before, updatedAt: 1_000 })
    expect(port.row(y)).toMatchObject({ updatedAt: 2_000, mode: 0o755 })
    expect(port.row('no-such-row' as FileId)).toBeUndefined()
    await net.syncAll()
    const peer = createSyncPort(b)
    expect(peer.rowAt('/y.sh')).toMatchObject({ updatedAt: 2_000, mode: 0o755 })
    expect(await b.readFile('/x.txt')).toBe('x')
    net.destroy()
  })
})
