import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { attachLwwMap, type LwwCodec, type LwwEntry, type StoredEntry } from './lww-map.js'

const make = (clock?: () => number) => {
  const doc = new Y.Doc()
  const map = attachLwwMap<number | string>(doc.getArray<LwwEntry<number | string>>('kv'), {
    clock,
    minStale: 4,
  })
  return { doc, map }
}

describe('LwwMap', () => {
  it('keeps the latest write per key and sweeps superseded entries', () => {
    const { doc, map } = make()
    for (let i = 0; i < 100; i++) map.set('a', i)
    expect(map.get('a')).toBe(99)
    expect(map.size).toBe(1)
    // Stale entries are swept in batches, so the array stays small.
    expect(doc.getArray('kv').length).toBeLessThan(10)
  })

  it('reports changes once per transaction with before and after', () => {
    const { map } = make()
    const seen: string[] = []
    map.observe((changes) => {
      for (const [k, c] of changes) seen.push(`${k}:${c.before}->${c.after}`)
    })
    map.set('a', 1)
    map.batch(() => {
      map.set('a', 2)
      map.set('b', 3)
    })
    map.delete('a')
    expect(seen).toEqual(['a:undefined->1', 'a:1->2', 'b:undefined->3', 'a:2->undefined'])
  })

  it('a later write wins even when the writer clock lags (hybrid clock)', () => {
    const a = make(() => 1_000_000)
    const b = make(() => 5)
    a.map.set('k', 'from a')
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
    b.map.set('k', 'from b, later')
    Y.applyUpdate(a.doc, Y.encodeStateAsUpdate(b.doc))
    expect(a.map.get('k')).toBe('from b, later')
    expect(b.map.get('k')).toBe('from b, later')
  })

  it('a batch does not run the clock ahead: keys written in one millisecond share its timestamp, a key written again takes the next', () => {
    let t = 1000
    const a = make(() => t)
    const tsOf = (key: string) =>
      (a.doc.getArray('kv').toArray() as LwwEntry<number | string>[])
        .filter((e) => e.key === key)
        .map((e) => e.ts)
    a.map.batch(() => {
      for (let i = 0; i < 10_000; i++) a.map.set(`k${i}`, i)
    })
    expect(tsOf('k0')).toEqual([1000])
    expect(tsOf('k9999')).toEqual([1000])
    // The same key again in the same millisecond: the next timestamp, which later keys then share.
    a.map.set('k0', 'again')
    expect(tsOf('k0')).toContain(1001)
    a.map.set('k1', 'again')
    expect(tsOf('k1')).toContain(1001)
    // Time moves on: stamps follow the wall clock again (not 10,000 ms ahead of it).
    t = 1005
    a.map.set('k2', 'later')
    expect(tsOf('k2')).toContain(1005)
  })

  it("a local write supersedes a peer's entry that took the timestamp it gave last", () => {
    // Both orders of the values: a tie would be broken by them, so one order would hide it.
    for (const [first, later] of [
      ['x from a', 'y from b'],
      ['y from a', 'x from b'],
    ]) {
      const clock = () => 50
      const a = make(clock)
      const b = make(clock)
      b.map.set('q', 'b first')
      a.map.set('p', first!)
      // b's clock gave 50 to q; a's entry of p has 50 too: b's next write of p must beat it.
      Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
      b.map.set('p', later!)
      expect(b.map.get('p')).toBe(later)
      Y.applyUpdate(a.doc, Y.encodeStateAsUpdate(b.doc))
      expect(a.map.get('p')).toBe(later)
    }
  })

  it('every local write wins at once over everything its replica has seen, with clocks that stop, lag and tie (property)', () => {
    const op = fc.record({
      replica: fc.integer({ min: 0, max: 2 }),
      key: fc.constantFrom('a', 'b', 'c', 'd'),
      value: fc.integer({ min: 0, max: 1000 }),
      sync: fc.constantFrom('none', 'one', 'all'),
      tick: fc.integer({ min: 0, max: 2 }),
    })
    fc.assert(
      fc.property(fc.array(op, { maxLength: 50 }), (ops) => {
        const times = [0, 0, 0]
        const rs = [0, 1, 2].map((r) => make(() => times[r]!))
        for (const [i, o] of ops.entries()) {
          const r = rs[o.replica]!
          // A value never written before: what the replica reads back must be this write.
          const value = i * 1000 + o.value
          r.map.set(o.key, value)
          expect(r.map.get(o.key)).toBe(value)
          const other = rs[(o.replica + 1) % 3]!
          if (o.sync === 'one') Y.applyUpdate(other.doc, Y.encodeStateAsUpdate(r.doc))
          if (o.sync === 'all')
            for (const x of rs)
              for (const y of rs) if (x !== y) Y.applyUpdate(y.doc, Y.encodeStateAsUpdate(x.doc))
          times[o.replica]! += o.tick
        }
        for (const x of rs)
          for (const y of rs) if (x !== y) Y.applyUpdate(y.doc, Y.encodeStateAsUpdate(x.doc))
        const dump = (m: (typeof rs)[number]['map']) =>
          JSON.stringify([...m.keys()].sort().map((k) => [k, m.get(k)]))
        expect(dump(rs[1]!.map)).toBe(dump(rs[0]!.map))
        expect(dump(rs[2]!.map)).toBe(dump(rs[0]!.map))
      }),
      { numRuns: 400, seed: 5 },
    )
  })

  it('ignores garbage entries from a peer', () => {
    const { doc, map } = make()
    doc
      .getArray<unknown>('kv')
      .push([42, null, { key: 'x' }, new Uint8Array([1, 2, 3]), { key: 'y', val: 1, ts: 'NaN' }])
    doc.getArray<unknown>('kv').push([{ key: 'valid', val: 5, ts: 1 }])
    expect(map.get('valid')).toBe(5)
    map.delete('valid')
    expect(map.size).toBe(0)
    map.set('ok', 1)
    expect(map.get('ok')).toBe(1)
  })

  it('an entry failing isValid takes part in the LWW but reads as absent', () => {
    const doc = new Y.Doc()
    const arr = doc.getArray<LwwEntry<number>>('kv')
    const map = attachLwwMap<number>(arr, { isValid: (_k, v): v is number => typeof v === 'number' })
    const events: string[] = []
    const entries: string[] = []
    map.observe((changes) => {
      for (const [k, c] of changes) events.push(`${k}:${c.before}->${c.after}`)
    })
    map.observeEntries((k, v) => entries.push(`${k}=${v}`))
    map.set('a', 1)
    // A peer's newer entry that is not a number wins and hides the key.
    arr.push([{ key: 'a', val: 'bad' as never, ts: Number.MAX_SAFE_INTEGER - 1 }])
    expect(map.get('a')).toBeUndefined()
    expect(map.has('a')).toBe(false)
    expect([map.size, [...map.keys()], [...map.values()], [...map.entries()]]).toEqual([0, [], [], []])
    // A later valid entry shows it again; deleting the bad winner promotes the old value.
    arr.push([{ key: 'a', val: 2, ts: Number.MAX_SAFE_INTEGER }])
    expect(map.get('a')).toBe(2)
    arr.delete(arr.length - 1, 1)
    expect(map.get('a')).toBeUndefined()
    arr.delete(arr.length - 1, 1)
    expect(map.get('a')).toBe(1)
    expect(events).toEqual([
      'a:undefined->1',
      'a:1->undefined',
      'a:undefined->2',
      'a:2->undefined',
      'a:undefined->1',
    ])
    expect(entries).toEqual(['a=1', 'a=2'])
  })

  it('keeps runs of its own appended entries short, and peers read the same map', () => {
    const a = make()
    const b = make()
    for (let i = 0; i < 1000; i++) a.map.set(`k${i}`, i)
    a.map.batch(() => {
      for (let i = 0; i < 300; i++) a.map.set(`b${i}`, i)
    })
    for (let i = 0; i < 300; i++) a.map.set(`c${i}`, i)
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
    const runs: number[] = []
    for (let item = a.doc.getArray('kv')._start; item !== null; item = item.right) runs.push(item.length)
    // Merging a write into a run copies the run: runs stay short (a batch is one item).
    expect(runs.filter((n) => n > 128)).toHaveLength(1) // the batch, with the run it continued
    expect(Math.max(...runs)).toBeLessThanOrEqual(128 + 300)
    expect(b.map.size).toBe(1600)
    expect([...b.map.entries()].sort()).toEqual([...a.map.entries()].sort())
  })

  it('replicas converge whatever the order of concurrent writes and deletes', () => {
    const op = fc.record({
      replica: fc.nat(2),
      key: fc.constantFrom('a', 'b', 'c'),
      value: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant('del')),
      sync: fc.boolean(),
    })
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.integer({ min: 0, max: 3 }), (ops, t0) => {
        let t = t0
        const clock = () => t
        const rs = [make(clock), make(clock), make(clock)]
        const syncAll = () => {
          for (const x of rs)
            for (const y of rs) if (x !== y) Y.applyUpdate(y.doc, Y.encodeStateAsUpdate(x.doc))
        }
        for (const o of ops) {
          const r = rs[o.replica]!
          if (o.value === 'del') r.map.delete(o.key)
          else r.map.set(o.key, o.value)
          if (o.sync) syncAll()
          if (o.replica === 0) t++ // clocks tie often: the tie-break must be deterministic
        }
        syncAll()
        const dump = (m: (typeof rs)[number]['map']) =>
          JSON.stringify([...m.keys()].sort().map((k) => [k, m.get(k)]))
        expect(dump(rs[1]!.map)).toBe(dump(rs[0]!.map))
        expect(dump(rs[2]!.map)).toBe(dump(rs[0]!.map))
      }),
      { numRuns: 300, seed: 42 },
    )
  })
})

