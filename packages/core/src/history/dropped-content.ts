/**
 * Is content that a snapshot shows missing from this replica?
 *
 * A replica that took a compacted state (`compactContentState`) or synced
 * with a `gc: true` peer holds some deleted content only as GC ranges or
 * `ContentDeleted` items. A version recorded concurrently elsewhere, by a
 * replica that had not yet seen those deletions, still shows that content:
 * rebuilding it here would silently leave it out. Readers check first and
 * fail instead (`ContentDroppedError`).
 */
import * as Y from 'yjs'
import { type AnyType, firstItem, structsByClient } from '../internals/yjs.js'
import { coversRange } from './delete-sets.js'

/** A snapshot shows content this replica no longer holds (dropped by compaction or a `gc: true` peer). */
export class ContentDroppedError extends Error {
  constructor() {
    super('content this version shows was dropped from this replica (compacted) and cannot be rebuilt here')
    this.name = 'ContentDroppedError'
  }
}

// True when some clock of [clock, clock + len) is below the snapshot's state and not deleted in it.
function visibleRange(snapshot: Y.Snapshot, client: number, clock: number, len: number): boolean {
  const end = Math.min(clock + len, snapshot.sv.get(client) ?? 0)
  return end > clock && !coversRange(snapshot.ds, client, clock, end - clock)
}

const dropped = (s: Y.AbstractStruct) =>
  s instanceof Y.GC || (s as Y.Item).content instanceof Y.ContentDeleted

/**
 * True when `snapshot` shows content that is gone from `doc`. With `type`, only its own
 * children are checked (a plain Y.Text: one walk of its list); otherwise every struct of the doc.
 */
export function snapshotShowsDroppedContent(doc: Y.Doc, snapshot: Y.Snapshot, type?: AnyType): boolean {
  if (type) {
    for (let n = firstItem(type); n !== null; n = n.right)
      if (dropped(n) && visibleRange(snapshot, n.id.client, n.id.clock, n.length)) return true
    return false
  }
  for (const [client, structs] of structsByClient(doc))
    for (const s of structs)
      if (dropped(s) && visibleRange(snapshot, client, s.id.clock, s.length)) return true
  return false
}
