// Learning test for the members of y-indexeddb's IndexeddbPersistence the web app uses beyond its
// public API (src/lib/yfs/internals/y-indexeddb.ts): `_storeUpdate`, `_destroyed` and `db`. No
// browser: y-indexeddb on fake-indexeddb, an in-memory IndexedDB. Each member is checked to do what
// the adapter relies on, so a y-indexeddb release that changes one fails here, by name.
import 'fake-indexeddb/auto'
import { waitFor } from '@yfs/core/testing'
import { describe, expect, it } from 'vitest'
import { IndexeddbPersistence } from 'y-indexeddb'
import * as Y from 'yjs'
import { pauseStoring, resumeStoring, storeWholeState } from '../src/lib/yfs/internals/y-indexeddb.js'

/** What a fresh store of `name` loads. */
async function reload(name: string): Promise<string> {
  const doc = new Y.Doc()
  const store = new IndexeddbPersistence(name, doc)
  await store.whenSynced
  const text = doc.getText('t').toString()
  await store.destroy()
  return text
}

describe('y-indexeddb members the web app relies on', () => {
  it('_storeUpdate: paused, changes are not stored; resumed, they are; db stores a whole state', async () => {
    const doc = new Y.Doc()
    const store = new IndexeddbPersistence('learning-a', doc)
    expect(typeof store._storeUpdate).toBe('function')
    pauseStoring(store, doc)
    await store.whenSynced
    doc.getText('t').insert(0, 'meanwhile ')
    expect(await reload('learning-a')).toBe('')
    expect(store.db).toBeTruthy()
    expect(resumeStoring(store, doc)).toBe(true)
    storeWholeState(store, Y.encodeStateAsUpdate(doc))
    doc.getText('t').insert(10, 'after')
    // Stored once the store's write lands (y-indexeddb writes asynchronously).
    await waitFor(async () => (await reload('learning-a')) === 'meanwhile after', 'the resumed update stored')
    await store.destroy()
  })

  it('_destroyed: set by destroy(), so nothing is put back', async () => {
    const doc = new Y.Doc()
    const store = new IndexeddbPersistence('learning-b', doc)
    pauseStoring(store, doc)
    await store.whenSynced
    await store.destroy()
    expect(store._destroyed).toBe(true)
    expect(resumeStoring(store, doc)).toBe(false)
  })
})