// Values as array entries `[7, key, ts, value]`; strings starting with `obj:` are refused
// (written as object entries), as the files table refuses rows with unknown keys.
const codec: LwwCodec<number | string> = {
  tag: 7,
  toEntry: (key, ts, v) => (typeof v === 'string' && v.startsWith('obj:') ? undefined : [7, key, ts, v]),
  fromEntry: (e) => e[3],
}
const makeCoded = (clock?: () => number) => {
  const doc = new Y.Doc()
  const arr = doc.getArray<StoredEntry<number | string>>('kv')
  const map = attachLwwMap<number | string>(arr, { clock, minStale: 4, codec })
  return { doc, arr, map }
}

describe('LwwMap with a codec (array entries)', () => {
  it('writes array entries, falls back to object entries, and a peer reads both', () => {
    const a = makeCoded(() => 10)
    a.map.set('x', 1)
    a.map.set('y', 'obj:kept')
    // Two keys in one millisecond share its timestamp.
    expect(a.arr.toArray()).toEqual([[7, 'x', 10, 1], { key: 'y', val: 'obj:kept', ts: 10 }])
    const b = makeCoded()
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
    expect([b.map.get('x'), b.map.get('y')]).toEqual([1, 'obj:kept'])
  })

  it('object entries (stored by older writers) and array entries of a key share one LWW', () => {
    const { arr, map } = makeCoded(() => 100)
    const seen: string[] = []
    map.observe((changes) => {
      for (const [k, c] of changes) seen.push(`${k}:${c.before}->${c.after}`)
    })
    arr.push([{ key: 'k', val: 'old', ts: 50 }])
    map.set('k', 'new') // ts 100, an array entry
    arr.push([{ key: 'k', val: 'newer, old format', ts: 200 }])
    expect(map.get('k')).toBe('newer, old format')
    map.set('k', 'newest') // ts 201
    expect(map.get('k')).toBe('newest')
    // Deleting the array winner promotes the best object entry; deleting the key removes all forms.
    const at = arr.toArray().findIndex((e) => Array.isArray(e) && e[3] === 'newest')
    arr.delete(at, 1)
    expect(map.get('k')).toBe('newer, old format')
    map.delete('k')
    expect([map.get('k'), arr.length]).toEqual([undefined, 0])
    expect(seen).toEqual([
      'k:undefined->old',
      'k:old->new',
      'k:new->newer, old format',
      'k:newer, old format->newest',
      'k:newest->newer, old format',
      'k:newer, old format->undefined',
    ])
  })

  it('sweeps stale entries of both forms', () => {
    const { arr, map } = makeCoded()
    for (let i = 0; i < 20; i++) arr.push([{ key: `o${i % 2}`, val: i, ts: i + 1 }])
    for (let i = 0; i < 40; i++) map.set(`o${i % 2}`, i)
    expect([map.get('o0'), map.get('o1')]).toEqual([38, 39])
    expect(arr.length).toBeLessThan(10)
    expect(arr.toArray().filter((e) => !Array.isArray(e))).toEqual([])
  })

  it('ignores array entries it cannot read, and a map without the codec ignores every array entry', () => {
    const { doc, arr, map } = makeCoded()
    arr.push([[8, 'a', 1, 'other tag'], [7, 1, 1, 'bad key'], [7, 'b', 'NaN', 'bad ts'], [7], []])
    arr.push([[7, 'ok', 1, 'fine']])
    expect([...map.entries()]).toEqual([['ok', 'fine']])
    const plain = attachLwwMap<number | string>(doc.getArray<StoredEntry<number | string>>('kv'))
    expect(plain.size).toBe(0)
    map.delete('ok')
    expect(arr.length).toBe(5)
  })

  it("replicas converge with array writes, older writers' object entries and deletes in any order", () => {
    const op = fc.record({
      replica: fc.nat(2),
      key: fc.constantFrom('a', 'b', 'c'),
      value: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('obj:x', 'obj:y', 'del', 'legacy')),
      sync: fc.boolean(),
    })
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), fc.integer({ min: 0, max: 3 }), (ops, t0) => {
        let t = t0
        const clock = () => t
        const rs = [makeCoded(clock), makeCoded(clock), makeCoded(clock)]
        const syncAll = () => {
          for (const x of rs)
            for (const y of rs) if (x !== y) Y.applyUpdate(y.doc, Y.encodeStateAsUpdate(x.doc))
        }
        for (const [i, o] of ops.entries()) {
          const r = rs[o.replica]!
          if (o.value === 'del') r.map.delete(o.key)
          // An older client's write: an object entry with a clock that ties often.
          else if (o.value === 'legacy') r.arr.push([{ key: o.key, val: i % 3, ts: t }])
          else r.map.set(o.key, o.value)
          if (o.sync) syncAll()
          if (o.replica === 0) t++
        }
        syncAll()
        const dump = (m: ReturnType<typeof makeCoded>['map']) =>
          JSON.stringify([...m.keys()].sort().map((k) => [k, m.get(k)]))
        expect(dump(rs[1]!.map)).toBe(dump(rs[0]!.map))
        expect(dump(rs[2]!.map)).toBe(dump(rs[0]!.map))
        // A map attached afterwards (a fresh load) reads the same.
        const fresh = attachLwwMap<number | string>(rs[0]!.arr, { codec })
        expect(dump(fresh)).toBe(dump(rs[0]!.map))
      }),
      { numRuns: 300, seed: 42 },
    )
  })
})

