/** Folding a workspace's update rows into one stored state per document (both stores' snapshots). */
import * as Y from 'yjs'
import type { StoredDocument } from './document-store.js'
import { repairLog } from './salvage.js'

/**
 * Rows ordered by doc, then id, as one merged update per doc. A doc whose rows do not merge (bytes
 * from before the server's checks, see salvage.ts) gets the state a salvage would leave: a backup
 * never fails on one bad row, and the store is not changed by it.
 */
export function mergeByDoc(rows: readonly { doc: string; data: Uint8Array }[]): StoredDocument[] {
  const byDoc = new Map<string, Uint8Array[]>()
  for (const row of rows) {
    const list = byDoc.get(row.doc)
    if (list) list.push(row.data)
    else byDoc.set(row.doc, [row.data])
  }
  const documents: StoredDocument[] = []
  for (const [name, updates] of byDoc) {
    if (updates.length === 1) {
      documents.push({ name, state: new Uint8Array(updates[0]!) })
      continue
    }
    let state: Uint8Array | undefined
    try {
      state = Y.mergeUpdates(updates)
    } catch {
      state = repairLog(updates).state
    }
    if (state) documents.push({ name, state })
  }
  return documents
}
