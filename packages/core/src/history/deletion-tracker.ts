/**
 * Deletions made in a content doc since this replica recorded its last
 * version, so the next version's delta (deletions since its base) costs what
 * changed, not what the doc ever deleted.
 *
 * Without it a version's delta is `Y.snapshot(doc).ds` (a walk over every
 * struct of the doc) minus the base version's full delete set (its delta
 * chain merged): both grow with every overwrite of a `gc: false` doc, so
 * recording a version slowed down with the file's history.
 *
 * After `track(doc, id, extra)` (called as version `id` is recorded), every
 * transaction's newly deleted items are collected from `tr.deleteSet`. The
 * full delete set of version `id` is the doc's delete set when it was
 * recorded plus `extra` (deletions its base chain had that this replica had
 * not seen yet; almost always empty), so the next delta is exactly the
 * deletions collected since, minus `extra`. A remote transaction that brings
 * structs that are deleted from birth (`GC` ranges of a compacted peer state,
 * which no `tr.deleteSet` lists) stops the tracking: the next version is then
 * computed the full way, which starts it again.
 */
import * as Y from 'yjs'
import { runningTransaction, structsByClient } from '../internals/yjs.js'
import { appendDeleteSet, type DeleteSet, subtractDeleteSet } from './delete-sets.js'

interface Tracking {
  /** The version recorded here whose full delete set is "the doc's at recording" ∪ `extra`. */
  versionId: string
  extra: DeleteSet
  /** Newly deleted items since (unsorted). */
  since: DeleteSet
  /** The recording transaction, and the deletions it had made when the version was taken. */
  recordedIn: Y.Transaction | undefined
  before: DeleteSet | undefined
}

const tracked = new WeakMap<Y.Doc, Tracking | null>()

function onAfterTransaction(tr: Y.Transaction, doc: Y.Doc): void {
  const t = tracked.get(doc)
  if (!t) return
  if (!tr.local && bringsDeadStructs(tr, doc)) {
    tracked.set(doc, null)
    return
  }
  if (tr === t.recordedIn) {
    // Deletions this transaction made before the version was taken are in it already.
    appendDeleteSet(t.since, subtractDeleteSet(tr.deleteSet, Y.mergeDeleteSets([t.before!])))
    t.recordedIn = undefined
    t.before = undefined
  } else appendDeleteSet(t.since, tr.deleteSet)
}

// Structs that arrive deleted without an entry in the transaction's delete set (GC ranges).
function bringsDeadStructs(tr: Y.Transaction, doc: Y.Doc): boolean {
  for (const [client, after] of tr.afterState) {
    const before = tr.beforeState.get(client) ?? 0
    if (after <= before) continue
    const structs = structsByClient(doc).get(client)
    if (!structs) continue
    for (let i = Y.findIndexSS(structs, before); i < structs.length; i++)
      if (!(structs[i] instanceof Y.Item)) return true
  }
  return false
}

/**
 * Start collecting deletions after version `versionId`, being recorded now (inside
 * the recording transaction). `extra`: deletions in its full delete set that the doc lacks.
 */
export function track(doc: Y.Doc, versionId: string, extra: DeleteSet): void {
  if (!tracked.has(doc)) doc.on('afterTransaction', onAfterTransaction)
  const tr = runningTransaction(doc)
  const before = Y.createDeleteSet()
  if (tr) appendDeleteSet(before, tr.deleteSet)
  tracked.set(doc, {
    versionId,
    extra,
    since: Y.createDeleteSet(),
    recordedIn: tr ?? undefined,
    before: tr ? before : undefined,
  })
}

/**
 * Deletions since version `versionId` (sorted and merged, minus what that version already
 * holds), including those of the running transaction; `undefined` when not tracked since it.
 */
export function deletionsSince(
  doc: Y.Doc,
  versionId: string,
): { deletions: DeleteSet; extra: DeleteSet } | undefined {
  const t = tracked.get(doc)
  if (!t || t.versionId !== versionId) return undefined
  const parts = [t.since]
  const tr = runningTransaction(doc)
  if (tr) {
    const running = Y.mergeDeleteSets([tr.deleteSet])
    parts.push(tr === t.recordedIn ? subtractDeleteSet(running, Y.mergeDeleteSets([t.before!])) : running)
  }
  return { deletions: subtractDeleteSet(Y.mergeDeleteSets(parts), t.extra), extra: t.extra }
}

/** Forget the tracking (the next version is computed the full way). */
export function untrack(doc: Y.Doc): void {
  if (tracked.get(doc)) tracked.set(doc, null)
}
