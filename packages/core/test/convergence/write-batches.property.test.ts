/**
 * Write batches (`fs.batch`; lww-map.ts, "Held writes") opened and closed at random on two
 * replicas synced by hand at random moments: outside a batch the main doc is never behind the
 * replica's own table, a batch's rows reach it when the batch ends, and the replicas converge.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createFileSystem, type YjsFileSystem } from '../../src/index.js'

const paths = ['/a.txt', '/b.txt', '/d/c.txt', '/d/e/f.txt']
const op = fc.oneof(
  fc.record({
    kind: fc.constant('write' as const),
    replica: fc.nat(1),
    path: fc.constantFrom(...paths),
    text: fc.string({ maxLength: 6 }),
  }),
  fc.record({
    kind: fc.constant('mkdir' as const),
    replica: fc.nat(1),
    path: fc.constantFrom('/d', '/d/e', '/g'),
  }),
  fc.record({
    kind: fc.constant('mv' as const),
    replica: fc.nat(1),
    from: fc.constantFrom(...paths, '/d'),
    to: fc.constantFrom('/m.txt', '/g/n', '/d2'),
  }),
  fc.record({ kind: fc.constant('rm' as const), replica: fc.nat(1), path: fc.constantFrom(...paths, '/d') }),
  fc.record({ kind: fc.constant('sync' as const), from: fc.nat(1) }),
  fc.record({ kind: fc.constant('batch' as const), replica: fc.nat(1) }),
)

/** The tree a replica shows, with each file's size (content docs are not exchanged here). */
const tree = (fs: YjsFileSystem) =>
  fs.index.allPaths().map((p) => {
    const id = fs.index.lookup(p)!
    const row = fs.table.get(id)!
    return `${p} ${row.type} ${row.size}`
  })

/** A new replica loaded from `fs`'s main doc as it is now. */
function loadedFrom(fs: YjsFileSystem): YjsFileSystem {
  const fresh = createFileSystem()
  Y.applyUpdate(fresh.doc, Y.encodeStateAsUpdate(fs.doc))
  return fresh
}

describe('write batches', () => {
  it('outside a batch the main doc is never behind the table, and replicas converge', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
        let t = 1000
        const clock = () => t++
        const rs = [createFileSystem({ clock }), createFileSystem({ clock })]
        const ignore = () => undefined
        // An open batch per replica: the function that ends it, and the batch's promise.
        const open: ({ end: () => void; done: Promise<void> } | undefined)[] = [undefined, undefined]
        const toggle = async (i: number) => {
          const batch = open[i]
          if (batch) {
            open[i] = undefined
            batch.end()
            await batch.done
            return
          }
          let end = () => {}
          const ended = new Promise<void>((resolve) => {
            end = resolve
          })
          open[i] = { end, done: rs[i]!.batch(() => ended) }
        }
        for (const o of ops) {
          if (o.kind === 'sync') {
            const [a, b] = o.from === 0 ? [rs[0]!, rs[1]!] : [rs[1]!, rs[0]!]
            Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc, Y.encodeStateVector(b.doc)))
          } else if (o.kind === 'batch') await toggle(o.replica)
          else {
            const fs = rs[o.replica]!
            if (o.kind === 'write') await fs.writeFile(o.path, o.text).catch(ignore)
            else if (o.kind === 'mkdir') await fs.mkdir(o.path, { recursive: true }).catch(ignore)
            else if (o.kind === 'mv') await fs.mv(o.from, o.to).catch(ignore)
            else await fs.rm(o.path, { recursive: true }).catch(ignore)
          }
          for (const [i, fs] of rs.entries()) {
            if (open[i]) continue // in a batch: its rows reach the doc when it ends
            const fresh = loadedFrom(fs)
            expect(tree(fresh)).toEqual(tree(fs))
            fresh.destroy()
          }
        }
        for (const i of [0, 1]) if (open[i]) await toggle(i)
        for (const fs of rs) {
          const fresh = loadedFrom(fs)
          expect(tree(fresh)).toEqual(tree(fs))
          fresh.destroy()
        }
        Y.applyUpdate(rs[1]!.doc, Y.encodeStateAsUpdate(rs[0]!.doc))
        Y.applyUpdate(rs[0]!.doc, Y.encodeStateAsUpdate(rs[1]!.doc))
        expect(tree(rs[1]!)).toEqual(tree(rs[0]!))
        for (const fs of rs) fs.destroy()
      }),
      { numRuns: 150, seed: 7 },
    )
  })

  it('the rows of a batch are one main-doc transaction and one update; outside a batch one per write', async () => {
    const fs = createFileSystem()
    const origins: unknown[] = []
    fs.doc.on('afterTransaction', (tr: Y.Transaction) => origins.push(tr.origin))
    const updates: Uint8Array[] = []
    fs.doc.on('update', (u: Uint8Array) => updates.push(u))
    const peer = createFileSystem()
    const files = fs.doc.getArray('files')
    const result = await fs.batch(async () => {
      await fs.mkdir('/d')
      for (let i = 0; i < 50; i++) await fs.writeFile(`/d/f${i}.txt`, `line ${i}\n`)
      // Reads, the index and events see each write at once.
      expect(await fs.readFile('/d/f49.txt')).toBe('line 49\n')
      expect(fs.index.allPaths()).toHaveLength(51)
      expect(files.length).toBe(0)
      return 'done'
    })
    expect(result).toBe('done')
    expect(files.length).toBe(51)
    expect(updates).toHaveLength(1)
    for (const u of updates) Y.applyUpdate(peer.doc, u)
    expect(peer.index.allPaths()).toHaveLength(51)
    // Outside a batch: each write is stored at once.
    for (let i = 0; i < 3; i++) await fs.writeFile(`/g${i}.txt`, 'y')
    expect(updates).toHaveLength(4)
    expect(files.length).toBe(54)
    // A batch whose function throws: what it wrote stays written, and is stored.
    await expect(
      fs.batch(async () => {
        await fs.writeFile('/h.txt', 'h')
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(files.length).toBe(55)
    for (const u of updates.slice(1)) Y.applyUpdate(peer.doc, u)
    expect(peer.index.allPaths()).toHaveLength(55)
    expect(origins.length).toBeGreaterThanOrEqual(updates.length)
  })
})
