import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { attachLwwMap, type LwwEntry } from './lww-map.js'

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
