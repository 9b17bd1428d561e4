/**
 * Stale writes (issue 11): an instance that read a file, then writes back an
 * older copy with its own change, must not erase what others changed in the
 * meantime. Deterministic scenarios on replicas synced through the replica
 * network; the property tests are in stale-writes.property.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { createFileSystem, type FsEvent, TEXT_KEY, type YjsFileSystem } from '../../src/index.js'
import { createReplicaNetwork } from '../../src/testing/index.js'

/** A person's edit straight on the Y.Text of a replica (what an editor binding does). */
async function typeInto(fs: YjsFileSystem, path: string, at: string, insert: string): Promise<void> {
  const id = fs.index.lookup(path)!
  const handle = await fs.pool.acquire(id)
  try {
    const text = handle.doc.getText(TEXT_KEY)
    const index = text.toString().indexOf(at)
    if (index < 0) throw new Error(`'${at}' not in ${path}`)
    handle.doc.transact(() => text.insert(index + at.length, insert), 'editor')
  } finally {
    handle.release()
  }
}

const base = 'one\ntwo\nthree\nfour\nfive\n'

describe('stale writes', () => {
  it('merges a read-modify-write with an edit made in between on another replica', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
    await a.writeFile('/f.txt', base)
    await net.syncAll()
    const seen = await a.readFile('/f.txt')
    await typeInto(b, '/f.txt', 'four', ' (person)')
    await net.syncAll()
    const report = await a.write('/f.txt', seen.replace('two', 'TWO (agent)'))
    expect(report).toMatchObject({ merged: true, conflict: false, conflicts: [] })
    await net.syncAll()
    for (const fs of [a, b])
      expect(await fs.readFile('/f.txt')).toBe('one\nTWO (agent)\nthree\nfour (person)\nfive\n')
    net.destroy()
  })

  it('gives the writer an overlapping region, keeps the other text as a version and says which lines', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
    await a.writeFile('/f.txt', base)
    await net.syncAll()
    const seen = await a.readFile('/f.txt')
    await typeInto(b, '/f.txt', 'three', ' (person)')
    await typeInto(b, '/f.txt', 'five', ' (person)')
    await net.syncAll()
    const events: FsEvent[] = []
    a.watch((e) => events.push(e))
    const report = await a.write('/f.txt', seen.replace('three', 'THREE (agent)'))
    expect(report.conflict).toBe(true)
    expect(report.conflicts).toEqual([{ lines: { start: 3, count: 1 }, theirs: { start: 3, count: 1 } }])
    expect(await a.readFile('/f.txt')).toBe('one\ntwo\nTHREE (agent)\nfour\nfive (person)\n')
    const replaced = report.replacedVersion!
    expect(replaced.reason).toBe('conflict')
    expect(await a.readVersion('/f.txt', replaced.id)).toBe('one\ntwo\nthree (person)\nfour\nfive (person)\n')
    expect(events.map((e) => e.type)).toEqual(['write', 'conflict'])
    expect(events[1]).toMatchObject({ path: '/f.txt', versionId: replaced.id, conflicts: report.conflicts })
    // Restoring the version gets the person's text back, on every replica.
    await a.restore('/f.txt', replaced.id)
    await net.syncAll()
    expect(await b.readFile('/f.txt')).toBe('one\ntwo\nthree (person)\nfour\nfive (person)\n')
    net.destroy()
  })

  it('replaces the content of a file this instance never read, as before', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
    await a.writeFile('/f.txt', base)
    await net.syncAll()
    await typeInto(a, '/f.txt', 'one', ' (person)')
    await net.syncAll()
    const report = await b.write('/f.txt', 'new\n')
    expect(report).toMatchObject({ merged: false, conflict: false })
    expect(await b.readFile('/f.txt')).toBe('new\n')
    net.destroy()
  })

  it('does not merge when nothing changed since the read, and counts its own appends as seen', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/f.txt', base)
    await fs.readFile('/f.txt')
    await fs.appendFile('/f.txt', 'six\n')
    const report = await fs.write('/f.txt', 'only\n')
    expect(report).toMatchObject({ merged: false, conflict: false })
    expect(await fs.readFile('/f.txt')).toBe('only\n')
  })

  it('binary: the writer wins and the previous bytes become a version', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
    await a.writeFile('/img.bin', new Uint8Array([0, 1, 2, 3]))
    await net.syncAll()
    await a.readFileBuffer('/img.bin')
    await b.writeFile('/img.bin', new Uint8Array([0, 9, 9]))
    await net.syncAll()
    const report = await a.write('/img.bin', new Uint8Array([0, 1, 2, 3, 4]))
    expect(report).toMatchObject({ merged: true, conflict: true, conflicts: [] })
    expect([...(await a.readFileBuffer('/img.bin'))]).toEqual([0, 1, 2, 3, 4])
    const old = await a.readVersionContent('/img.bin', report.replacedVersion!.id)
    expect([...old.bytes!]).toEqual([0, 9, 9])
    net.destroy()
  })

  it('an empty write from a stale instance empties the file and keeps the previous text as a version', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
    await a.writeFile('/f.txt', base)
    await net.syncAll()
    await a.readFile('/f.txt')
    await typeInto(b, '/f.txt', 'five\n', 'six\n')
    await net.syncAll()
    const report = await a.write('/f.txt', '')
    expect(report.conflict).toBe(true)
    expect(await a.readFile('/f.txt')).toBe('')
    expect(await a.readVersion('/f.txt', report.replacedVersion!.id)).toBe(`${base}six\n`)
    net.destroy()
  })

  it('merges against an explicit base (text or a stored snapshot) without any earlier read', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/f.txt', base)
    const snapshot = await fs.contentSnapshot('/f.txt')
    const other = createFileSystem({ doc: fs.doc })
    // Another writer changes line 1 meanwhile.
    await fs.writeFile('/f.txt', base.replace('one', 'ONE'))
    const r1 = await fs.write('/f.txt', base.replace('five', 'FIVE'), { base: { text: base } })
    expect(r1.merged).toBe(true)
    expect(await fs.readFile('/f.txt')).toBe('ONE\ntwo\nthree\nfour\nFIVE\n')
    const r2 = await fs.write('/f.txt', base.replace('two', 'TWO'), { base: { snapshot } })
    expect(r2).toMatchObject({ merged: true, conflict: false })
    expect(await fs.readFile('/f.txt')).toBe('ONE\nTWO\nthree\nfour\nFIVE\n')
    other.destroy()
  })

  it('keeps the base readable after the doc is evicted and compacted (memory mode)', async () => {
    const fs = createFileSystem({ idleMs: 0, maxIdle: 0 })
    const big = Array.from({ length: 2000 }, (_, i) => `line ${i}\n`).join('')
    await fs.writeFile('/f.txt', big)
    // A person types (not versioned yet), the agent reads that, then the person deletes it again:
    // compaction would drop the deleted text, but the agent's base still needs it.
    await typeInto(fs, '/f.txt', 'line 1499\n', 'person ')
    const seen = await fs.readFile('/f.txt')
    const id = fs.index.lookup('/f.txt')!
    const h = await fs.pool.acquire(id)
    const t = h.doc.getText(TEXT_KEY)
    h.doc.transact(() => t.delete(t.toString().indexOf('person '), 'person '.length), 'editor')
    h.release()
    fs.pool.evictIdle(true)
    const r = await fs.write('/f.txt', seen.replace('line 10\n', 'agent\n'))
    expect(r).toMatchObject({ merged: true, conflict: false })
    expect(await fs.readFile('/f.txt')).toBe(big.replace('line 10\n', 'agent\n'))
  })

  it('memory mode: a new file never read back is what the writer last saw, also once an editor opens it', async () => {
    // The write seeds the doc (built on first open); the editor's open builds it and edits it.
    const fs = createFileSystem()
    await fs.writeFile('/f.txt', base)
    expect(fs.pool.isSeeded(fs.index.lookup('/f.txt')!)).toBe(true)
    await typeInto(fs, '/f.txt', 'four', ' (person)')
    const report = await fs.write('/f.txt', base.replace('two', 'TWO (agent)'))
    expect(report).toMatchObject({ merged: true, conflict: false })
    expect(await fs.readFile('/f.txt')).toBe('one\nTWO (agent)\nthree\nfour (person)\nfive\n')
  })
})
