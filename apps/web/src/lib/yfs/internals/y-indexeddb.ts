/**
 * The one place the web app reaches past y-indexeddb's public API (9.0.12,
 * pinned), for the warm-start trick in connection.ts (attach the store's
 * `update` listener only once the stored state is in, so loading it does not
 * make Yjs re-encode every transaction). y-indexeddb has no option for that,
 * so three members of `IndexeddbPersistence` are used:
 *
 * - `_storeUpdate`: its `update` listener on the document (taken off at once,
 *   put back once loaded);
 * - `_destroyed`: whether `destroy()` ran meanwhile (then nothing is put back);
 * - `db`: its database, to store the document's whole state when a change
 *   arrived while the listener was off.
 *
 * The learning test (`apps/web/test/y-indexeddb-internals.test.ts`, on fake-indexeddb)
 * fails naming the member when a release changes one.
 */
import type { IndexeddbPersistence } from 'y-indexeddb'
import type * as Y from 'yjs'

/** Stop `store` writing `doc`'s updates to IndexedDB. */
export function pauseStoring(store: IndexeddbPersistence, doc: Y.Doc): void {
  doc.off('update', store._storeUpdate)
}

/** Write `doc`'s updates to IndexedDB again (after `pauseStoring`); false when the store was destroyed meanwhile. */
export function resumeStoring(store: IndexeddbPersistence, doc: Y.Doc): boolean {
  if (store._destroyed) return false
  doc.on('update', store._storeUpdate)
  return true
}

/** Store `update` (a document's whole state) as one more entry of `store`'s update log. */
export function storeWholeState(store: IndexeddbPersistence, update: Uint8Array): void {
  store.db?.transaction(['updates'], 'readwrite').objectStore('updates').add(update)
}
