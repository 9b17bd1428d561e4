/** Folding a workspace's update rows into one stored state per document (both stores' snapshots). */
import * as Y from 'yjs'
import type { StoredDocument } from './document-store.js'
import { repairLog } from './salvage.js'
import type { UpdateMerger } from './update-merger.js'

/** Merging goes on for at most this long before it lets the event loop turn. */
const SLICE_MS = 10

/**
 * Rows ordered by doc, then id, as one merged update per doc. A doc whose rows do not merge (bytes
 * from before the server's checks, see salvage.ts) gets the state a salvage would leave: a backup
 * never fails on one bad row, and the store is not changed by it.
 *
 * A backup of a large workspace merges tens of thousands of logs (20,000 files of two rows each:
 * 0.7 s here), which in one go stalled every client of the server. So the merging lets the event
 * loop turn every `SLICE_MS`, and large logs merge on `merger`'s thread.
 */
export async function mergeByDoc(
  rows: readonly { doc: string; data: Uint8Array }[],
  merger?: UpdateMerger,
): Promise<StoredDocument[]> {
  const byDoc = new Map<string, Uint8Array[]>()
  for (const row of rows) {
    const list = byDoc.get(row.doc)
    if (list) list.push(row.data)
    else byDoc.set(row.doc, [row.data])
  }
  const documents: StoredDocument[] = []
  let slice = performance.now()
  for (const [name, updates] of byDoc) {
    if (performance.now() - slice > SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve))
      slice = performance.now()
    }
    if (updates.length === 1) {
      documents.push({ name, state: new Uint8Array(updates[0]!) })
      continue
    }
    let state: Uint8Array | undefined
    try {
      state = merger ? await merger.merge(updates) : Y.mergeUpdates(updates)
    } catch {
      state = repairLog(updates).state
    }
    if (state) documents.push({ name, state })
  }
  return documents
}
