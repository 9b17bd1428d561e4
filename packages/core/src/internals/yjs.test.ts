/**
 * Learning test of the Yjs internals core reads (internals/yjs.ts): each
 * case names the field it relies on and fails when a Yjs release changes
 * what that field holds. Pinned: yjs 13.6.33.
 */
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { docIsEmpty, dropSearchMarkers, firstItem, runningTransaction, structsByClient } from './yjs.js'

describe('Yjs internals (pinned yjs 13.6.33)', () => {
  it('AbstractType._start: the first item of the list, deleted items included, linked by right', () => {
    const doc = new Y.Doc()
    const array = doc.getArray<string>('a')
    expect(firstItem(array)).toBeNull()
    array.insert(0, ['a', 'b'])
    array.insert(2, ['c'])
    array.delete(0, 1)
    const walked: { values: unknown[]; deleted: boolean }[] = []
    for (let n = firstItem(array); n !== null; n = n.right)
      walked.push({ values: n.content.getContent(), deleted: n.deleted })
    // The deleted 'a' is still in the list (walks must skip it); the live ones read as toArray does.
    expect(walked.flatMap((w) => (w.deleted ? [] : w.values))).toEqual(array.toArray())
    expect(walked.some((w) => w.deleted)).toBe(true)
    expect(firstItem(doc.getText('t'))).toBeNull()
  })

  it('Doc._transaction: the running transaction inside transact, null outside', () => {
    const doc = new Y.Doc()
    expect(runningTransaction(doc)).toBeNull()
    let inside: Y.Transaction | null = null
    let given: Y.Transaction | undefined
    doc.transact((tr) => {
      given = tr
      inside = runningTransaction(doc)
      doc.getMap('m').set('k', 1)
    }, 'origin')
    expect(inside).toBe(given)
    expect(runningTransaction(doc)).toBeNull()
    // Observers run after it is closed: there, the field is null again (code that asks "is a
    // transaction running?" from an observer is told no, and a transact there starts a new one).
    let inObserver: Y.Transaction | null | undefined
    doc.getMap('m').observe(() => {
      inObserver = runningTransaction(doc)
    })
    doc.getMap('m').set('k', 2)
    expect(inObserver).toBeNull()
  })

  it('Doc.store.clients: each client’s structs in clock order, findIndexSS finds a clock', () => {
    const doc = new Y.Doc()
    expect(structsByClient(doc).size).toBe(0)
    expect(docIsEmpty(doc)).toBe(true)
    const text = doc.getText('t')
    text.insert(0, 'hello')
    expect(docIsEmpty(doc)).toBe(false)
    doc.getArray('a').push([1])
    text.insert(5, ' world')
    const structs = structsByClient(doc).get(doc.clientID)!
    expect(structs.length).toBeGreaterThan(0)
    let clock = 0
    for (const s of structs) {
      expect(s.id.client).toBe(doc.clientID)
      expect(s.id.clock).toBe(clock)
      clock += s.length
    }
    // The last struct ends at the client's state.
    expect(clock).toBe(Y.getState(doc.store, doc.clientID))
    expect(structs[Y.findIndexSS(structs, 5)]!.id.clock).toBeLessThanOrEqual(5)
  })

  it('YArray._searchMarker: a cache of positions; dropping it keeps every read right', () => {
    const doc = new Y.Doc()
    const array = doc.getArray<number>('a')
    // Separate items (one per transaction from different positions), so markers are worth keeping.
    for (let i = 0; i < 200; i++) array.insert(i % 2 ? array.length : 0, [i])
    const before = array.toArray()
    array.get(150)
    expect((array._searchMarker ?? []).length).toBeGreaterThan(0)
    dropSearchMarkers(array)
    expect(array._searchMarker).toEqual([])
    for (const i of [0, 77, 150, 199]) expect(array.get(i)).toBe(before[i])
    array.insert(100, [-1])
    expect(array.get(100)).toBe(-1)
  })
})
