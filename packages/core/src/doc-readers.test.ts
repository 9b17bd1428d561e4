import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { beforeDocIsRead, isDocWatched } from './doc-readers.js'

/** A doc whose hook stores one pending value (as a deferred write would) into `Y.Map('m')`. */
function docWithPending() {
  const doc = new Y.Doc()
  const map = doc.getMap<number>('m')
  let pending: number | undefined
  let runs = 0
  beforeDocIsRead(doc, () => {
    runs++
    if (pending === undefined) return
    const value = pending
    pending = undefined
    doc.transact(() => map.set('pending', value), 'hook')
  })
  return {
    doc,
    map,
    defer: (value: number) => {
      pending = value
    },
    runs: () => runs,
  }
}

describe('beforeDocIsRead', () => {
  const reads: [string, (doc: Y.Doc) => unknown][] = [
    ['Y.encodeStateAsUpdate', (doc) => Y.encodeStateAsUpdate(doc)],
    ['Y.encodeStateVector', (doc) => Y.encodeStateVector(doc)],
    ['Y.snapshot', (doc) => Y.snapshot(doc)],
    ['Y.applyUpdate', (doc) => Y.applyUpdate(doc, Y.encodeStateAsUpdate(new Y.Doc()))],
    ['doc.transact', (doc) => doc.transact(() => doc.getMap('other').set('x', 1))],
    ['doc.getArray', (doc) => doc.getArray('a')],
    ['doc.getMap', (doc) => doc.getMap('m')],
    ['doc.on', (doc) => doc.on('update', () => undefined)],
    ['doc.once', (doc) => doc.once('afterTransaction', () => undefined)],
  ]
  for (const [name, read] of reads)
    it(`stores before ${name}, and the reader sees what was stored`, () => {
      const { doc, map, defer } = docWithPending()
      defer(7)
      read(doc)
      expect(map.get('pending')).toBe(7)
      const copy = new Y.Doc()
      Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc))
      expect(copy.getMap('m').get('pending')).toBe(7)
    })

  it('a transaction started while the hook stores still runs its observers and sends its update', () => {
    const { doc, map, defer } = docWithPending()
    const other = doc.getMap<number>('other')
    const observed: string[] = []
    map.observe(() => observed.push('m'))
    other.observe(() => observed.push('other'))
    defer(1)
    // The transaction's own start reads the doc: the hook's transaction runs inside Yjs' transact.
    doc.transact(() => other.set('x', 1), 'mine')
    expect(observed).toEqual(['m', 'other'])
    // Later transactions are cleaned up as usual (Yjs' cleanup list was kept intact).
    doc.transact(() => other.set('x', 2))
    expect(observed).toEqual(['m', 'other', 'other'])
    const peer = new Y.Doc()
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc))
    expect(peer.getMap('other').get('x')).toBe(2)
  })

  it('does not run inside a running transaction, nor again from its own transaction', () => {
    const { doc, map, defer, runs } = docWithPending()
    doc.transact(() => {
      const before = runs()
      defer(3)
      Y.encodeStateVector(doc) // inside: would join this transaction
      expect(runs()).toBe(before)
      expect(map.get('pending')).toBeUndefined()
    })
    // Nothing pending got lost: the next read stores it.
    Y.encodeStateVector(doc)
    expect(map.get('pending')).toBe(3)
  })

  it('removing the hook stops it', () => {
    const doc = new Y.Doc()
    let runs = 0
    const remove = beforeDocIsRead(doc, () => runs++)
    Y.encodeStateVector(doc)
    const seen = runs
    remove()
    Y.encodeStateVector(doc)
    expect(runs).toBe(seen)
  })
})

describe('isDocWatched', () => {
  it('is false for a new doc (its own load/sync promises) and true while a transaction listener is attached', () => {
    const doc = new Y.Doc()
    expect(isDocWatched(doc)).toBe(false)
    const onUpdate = () => undefined
    doc.on('update', onUpdate)
    expect(isDocWatched(doc)).toBe(true)
    doc.off('update', onUpdate)
    expect(isDocWatched(doc)).toBe(false)
    const onAfter = () => undefined
    doc.on('afterTransaction', onAfter)
    expect(isDocWatched(doc)).toBe(true)
  })
})
