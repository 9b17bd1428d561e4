/**
 * Who can see a `Y.Doc`'s transactions, and a hook that runs before anyone
 * looks at the doc: what lets the LWW map defer its local writes (lww-map.ts,
 * "Deferred local writes") without anyone outside seeing a doc older than
 * the map.
 *
 * - `isDocWatched(doc)`: someone listens to the doc's transactions (a
 *   provider's `update` listener, a relay, an `afterTransaction` hook). Such a
 *   listener sees every transaction as it happens, so writes are not deferred
 *   while there is one.
 * - `beforeDocIsRead(doc, store)`: `store` runs before anyone reads the doc's
 *   struct store outside a transaction (`Y.encodeStateAsUpdate`,
 *   `Y.encodeStateVector`, `Y.snapshot`, `Y.applyUpdate`, any `doc.transact`:
 *   Yjs reads `doc.store` first in all of them), gets a shared type
 *   (`doc.getArray`, `doc.getMap`, …), reads it whole (`doc.toJSON`) or adds a
 *   listener (`doc.on`). So a write deferred while nobody could see it is
 *   stored before anyone can.
 * - `beforeArrayIsRead(array, store)`: the same for reads of one `Y.Array`
 *   (`length`, `get`, `toArray`, `slice`, `map`, `forEach`, `toJSON`,
 *   iteration), for whoever got the array before the write.
 *
 * Both work on Yjs' and lib0's own fields (`doc.store`, `doc._observers`,
 * `doc._transaction`, `doc._transactionCleanups`): the instance's `store`
 * becomes an accessor and its `on` and `get` are wrapped. Nothing else of Yjs
 * changes. A test runs every way of reading a doc against it (doc-readers.test.ts).
 */
import type * as Y from 'yjs'

// lib0's Observable keeps listeners by event name; Yjs' doc keeps the running transaction.
type DocInternals = Y.Doc & { _observers: Map<string, Set<unknown>> }

// Events every doc listens to itself (its `whenLoaded`/`whenSynced` promises) or that tell nothing of a transaction.
const quietEvents = new Set(['load', 'sync', 'destroy'])

/** True when someone listens to the doc's events other than load/sync/destroy: it sees each transaction. */
export function isDocWatched(doc: Y.Doc): boolean {
  for (const [name, listeners] of (doc as DocInternals)._observers)
    if (listeners.size > 0 && !quietEvents.has(name)) return true
  return false
}

const hooks = new WeakMap<Y.Doc, (() => void)[]>()

/** Run `store` before anyone reads `doc` (see the module comment); returns a function that removes it. */
export function beforeDocIsRead(doc: Y.Doc, store: () => void): () => void {
  let list = hooks.get(doc)
  if (!list) {
    list = []
    hooks.set(doc, list)
    install(doc, list)
  }
  list.push(store)
  return () => {
    const at = list.indexOf(store)
    if (at !== -1) list.splice(at, 1)
  }
}

function install(doc: Y.Doc, list: (() => void)[]): void {
  let running = false
  // Not inside a transaction (a store made there would join it) and not from a store's own transaction.
  const runHooks = () => {
    if (running || list.length === 0 || doc._transaction !== null) return
    running = true
    // Yjs' `transact` takes `doc._transactionCleanups` before its Transaction reads `doc.store`
    // (and so runs these hooks), and a finished transaction replaces that array: a store made
    // here would leave the outer transaction in the old array, never cleaned up (no observers).
    // So the array stays the same object, emptied as the finished transaction left it.
    const cleanups = doc._transactionCleanups
    try {
      for (const store of list) store()
    } finally {
      running = false
      if (doc._transactionCleanups !== cleanups) {
        cleanups.length = 0
        doc._transactionCleanups = cleanups
      }
    }
  }
  let structs = doc.store
  Object.defineProperty(doc, 'store', {
    configurable: true,
    enumerable: true,
    get() {
      runHooks()
      return structs
    },
    set(value: typeof structs) {
      structs = value
    },
  })
  const on = doc.on
  const get = doc.get
  const toJSON = doc.toJSON
  Object.assign(doc, {
    on(this: Y.Doc, ...args: Parameters<Y.Doc['on']>) {
      runHooks()
      return on.apply(this, args)
    },
    get(this: Y.Doc, ...args: Parameters<Y.Doc['get']>) {
      runHooks()
      return get.apply(this, args)
    },
    toJSON(this: Y.Doc) {
      runHooks()
      return toJSON.call(this)
    },
  })
}

/** Run `store` before anyone reads `array` outside a transaction (see the module comment). */
export function beforeArrayIsRead<T>(array: Y.Array<T>, store: () => void): void {
  const run = () => {
    if (array.doc !== null && array.doc._transaction === null) store()
  }
  const proto = Object.getPrototypeOf(array) as Y.Array<T>
  const length = Object.getOwnPropertyDescriptor(proto, 'length')?.get
  if (length)
    Object.defineProperty(array, 'length', {
      configurable: true,
      get() {
        run()
        return length.call(array)
      },
    })
  const reads = ['get', 'toArray', 'slice', 'map', 'forEach', 'toJSON', Symbol.iterator] as const
  for (const name of reads) {
    const read = proto[name] as (...args: unknown[]) => unknown
    Object.defineProperty(array, name, {
      configurable: true,
      writable: true,
      value(this: Y.Array<T>, ...args: unknown[]) {
        run()
        return read.apply(this, args)
      },
    })
  }
}
