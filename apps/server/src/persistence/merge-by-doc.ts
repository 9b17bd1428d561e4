/** Folding a workspace's update rows into one stored state per document (both stores' snapshots). */
import * as Y from 'yjs'
import type { StoredDocument } from './document-store.js'

/** Rows ordered by doc, then id, as one merged update per doc. */
export function mergeByDoc(rows: readonly { doc: string; data: Uint8Array }[]): StoredDocument[] {
  const byDoc = new Map<string, Uint8Array[]>()
  for (const row of rows) {
    const list = byDoc.get(row.doc)
    if (list) list.push(row.data)
    else byDoc.set(row.doc, [row.data])
  }
  return [...byDoc].map(([name, updates]) => ({
    name,
    state: updates.length === 1 ? new Uint8Array(updates[0]!) : Y.mergeUpdates(updates),
  }))
}
