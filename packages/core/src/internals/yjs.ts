/**
 * The Yjs internals core reads, in one place (pinned: yjs 13.6.33 in
 * core's package.json). Yjs has no public API for these; each is read here
 * and nowhere else in core, and `yjs.test.ts` beside this module fails,
 * naming the field, when a Yjs release changes what it holds.
 *
 * - `AbstractType._start`: the first item of a type's list, deleted items
 *   included, linked by `item.right` (walking it is O(n) without copying,
 *   where `toArray` copies every entry).
 * - `Doc._transaction`: the transaction running now, or null.
 * - `Doc.store.clients`: each client's structs (items and GC ranges) in clock
 *   order, for `Y.findIndexSS` (what a transaction added or deleted).
 * - `YArray._searchMarker`: the array's cache of index → item positions.
 */
import type * as Y from 'yjs'

/** Any shared type (`Y.Array`, `Y.Map`, `Y.Text`, …), whatever its content. */
// biome-ignore lint/suspicious/noExplicitAny: Yjs' own type parameter of AbstractType (its event type)
export type AnyType = Y.AbstractType<any>

/** The first item of `type`'s list (deleted ones included); walk on with `item.right`. */
export function firstItem(type: AnyType): Y.Item | null {
  return type._start
}

/** The transaction running on `doc` now, or null outside one. */
export function runningTransaction(doc: Y.Doc): Y.Transaction | null {
  return doc._transaction
}

/** Every client's structs on `doc`, in clock order (for `Y.findIndexSS`). */
export function structsByClient(doc: Y.Doc): Map<number, (Y.Item | Y.GC)[]> {
  return doc.store.clients as Map<number, (Y.Item | Y.GC)[]>
}

/** Forget `array`'s cached index positions (they are a cache: Yjs rebuilds them on the next read). */
export function dropSearchMarkers<T>(array: Y.Array<T>): void {
  if (array._searchMarker) array._searchMarker.length = 0
}

/** True while `doc` holds no structs at all (nothing loaded, received or written yet). */
export function docIsEmpty(doc: Y.Doc): boolean {
  return structsByClient(doc).size === 0
}
