import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { textCodec } from '../content/text-codec.js'
import { createFileSystem } from '../fs/yjs-file-system.js'
import {
  compactContentState,
  hasUnversionedChanges,
  listStoredVersions,
  readVersionContent,
  recordVersion,
} from './file-history.js'

describe('file history', () => {
  it('records a version per write, reads and diffs them, and survives rename and move', async () => {
    let t = 1000
    const fs = createFileSystem({ clock: () => t++, author: 'agent:test' })
    await fs.mkdir('/a')
    await fs.writeFile('/a/f.txt', 'one\ntwo\n')
    await fs.writeFile('/a/f.txt', 'one\nTWO\nthree\n')
    await fs.mv('/a/f.txt', '/a/g.txt')
    await fs.mkdir('/b')
    await fs.mv('/a/g.txt', '/b/g.txt')
    const versions = await fs.history('/b/g.txt')
    expect(versions.map((v) => [v.reason, v.size, v.author])).toEqual([
      ['write', 8, 'agent:test'],
      ['write', 14, 'agent:test'],
    ])
    expect(await fs.readVersion('/b/g.txt', versions[0]!.id)).toBe('one\ntwo\n')
    const diff = await fs.diff('/b/g.txt', versions[0]!.id, versions[1]!.id)
    expect(diff).toBe(
      [
        '===================================================================',
        `--- a/b/g.txt\t${versions[0]!.id}`,
        `+++ b/b/g.txt\t${versions[1]!.id}`,
        '@@ -1,2 +1,3 @@',
        ' one',
        '-two',
        '+TWO',
        '+three',
        '',
      ].join('\n'),
    )
  })

  it('restore writes old content as a new version and syncs to another replica', async () => {
    const a = createFileSystem()
    const b = createFileSystem()
    await a.writeFile('/f.txt', 'v1')
    await a.writeFile('/f.txt', 'v2')
    const [v1] = await a.history('/f.txt')
    const restored = await a.restore('/f.txt', v1!.id)
    expect(restored.reason).toBe('restore')
    expect(await a.readFile('/f.txt')).toBe('v1')
    expect((await a.history('/f.txt')).length).toBe(3)
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
    const id = a.index.lookup('/f.txt')!
    const [ha, hb] = [await a.pool.acquire(id), await b.pool.acquire(id)]
    Y.applyUpdate(hb.doc, Y.encodeStateAsUpdate(ha.doc))
    ha.release()
    hb.release()
    expect(await b.readFile('/f.txt')).toBe('v1')
    const onB = await b.history('/f.txt')
    expect(onB.map((v) => v.reason)).toEqual(['write', 'write', 'restore'])
    expect(await b.readVersion('/f.txt', onB[1]!.id)).toBe('v2')
  })

  it('editor edits are versioned on demand and at most once per interval', async () => {
    let t = 0
    const fs = createFileSystem({ clock: () => t, historyIntervalMs: 1000 })
    await fs.writeFile('/e.txt', 'start')
    const h = await fs.pool.acquire(fs.index.lookup('/e.txt')!)
    for (let i = 0; i < 5; i++) {
      t += 100
      h.doc.getText('text').insert(0, `${i}`)
      await Promise.resolve()
    }
    expect(listStoredVersions(h.doc).length).toBe(1)
    t += 1000
    h.doc.getText('text').insert(0, 'x')
    await Promise.resolve()
    expect(listStoredVersions(h.doc).map((v) => v.reason)).toEqual(['write', 'edit'])
    h.doc.getText('text').insert(0, 'y')
    await Promise.resolve()
    const versions = await fs.history('/e.txt')
    expect(versions.map((v) => v.reason)).toEqual(['write', 'edit', 'save'])
    expect(await fs.readVersion('/e.txt', versions[2]!.id)).toBe('yx43210start')
    expect((await fs.history('/e.txt')).length).toBe(3) // nothing new, nothing recorded
    h.release()
  })

  it('an explicit save records a version only when something changed', async () => {
    let t = 0
    const fs = createFileSystem({ clock: () => t, historyIntervalMs: 60_000 })
    await fs.writeFile('/s.txt', 'a')
    expect((await fs.saveVersion('/s.txt')).reason).toBe('write') // nothing new: the last version
    const h = await fs.pool.acquire(fs.index.lookup('/s.txt')!)
    t += 10
    h.doc.getText('text').insert(1, 'b') // editor edit within the interval: not versioned yet
    await Promise.resolve()
    h.release()
    const saved = await fs.saveVersion('/s.txt')
    expect(saved.reason).toBe('save')
    expect(await fs.readVersion('/s.txt', saved.id)).toBe('ab')
    expect((await fs.history('/s.txt')).map((v) => v.reason)).toEqual(['write', 'save'])
  })

  it('binary versions come back byte-exact', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/b.bin', new Uint8Array([0, 1, 2, 255]))
    await fs.writeFile('/b.bin', 'text now')
    const [first] = await fs.history('/b.bin')
    expect(first!.binary).toBe(true)
    expect((await fs.readVersionContent('/b.bin', first!.id)).bytes).toEqual(new Uint8Array([0, 1, 2, 255]))
  })

  it('compaction keeps every version readable and drops what no version sees', async () => {
    const fs = createFileSystem()
    const base = 'x'.repeat(10_000)
    await fs.writeFile('/f.txt', base)
    const id = fs.index.lookup('/f.txt')!
    const h = await fs.pool.acquire(id)
    // Churn that no version sees: typed and deleted between two writes.
    const text = h.doc.getText('text')
    for (let i = 0; i < 200; i++) {
      text.insert(0, 'temporary text that nobody versions ')
      text.delete(0, 36)
    }
    h.release()
    for (let i = 0; i < 20; i++)
      await fs.writeFile('/f.txt', `${base.slice(0, i * 100)}edit ${i}${base.slice(i * 100)}`)
    const before = fs.pool.encodeState(id)!
    const after = compactContentState(before)
    expect(after.byteLength).toBeLessThan(before.byteLength)
    const doc = new Y.Doc({ gc: false })
    Y.applyUpdate(doc, after)
    const versions = listStoredVersions(doc)
    expect(versions.length).toBe(21)
    expect(readVersionContent(doc, versions[0]!, [textCodec]).text).toBe(base)
    expect(readVersionContent(doc, versions[20]!, [textCodec]).text).toBe(await fs.readFile('/f.txt'))
    // The compacted state syncs with the full one in both directions.
    const full = new Y.Doc({ gc: false })
    Y.applyUpdate(full, before)
    Y.applyUpdate(full, after)
    Y.applyUpdate(doc, before)
    expect(doc.getText('text').toString()).toBe(full.getText('text').toString())
  })
})

