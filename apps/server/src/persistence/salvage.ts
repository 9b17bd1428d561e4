/**
 * Salvaging a document whose stored log no longer loads.
 *
 * Every update reaching the log is checked first (protocol/sync-message.ts), but a log can hold
 * bytes written before a check existed (an empty deletion range, refused since 724b6cd, let a
 * write token store an update that `Y.mergeUpdates` takes and `Y.applyUpdate` throws on), or
 * that a future Yjs reads differently. One such row made its whole document unloadable: every
 * client of the workspace (for its main doc) was refused.
 *
 * `repairLog` applies each row on its own to a scratch doc. What Yjs integrates before it
 * throws stays (a compacted row that folded a bad one in keeps its items; only what follows
 * the bad part is lost); a row that throws is named bad, with Yjs's message. The scratch doc's
 * state then replaces the log and the bad rows are kept aside, never loaded again
 * (`DocumentStore.salvage`: the store's quarantine).
 */
import * as Y from 'yjs'
import { isEmptyUpdate } from '../protocol/sync-message.js'

export interface LogRepair {
  /** The log's state as one update; `undefined` when nothing of it could be read. */
  state: Uint8Array | undefined
  /** Rows (by index in the log) that did not apply, and why. */
  bad: { index: number; reason: string }[]
}

/** One update for `rows` from what of each applies, and the rows that did not (see the module comment). */
export function repairLog(rows: readonly Uint8Array[]): LogRepair {
  const bad: LogRepair['bad'] = []
  // No garbage collection: a content doc's versions refer to deleted items by their snapshots.
  const doc = new Y.Doc({ gc: false })
  try {
    rows.forEach((row, index) => {
      try {
        Y.applyUpdate(doc, row)
      } catch (error) {
        bad.push({ index, reason: error instanceof Error ? error.message : String(error) })
      }
    })
    const state = Y.encodeStateAsUpdate(doc)
    if (isEmptyUpdate(state)) return { state: undefined, bad }
    // What replaces the log must load: checked on a fresh doc before any row is touched.
    const check = new Y.Doc({ gc: false })
    try {
      Y.applyUpdate(check, state)
    } finally {
      check.destroy()
    }
    return { state, bad }
  } finally {
    doc.destroy()
  }
}
