/**
 * Rows deferred to the end of the task (lww-map.ts, "Deferred local writes") on replicas that
 * nobody watches, synced by hand at random moments: whoever reads a replica's main doc never
 * sees it behind the replica's own table, and the replicas converge.
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
  fc.record({ kind: fc.constant('taskEnd' as const) }),
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

describe('deferred rows', () => {
  it('the main doc is never behind the table for whoever reads it, and replicas converge', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 30 }), async (ops) => {
        let t = 1000
        const clock = () => t++
        const rs = [createFileSystem({ clock }), createFileSystem({ clock })]
        const ignore = () => undefined
        for (const o of ops) {
          if (o.kind === 'sync') {
            const [a, b] = o.from === 0 ? [rs[0]!, rs[1]!] : [rs[1]!, rs[0]!]
            Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc, Y.encodeStateVector(b.doc)))
          } else if (o.kind === 'taskEnd') await new Promise((resolve) => setImmediate(resolve))
          else {
            const fs = rs[o.replica]!
            if (o.kind === 'write') await fs.writeFile(o.path, o.text).catch(ignore)
            else if (o.kind === 'mkdir') await fs.mkdir(o.path, { recursive: true }).catch(ignore)
            else if (o.kind === 'mv') await fs.mv(o.from, o.to).catch(ignore)
            else await fs.rm(o.path, { recursive: true }).catch(ignore)
          }
          for (const fs of rs) {
            const fresh = loadedFrom(fs)
            expect(tree(fresh)).toEqual(tree(fs))
            fresh.destroy()
          }
        }
        Y.applyUpdate(rs[1]!.doc, Y.encodeStateAsUpdate(rs[0]!.doc))
        Y.applyUpdate(rs[0]!.doc, Y.encodeStateAsUpdate(rs[1]!.doc))
        expect(tree(rs[1]!)).toEqual(tree(rs[0]!))
        for (const fs of rs) fs.destroy()
      }),
      { numRuns: 150, seed: 7 },
    )
  })

  it('a burst of writes nobody watches is one main-doc transaction; a watched doc gets one per write', async () => {
    const quiet = createFileSystem()
    // A spy on the doc's own transact (a listener would make the doc watched).
    let transactions = 0
    const transact = quiet.doc.transact.bind(quiet.doc)
    quiet.doc.transact = (fn, origin) => {
      if (quiet.doc._transaction === null) transactions++
      return transact(fn, origin)
    }
    // Someone holding the files array from before the burst reads every row of it.
    const files = quiet.doc.getArray('files')
    for (let i = 0; i < 50; i++) await quiet.writeFile(`/f${i}.txt`, 'x')
    expect(transactions).toBe(0)
    await new Promise((resolve) => setImmediate(resolve))
    expect(transactions).toBe(1)
    await quiet.writeFile('/late.txt', 'z')
    expect(files.toArray()).toHaveLength(51)
    expect(transactions).toBe(2)
    // A listener sees every write as its own update from now on.
    const updates: Uint8Array[] = []
    quiet.doc.on('update', (u: Uint8Array) => updates.push(u))
    const peer = createFileSystem()
    Y.applyUpdate(peer.doc, Y.encodeStateAsUpdate(quiet.doc))
    expect(peer.index.allPaths()).toHaveLength(51)
    for (let i = 0; i < 3; i++) await quiet.writeFile(`/g${i}.txt`, 'y')
    expect(updates).toHaveLength(3)
    for (const u of updates) Y.applyUpdate(peer.doc, u)
    expect(peer.index.allPaths()).toHaveLength(54)
  })
})
