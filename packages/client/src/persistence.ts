/**
 * The local-persistence hook of `connectWorkspace`: a store that keeps a
 * copy of each document on this device (IndexedDB in a browser through
 * y-indexeddb, anything else elsewhere), so a workspace opens and edits
 * without the server and merges when it comes back.
 *
 * The client knows nothing about the storage itself: the caller passes a
 * function that attaches a store to a document by name and reports when the
 * stored state has been applied to it. The store must keep writing the
 * document's later updates until `destroy()`.
 */
import type * as Y from 'yjs'

/** One document's attachment to a local store. */
export interface DocPersistence {
  /** Resolves once the stored state has been applied to the document (at once when nothing was stored). */
  readonly whenLoaded: Promise<void>
  /** Stop storing the document's updates (what was stored stays). */
  destroy(): void | Promise<void>
  /**
   * Optional small key–value entries kept beside the document (y-indexeddb's `get`/`set`). On the
   * main doc's store the client keeps the ids of content docs with unacknowledged changes there,
   * so a later connection sends offline edits of files nobody re-opens (unacknowledged-docs.ts).
   */
  get?(key: string): Promise<unknown>
  set?(key: string, value: unknown): Promise<unknown>
}

/**
 * Attach a local store to `doc`; `name` is the document's name on the server
 * (`<workspace>` or `<workspace>/<fileId>`), unique within one server.
 *
 * @example
 * import { IndexeddbPersistence } from 'y-indexeddb'
 * const persist: PersistDoc = (name, doc) => {
 *   const p = new IndexeddbPersistence(`yfs:${location.host}:${name}`, doc)
 *   return {
 *     whenLoaded: p.whenSynced.then(() => undefined),
 *     destroy: () => p.destroy(),
 *     get: (key) => p.get(key),
 *     set: (key, value) => p.set(key, value),
 *   }
 * }
 */
export type PersistDoc = (name: string, doc: Y.Doc) => DocPersistence
