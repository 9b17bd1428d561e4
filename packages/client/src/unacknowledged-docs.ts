/**
 * Content docs with local changes the server has not acknowledged, remembered on this device.
 *
 * With a local store, an edit made offline lives in that content doc's stored copy. If the
 * connection closes before the server is back (a browser tab closed offline), nothing would
 * send it later: a content doc is opened only when its file is read. So the client keeps the
 * ids of such docs in the main doc's store (a small key–value entry, `DocPersistence.get/set`,
 * which y-indexeddb offers), and the next connection re-opens each one until the server has
 * acknowledged it (see connect-workspace.ts).
 *
 * Writes to the store are few: an id is added when its doc first has an unacknowledged change,
 * and removed a while after the server acknowledged everything (typing online adds it once and
 * removes it once, not per keystroke).
 */
import type { HocuspocusProvider } from '@hocuspocus/provider'
import type * as Y from 'yjs'
import type { DocPersistence } from './persistence.js'

/** The key under which the ids are kept in the main doc's store. */
export const UNACKNOWLEDGED_DOCS_KEY = 'yfs.unacknowledged-docs'

/** How long an acknowledged doc stays listed, in case the next change follows at once (ms). */
const FORGET_AFTER_MS = 1_000

export interface UnacknowledgedDocs {
  /** Ids listed when the connection opened (docs to re-open), and added since. */
  ids(): string[]
  /** True while `id` is listed (an acknowledged doc stays listed for a moment). */
  has(id: string): boolean
  /** The doc has a change the server has not acknowledged (kept in the store at once). */
  add(id: string): void
  /** The server acknowledged every change of the doc: forget it after a short while. */
  acknowledged(id: string): void
  /** Forget the doc now (a re-opened doc the server acknowledged). */
  delete(id: string): void
  /** Resolves once every change so far is in the store. */
  saved(): Promise<void>
  /** Stop timers (pending removals are written now). */
  close(): Promise<void>
}

/** Read the list from `store` (empty when it has none, or cannot keep one). */
export async function loadUnacknowledgedDocs(store: DocPersistence | undefined): Promise<UnacknowledgedDocs> {
  const get = store?.get?.bind(store)
  const set = store?.set?.bind(store)
  const stored = get ? await get(UNACKNOWLEDGED_DOCS_KEY).catch(() => undefined) : undefined
  const ids = new Set<string>(
    Array.isArray(stored) ? stored.filter((x): x is string => typeof x === 'string') : [],
  )
  const forgetting = new Map<string, ReturnType<typeof setTimeout>>()
  let writing: Promise<void> = Promise.resolve()
  // Writes are queued so they land in order; a failed write is retried by the next one.
  const save = () => {
    if (!set) return
    const snapshot = [...ids]
    writing = writing
      .then(() => set(UNACKNOWLEDGED_DOCS_KEY, snapshot))
      .then(
        () => undefined,
        () => undefined,
      )
  }
  const remove = (id: string) => {
    const timer = forgetting.get(id)
    if (timer !== undefined) clearTimeout(timer)
    forgetting.delete(id)
    if (ids.delete(id)) save()
  }
  return {
    ids: () => [...ids],
    has: (id) => ids.has(id),
    add(id) {
      const timer = forgetting.get(id)
      if (timer !== undefined) {
        clearTimeout(timer)
        forgetting.delete(id)
      }
      if (ids.has(id)) return
      ids.add(id)
      save()
    },
    acknowledged(id) {
      if (!ids.has(id) || forgetting.has(id)) return
      const timer = setTimeout(() => remove(id), FORGET_AFTER_MS)
      // Node: a pending removal must not keep the process alive.
      ;(timer as { unref?: () => void }).unref?.()
      forgetting.set(id, timer)
    },
    delete: remove,
    saved: () => writing,
    async close() {
      for (const id of [...forgetting.keys()]) remove(id)
      await writing
    },
  }
}

/**
 * List `doc` in `list` on its first local change (the store keeps the change; the list makes a
 * later connection send it), and let it go once the server has acknowledged everything. Watching
 * starts after the stored copy has loaded, so the load itself is not a local change. Returns a
 * function that stops watching.
 */
export function watchLocalChanges(
  list: UnacknowledgedDocs,
  doc: Y.Doc,
  provider: HocuspocusProvider,
  store: DocPersistence,
): () => void {
  let stopped = false
  const onUpdate = (_update: Uint8Array, origin: unknown) => {
    if (origin !== provider) list.add(doc.guid)
  }
  const onAcknowledged = () => {
    if (provider.unsyncedChanges === 0 && provider.isSynced) list.acknowledged(doc.guid)
  }
  const start = () => {
    if (stopped) return
    doc.on('update', onUpdate)
    provider.on('unsyncedChanges', onAcknowledged)
  }
  store.whenLoaded.then(start, start)
  return () => {
    stopped = true
    doc.off('update', onUpdate)
    provider.off('unsyncedChanges', onAcknowledged)
  }
}
