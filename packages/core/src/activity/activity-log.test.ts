/**
 * The activity log on the main doc: filters and order, retention by count
 * and age (per workspace, synced), and convergence of concurrent appends and
 * trims across replicas (fast-check, fixed seed).
 */
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import * as Y from 'yjs'
import { type ActivityEntry, attachActivityLog, MAX_QUEUED } from './activity-log.js'

const entry = (id: string, time: number, session = 's', paths: string[] = []): ActivityEntry => ({
  id,
  time,
  session,
  who: 'agent',
  tool: 'write_file',
  args: {},
  status: 'ok',
  durationMs: 1,
  files: paths.map((path) => ({ id: `f-${path}`, type: 'file', path })),
})

const sync = (a: Y.Doc, b: Y.Doc) => {
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)))
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)))
}

describe('activity log', () => {
  it('lists newest first, filtered by session, path prefix, time and limit', () => {
    const log = attachActivityLog(new Y.Doc(), () => 1_000)
    log.append([entry('a', 1, 's1', ['/src/a.ts']), entry('b', 3, 's2', ['/docs/x.md']), entry('c', 2, 's1')])
    expect(log.list().map((e) => e.id)).toEqual(['b', 'c', 'a'])
    expect(log.list({ session: 's1' }).map((e) => e.id)).toEqual(['c', 'a'])
    expect(log.list({ pathPrefix: '/src' }).map((e) => e.id)).toEqual(['a'])
    expect(log.list({ pathPrefix: '/sr' }).map((e) => e.id)).toEqual([])
    expect(log.list({ since: 2 }).map((e) => e.id)).toEqual(['b', 'c'])
    expect(log.list({ limit: 1 }).map((e) => e.id)).toEqual(['b'])
    expect(log.get('c')?.time).toBe(2)
  })

  it('keeps at most maxEntries and nothing older than maxAgeMs, as the workspace sets them', () => {
    let now = 10_000
    const doc = new Y.Doc()
    const log = attachActivityLog(doc, () => now)
    log.setRetention({ maxEntries: 3, maxAgeMs: 5_000 })
    log.append([1, 2, 3, 4, 5].map((i) => entry(`e${i}`, 9_000 + i)))
    expect(log.list().map((e) => e.id)).toEqual(['e5', 'e4', 'e3'])
    // Five seconds after e4: e4 is too old, and the count drops e3.
    now = 14_005
    log.append([entry('e6', 14_005)])
    expect(log.list().map((e) => e.id)).toEqual(['e6', 'e5'])
    // The setting is synced: another replica trims by it too.
    const other = new Y.Doc()
    sync(doc, other)
    expect(attachActivityLog(other).retention()).toEqual({ maxEntries: 3, maxAgeMs: 5_000 })
  })

  it('lists exactly the bound while the stored array drops entries in batches', () => {
    const doc = new Y.Doc()
    const log = attachActivityLog(doc, () => 1_000)
    log.setRetention({ maxEntries: 128 })
    // 128 / 64 = 2 entries of slack: the array drops the extra ones only when it holds 131.
    for (let i = 0; i < 130; i++) log.append([entry(`e${i}`, 1_000)])
    expect(log.size).toBe(130)
    expect(log.list().length).toBe(128)
    expect(log.list().at(-1)?.id).toBe('e2')
    expect(log.get('e1')).toBeUndefined()
    log.append([entry('e130', 1_000)])
    expect(log.size).toBe(128)
    expect(log.list().map((e) => e.id)).toEqual(Array.from({ length: 128 }, (_, i) => `e${130 - i}`))
  })

  it('converges across replicas under concurrent appends and trims', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('append' as const), replica: fc.nat(2), time: fc.nat(50) }),
      fc.record({ kind: fc.constant('sync' as const), a: fc.nat(2), b: fc.nat(2) }),
      fc.record({
        kind: fc.constant('limit' as const),
        replica: fc.nat(2),
        max: fc.integer({ min: 1, max: 6 }),
      }),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const docs = [new Y.Doc(), new Y.Doc(), new Y.Doc()]
        const logs = docs.map((d) => attachActivityLog(d, () => 100))
        let n = 0
        for (const o of ops) {
          if (o.kind === 'append') logs[o.replica]!.append([entry(`e${n++}`, o.time)])
          else if (o.kind === 'limit') logs[o.replica]!.setRetention({ maxEntries: o.max })
          else sync(docs[o.a]!, docs[o.b]!)
        }
        sync(docs[0]!, docs[1]!)
        sync(docs[1]!, docs[2]!)
        sync(docs[0]!, docs[1]!)
        const lists = logs.map((l) => l.list().map((e) => e.id))
        expect(lists[1]).toEqual(lists[0])
        expect(lists[2]).toEqual(lists[0])
      }),
      { seed: 23, numRuns: 200 },
    )
  })

  describe("enqueue: appends off the caller's path", () => {
    const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
    // Real times: these logs use the default clock, whose retention drops entries older than 30 days.
    const t0 = Date.now()

    it('appends the entries of one turn in one transaction once the turn ends', async () => {
      const doc = new Y.Doc()
      const log = attachActivityLog(doc)
      const updates: Uint8Array[] = []
      doc.on('update', (u: Uint8Array) => updates.push(u))
      let built = 0
      for (const id of ['a', 'b', 'c'])
        log.enqueue(() => {
          built++
          return entry(id, t0 + 1)
        })
      // Nothing is built or written while the caller's turn runs.
      expect(built).toBe(0)
      expect(doc.getArray('activity').length).toBe(0)
      await turn()
      expect(built).toBe(3)
      expect(updates).toHaveLength(1)
      expect(
        doc
          .getArray('activity')
          .toArray()
          .map((e) => (e as ActivityEntry).id),
      ).toEqual(['a', 'b', 'c'])
    })

    it('reads through any log of the doc see queued entries at once', () => {
      const doc = new Y.Doc()
      attachActivityLog(doc).enqueue(() => entry('a', t0 + 5, 's1'))
      // Another caller's log of the same doc is the same queue: reading flushes it.
      const reader = attachActivityLog(doc)
      expect(reader.size).toBe(1)
      attachActivityLog(doc).enqueue(() => entry('b', t0 + 6, 's1'))
      expect(reader.list({ session: 's1' }).map((e) => e.id)).toEqual(['b', 'a'])
      attachActivityLog(doc).enqueue(() => entry('c', t0 + 7))
      expect(reader.get('c')?.time).toBe(t0 + 7)
    })

    it('appends at once when MAX_QUEUED entries wait, and when the doc is destroyed', () => {
      const doc = new Y.Doc()
      const array = doc.getArray('activity')
      const log = attachActivityLog(doc)
      for (let i = 0; i < MAX_QUEUED - 1; i++) log.enqueue(() => entry(`e${i}`, t0 + i))
      expect(array.length).toBe(0)
      log.enqueue(() => entry('last', t0 + MAX_QUEUED))
      expect(array.length).toBe(MAX_QUEUED)
      log.enqueue(() => entry('late', t0 + MAX_QUEUED + 1))
      let seen = -1
      doc.on('destroy', () => {
        seen = array.length
      })
      doc.destroy()
      expect(seen).toBe(MAX_QUEUED + 1)
    })

    it('keeps order across origins: one transaction per run of equal origin', async () => {
      const doc = new Y.Doc()
      const log = attachActivityLog(doc)
      const origins: unknown[] = []
      doc.on('afterTransaction', (tr: Y.Transaction) => origins.push(tr.origin))
      log.enqueue(() => entry('a', t0 + 1), 'x')
      log.enqueue(() => entry('b', t0 + 1), 'x')
      log.enqueue(() => entry('c', t0 + 1), 'y')
      log.enqueue(() => entry('d', t0 + 1), 'x')
      await turn()
      expect(origins).toEqual(['x', 'y', 'x'])
      expect(
        doc
          .getArray('activity')
          .toArray()
          .map((e) => (e as ActivityEntry).id),
      ).toEqual(['a', 'b', 'c', 'd'])
    })

    it('a listener that throws during the deferred append is reported, not thrown at the process', async () => {
      const doc = new Y.Doc()
      const log = attachActivityLog(doc)
      doc.on('update', () => {
        throw new Error('store closed')
      })
      const errors: unknown[][] = []
      const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
        errors.push(args)
      })
      try {
        log.enqueue(() => entry('a', t0 + 1))
        await turn()
      } finally {
        spy.mockRestore()
      }
      expect(errors).toHaveLength(1)
      expect(String(errors[0]![0])).toContain('activity entries could not be appended')
      expect(String(errors[0]![1])).toContain('store closed')
    })
  })
})