describe('version storage', () => {
  it('stores deltas between keyframes and reads every version back', async () => {
    const fs = createFileSystem()
    const texts: string[] = []
    let text = 'base text '.repeat(50)
    for (let i = 0; i < 150; i++) {
      const at = (i * 37) % (text.length - 5)
      text =
        i % 2 ? `${text.slice(0, at)}${text.slice(at + 3)}` : `${text.slice(0, at)}[${i}]${text.slice(at)}`
      texts.push(text)
      await fs.writeFile('/f.txt', text)
    }
    const h = await fs.pool.acquire(fs.index.lookup('/f.txt')!)
    const stored = listStoredVersions(h.doc)
    h.release()
    expect(stored.filter((v) => v.base === undefined).length).toBe(3) // versions 0, 64, 128
    const versions = await fs.history('/f.txt')
    for (const i of [0, 1, 63, 64, 65, 100, 149])
      expect(await fs.readVersion('/f.txt', versions[i]!.id)).toBe(texts[i])
  })

  it('hasUnversionedChanges: content inserts and deletions count, versions from peers do not', () => {
    const meta = { author: 'a', reason: 'write' as const, size: 0, codec: 'text', name: 'f.txt', ts: 0 }
    const [a, b] = [new Y.Doc({ gc: false }), new Y.Doc({ gc: false })]
    expect(hasUnversionedChanges(a)).toBe(false)
    const text = a.getText('text')
    text.insert(0, 'hello world')
    expect(hasUnversionedChanges(a)).toBe(true)
    recordVersion(a, meta)
    expect(hasUnversionedChanges(a)).toBe(false)
    // A deletion alone (no new structs) is a change; so is one in a range deleted before.
    text.delete(0, 6)
    expect(hasUnversionedChanges(a)).toBe(true)
    recordVersion(a, meta)
    expect(hasUnversionedChanges(a)).toBe(false)
    text.delete(text.length - 1, 1)
    expect(hasUnversionedChanges(a)).toBe(true)
    recordVersion(a, meta)
    // A peer's version of the same content adds only to the versions array.
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
    recordVersion(b, meta)
    Y.applyUpdate(a, Y.encodeStateAsUpdate(b))
    expect(listStoredVersions(a)).toHaveLength(4)
    expect(hasUnversionedChanges(a)).toBe(false)
    // A peer's deletion is a change here too.
    b.getText('text').delete(0, 1)
    Y.applyUpdate(a, Y.encodeStateAsUpdate(b))
    expect(hasUnversionedChanges(a)).toBe(true)
  })
})