describe('LwwMap lazy winners (initial load of array entries)', () => {
  it('a lazily loaded map reads, changes and reports changes as one that decodes every entry', () => {
    // Eager reference: the same codec without `isValidEntry`, with an `isValid` that takes all.
    const lazyCodec: LwwCodec<number | string> = { ...codec, isValidEntry: () => true }
    const op = fc.record({
      key: fc.constantFrom('a', 'b', 'c', 'd'),
      value: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constantFrom('obj:x', 'del', 'legacy')),
      later: fc.boolean(),
    })
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let t = 0
        const src = makeCoded(() => t)
        const apply = (o: (typeof ops)[number], i: number) => {
          if (o.value === 'del') src.map.delete(o.key)
          else if (o.value === 'legacy') src.arr.push([{ key: o.key, val: i % 3, ts: t }])
          else src.map.set(o.key, o.value)
          t += i % 2
        }
        const early = ops.filter((o) => !o.later)
        early.forEach(apply)
        const load = (options: Parameters<typeof attachLwwMap<number | string>>[1]) => {
          const doc = new Y.Doc()
          Y.applyUpdate(doc, Y.encodeStateAsUpdate(src.doc))
          const map = attachLwwMap<number | string>(doc.getArray<StoredEntry<number | string>>('kv'), options)
          const log: string[] = []
          map.observe((changes) => {
            for (const [k, c] of changes) log.push(`${k}:${c.before}->${c.after}`)
          })
          return { doc, map, log }
        }
        // A stopped clock: a local write wins only through the highest timestamp the load saw.
        const clock = () => 0
        const lazy = load({ codec: lazyCodec, minStale: 4, clock })
        const eager = load({ codec, minStale: 4, clock, isValid: (_k, v): v is number | string => true })
        const dump = (m: typeof lazy.map) => {
          const scanned: unknown[] = []
          m.scan((k, v, e) => scanned.push([k, e === undefined ? v : codec.fromEntry(e, k)]))
          return JSON.stringify([[...m.entries()], m.size, scanned.sort()])
        }
        // Scan before anything is read (entries undecoded), then after reads.
        expect(dump(lazy.map)).toBe(dump(eager.map))
        for (const k of ['a', 'b', 'c', 'd']) expect(lazy.map.get(k)).toBe(eager.map.get(k))
        // Later changes reach both, remote and local.
        const sent = src.doc.getArray('kv').length
        for (const [i, o] of ops.filter((o) => o.later).entries()) apply(o, i + sent)
        for (const r of [lazy, eager]) Y.applyUpdate(r.doc, Y.encodeStateAsUpdate(src.doc))
        lazy.map.set('d', 'local')
        eager.map.set('d', 'local')
        expect(lazy.map.get('d')).toBe('local')
        expect(lazy.log).toEqual(eager.log)
        expect(dump(lazy.map)).toBe(dump(eager.map))
      }),
      { numRuns: 400, seed: 7 },
    )
  })
})

describe('LwwMap held writes (write batches)', () => {
  const makeDeferred = (clock?: () => number, options: { maxHeld?: number; maxHoldMs?: number } = {}) => {
    const doc = new Y.Doc()
    const map = attachLwwMap<number | string>(doc.getArray<LwwEntry<number | string>>('kv'), {
      clock,
      minStale: 4,
      ...options,
    })
    return { doc, map }
  }
  /** Top-level transactions of `doc`, by origin (a listener is fine: holding is explicit). */
  const countTransactions = (doc: Y.Doc) => {
    const origins: unknown[] = []
    doc.on('afterTransaction', (tr: Y.Transaction) => origins.push(tr.origin))
    return origins
  }

  it('holds a pinned key’s writes with no hold open, until unpinned, and stores the others at once', () => {
    const { doc, map } = makeDeferred()
    map.pin('new')
    map.set('new', 1, 'me') // a new file's row: its content is not stored yet
    map.set('other', 2, 'me')
    expect(map.get('new')).toBe(1) // applied here at once
    const peer = makeDeferred()
    Y.applyUpdate(peer.doc, Y.encodeStateAsUpdate(doc))
    expect(peer.map.get('new')).toBeUndefined()
    expect(peer.map.get('other')).toBe(2)
    map.set('new', 3, 'me') // written again before its content was stored: held too
    map.flush() // an explicit flush keeps a pinned key held
    Y.applyUpdate(peer.doc, Y.encodeStateAsUpdate(doc))
    expect(peer.map.get('new')).toBeUndefined()
    map.unpin(['new'])
    Y.applyUpdate(peer.doc, Y.encodeStateAsUpdate(doc))
    expect(peer.map.get('new')).toBe(3)
    map.set('new', 4, 'me') // unpinned: stored at once again
    Y.applyUpdate(peer.doc, Y.encodeStateAsUpdate(doc))
    expect(peer.map.get('new')).toBe(4)
  })

  it('applies a held write at once and stores the writes of a batch in one transaction when released', () => {
    const { doc, map } = makeDeferred()
    const origins = countTransactions(doc)
    const updates: Uint8Array[] = []
    doc.on('update', (u: Uint8Array) => updates.push(u))
    const seen: string[] = []
    map.observe((changes, source) => {
      for (const [k, c] of changes)
        seen.push(`${k}:${c.before}->${c.after} ${source.local} ${String(source.origin)}`)
    })
    const release = map.hold()
    const inner = map.hold() // holds nest
    for (let i = 0; i < 10; i++) map.set(`k${i}`, i, 'me')
    map.set('k0', 'again', 'me') // supersedes a held entry: that one is never stored
    expect(map.get('k0')).toBe('again')
    expect(map.size).toBe(10)
    expect(seen).toHaveLength(11)
    expect(seen[10]).toBe('k0:0->again true me')
    expect(map.yarray.length).toBe(0)
    inner()
    inner() // a second call of the same release does nothing
    expect(origins).toHaveLength(0)
    release()
    expect(map.yarray.length).toBe(10)
    expect(origins).toEqual(['me'])
    expect(updates).toHaveLength(1) // what a provider would send: one message for the batch
    // Storing reported nothing new.
    expect(seen).toHaveLength(11)
    // Outside a batch, each write is stored at once.
    map.set('k1', 'now', 'me')
    expect(map.yarray.length).toBe(11)
    expect(updates).toHaveLength(2)
    const copy = makeDeferred()
    Y.applyUpdate(copy.doc, Y.encodeStateAsUpdate(doc))
    expect([...copy.map.entries()].sort()).toEqual([...map.entries()].sort())
  })

  it('stores held writes before any other write of the map, each origin in its own transaction', () => {
    const { doc, map } = makeDeferred()
    const origins = countTransactions(doc)
    const release = map.hold()
    map.set('a', 1, 'x')
    map.set('b', 2, 'y') // another origin: the 'x' entry is stored first
    expect(origins).toEqual(['x'])
    map.batch(() => map.set('c', 3), 'z') // 'y' first, then the batch
    expect(origins).toEqual(['x', 'y', 'z'])
    map.set('d', 4, 'z')
    map.delete('d', 'z') // a held key deleted: stored first, then deleted, in one transaction
    expect(map.has('d')).toBe(false)
    expect(origins).toEqual(['x', 'y', 'z', 'z'])
    map.set('e', 5, 'z')
    map.set('f', 6, 'z')
    // A write of the map inside someone's transaction: the held entries join it.
    doc.transact(() => map.delete('f'), 'someone')
    expect(map.has('f')).toBe(false)
    expect(origins).toEqual(['x', 'y', 'z', 'z', 'someone'])
    release()
    expect(origins).toHaveLength(5)
    expect(map.yarray.length).toBe(4)
    const copy = makeDeferred()
    Y.applyUpdate(copy.doc, Y.encodeStateAsUpdate(doc))
    expect([...copy.map.entries()].sort()).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['e', 5],
    ])
  })

  it('stores held writes once maxHeld wait, and at the latest maxHoldMs after the first', async () => {
    const { doc, map } = makeDeferred(undefined, { maxHeld: 3, maxHoldMs: 20 })
    const origins = countTransactions(doc)
    const release = map.hold()
    for (let i = 0; i < 7; i++) map.set(`k${i}`, i)
    expect(origins).toHaveLength(2) // 3 + 3 stored, 1 held
    expect(map.yarray.length).toBe(6)
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(map.yarray.length).toBe(7) // a long batch shows its progress
    expect(origins).toHaveLength(3)
    map.set('k7', 7)
    expect(map.yarray.length).toBe(7) // still held: the timer starts again
    release()
    expect(map.yarray.length).toBe(8)
    expect(origins).toHaveLength(4)
    map.destroy()
  })

  it('a peer update applied during a batch merges with the held writes', () => {
    const a = makeDeferred(() => 10)
    const b = makeDeferred(() => 20)
    const release = a.map.hold()
    a.map.set('k', 'a-first')
    b.map.set('k', 'b-later')
    b.map.set('j', 'b')
    Y.applyUpdate(a.doc, Y.encodeStateAsUpdate(b.doc))
    expect(a.map.get('k')).toBe('b-later') // newer: wins over the held entry
    a.map.set('j', 'a-newest') // written after seeing b's: beats it
    const reached: string[] = []
    b.map.observeEntries((key, val) => reached.push(`${key}=${val}`))
    release()
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
    for (const r of [a, b])
      expect([...r.map.entries()].sort()).toEqual([
        ['j', 'a-newest'],
        ['k', 'b-later'],
      ])
    // The held write a peer's superseded is stored all the same: the peer learns of it (a file's
    // row announces a content change that happened whether the row won or not).
    expect(reached.sort()).toEqual(['j=a-newest', 'k=a-first'])
  })

  it('a map loaded from a doc gives the values of the entries that lost (its entry observers never saw them arrive)', () => {
    const a = makeDeferred(() => 10)
    const b = makeDeferred(() => 20)
    a.map.set('k', 'a-lost')
    b.map.set('k', 'b-won')
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
    const loaded = new Y.Doc()
    Y.applyUpdate(loaded, Y.encodeStateAsUpdate(b.doc))
    const map = attachLwwMap<number | string>(loaded.getArray<LwwEntry<number | string>>('kv'))
    expect(map.get('k')).toBe('b-won')
    expect(map.staleValues('k')).toEqual(['a-lost'])
    expect(map.staleValues('other')).toEqual([])
  })

  it('a held write superseded by a later held write of its key is never stored', () => {
    const a = makeDeferred()
    const b = makeDeferred()
    const release = a.map.hold()
    a.map.set('k', 'first')
    a.map.set('k', 'second')
    release()
    const reached: string[] = []
    b.map.observeEntries((key, val) => reached.push(`${key}=${val}`))
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
    expect(reached).toEqual(['k=second'])
    expect(a.map.yarray.length).toBe(1)
  })

  it("every write stored reaches every peer's entry observers, winning or not; a held write a later held write of its key superseded never does (property)", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('write' as const), replica: fc.nat(2), key: fc.constantFrom('a', 'b') }),
      fc.record({ kind: fc.constant('flush' as const), replica: fc.nat(2) }),
      fc.record({ kind: fc.constant('send' as const), from: fc.nat(2), to: fc.nat(2) }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let t = 0
        const rs = [0, 1, 2].map(() => makeDeferred(() => t))
        const releases = rs.map((r) => r.map.hold())
        // Values are unique (the op's index): what each replica's peers observed, and what each wrote.
        const observed = rs.map((r) => {
          const got = new Set<number | string>()
          r.map.observeEntries((_key, val, source) => {
            if (!source.local) got.add(val)
          })
          return got
        })
        const held = rs.map(() => new Map<string, number>())
        const stored = rs.map(() => new Set<number>())
        const dropped = new Set<number>()
        const store = (r: number) => {
          for (const v of held[r]!.values()) stored[r]!.add(v)
          held[r]!.clear()
        }
        for (const [i, o] of ops.entries()) {
          if (o.kind === 'write') {
            const before = held[o.replica]!.get(o.key)
            if (before !== undefined) dropped.add(before)
            held[o.replica]!.set(o.key, i)
            rs[o.replica]!.map.set(o.key, i)
            if (i % 3 === 0) t++ // clocks tie often
          } else if (o.kind === 'flush') {
            releases[o.replica]!()
            store(o.replica)
            releases[o.replica] = rs[o.replica]!.map.hold()
          } else if (o.from !== o.to) {
            rs[o.from]!.map.flush()
            store(o.from)
            Y.applyUpdate(rs[o.to]!.doc, Y.encodeStateAsUpdate(rs[o.from]!.doc))
          }
        }
        for (const [r, release] of releases.entries()) {
          release()
          store(r)
        }
        for (const x of [0, 1, 2])
          for (const y of [0, 1, 2]) if (x !== y) Y.applyUpdate(rs[y]!.doc, Y.encodeStateAsUpdate(rs[x]!.doc))
        for (const [y, got] of observed.entries()) {
          const want = new Set(stored.flatMap((vs, x) => (x === y ? [] : [...vs])))
          expect(got).toEqual(want)
          for (const v of dropped) expect(got.has(v)).toBe(false)
        }
      }),
      { numRuns: 300, seed: 7 },
    )
  })

  it('replicas end as they would without holding, and observers report exactly the changes', () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('write' as const),
        replica: fc.nat(2),
        key: fc.constantFrom('a', 'b', 'c'),
        value: fc.oneof(fc.integer({ min: 0, max: 5 }), fc.constant('del')),
      }),
      fc.record({ kind: fc.constant('flush' as const), replica: fc.nat(2) }),
      fc.record({ kind: fc.constant('send' as const), from: fc.nat(2), to: fc.nat(2) }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 50 }), fc.integer({ min: 0, max: 3 }), (ops, t0) => {
        const run = (hold: boolean) => {
          let t = t0
          const clock = () => t
          const rs = [0, 1, 2].map(() => makeDeferred(clock))
          // Every replica in a batch from the start; 'flush' ends it and opens the next.
          const releases = rs.map((r) => (hold ? r.map.hold() : () => {}))
          // What each replica's observers reported, replayed: it must equal the map at every step.
          const mirrors = rs.map((r) => {
            const m = new Map<string, number | string>()
            r.map.observe((changes) => {
              for (const [k, c] of changes) {
                expect(c.before).toBe(m.get(k))
                if (c.after === undefined) m.delete(k)
                else m.set(k, c.after)
              }
            })
            return m
          })
          // The sender's held writes are stored first (so both runs write the same timestamps); the
          // receiver's stay held while the peer's update applies.
          const send = (from: number, to: number) => {
            rs[from]!.map.flush()
            Y.applyUpdate(rs[to]!.doc, Y.encodeStateAsUpdate(rs[from]!.doc))
          }
          for (const o of ops) {
            if (o.kind === 'write') {
              const r = rs[o.replica]!
              if (o.value === 'del') r.map.delete(o.key)
              else r.map.set(o.key, o.value)
              if (o.replica === 0) t++ // clocks tie often: the tie-break must be deterministic
            } else if (o.kind === 'flush') {
              releases[o.replica]!()
              if (hold) releases[o.replica] = rs[o.replica]!.map.hold()
            } else if (o.from !== o.to) send(o.from, o.to)
            for (const [i, r] of rs.entries()) expect(new Map(r.map.entries())).toEqual(mirrors[i])
          }
          for (const release of releases) release()
          for (const x of [0, 1, 2]) for (const y of [0, 1, 2]) if (x !== y) send(x, y)
          return rs.map((r) => JSON.stringify([...r.map.keys()].sort().map((k) => [k, r.map.get(k)])))
        }
        const held = run(true)
        expect(held[1]).toBe(held[0])
        expect(held[2]).toBe(held[0])
        expect(held).toEqual(run(false))
      }),
      { numRuns: 300, seed: 42 },
    )
  })
})
