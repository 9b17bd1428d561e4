/**
 * Per-file history: versions of a content doc, stored in the doc itself.
 *
 * A version is a Yjs snapshot (state vector + delete set) of the content doc
 * plus who/why/when, appended to `Y.Array(VERSIONS_KEY)` of the same doc. So
 * history belongs to the file id: it survives renames, moves and Markdown
 * convert-on-switch, syncs to every peer with the content, and reading an
 * old version rebuilds it from the doc's own tombstones (content docs keep
 * them: `gc: false`).
 *
 * Versions are never rewritten; restoring one writes its content as a new
 * change (and a new version).
 *
 * Storage: a snapshot's delete set grows with every deletion ever made, so
 * storing it whole per version costs O(versions × deletions). A version
 * instead stores its state vector and only the deletions since its `base`
 * (the previous version this replica had, whose delete set is a subset of
 * ours); every `KEYFRAME_EVERY` versions a full snapshot bounds the chain.
 * `compactContentState` drops deleted content that no version can see (typed
 * and deleted between two versions) from an encoded doc state.
 */
import * as Y from 'yjs'
import { BINARY_KEY, readBinary } from '../content/binary.js'
import type { ContentCodec } from '../content/codec.js'
import { structsByClient } from '../internals/yjs.js'
import { type DeleteSet, rangesOf, subtractDeleteSet } from './delete-sets.js'
import { deletionsSince, track } from './deletion-tracker.js'
import { ContentDroppedError, snapshotShowsDroppedContent } from './dropped-content.js'
import {
  appendVersion,
  findStoredVersion,
  lastStoredVersion,
  newVersionId,
  type StoredVersion,
  storedVersions,
  VERSIONS_KEY,
  type VersionReason,
  versionListRebuilds,
} from './version-list.js'

export type { StoredVersion, VersionReason }
export { ContentDroppedError, findStoredVersion, lastStoredVersion, VERSIONS_KEY }

/** A full snapshot every this many versions, so reading a version merges at most this many deltas. */
export const KEYFRAME_EVERY = 64

/** A version as callers see it (no snapshot bytes). */
export type FileVersion = Omit<StoredVersion, 'snapshot' | 'base' | 'depth'>

export interface VersionContent {
  text?: string
  bytes?: Uint8Array
}

/** Versions in the order they were recorded (garbage entries from peers skipped). Do not mutate. */
export function listStoredVersions(doc: Y.Doc): readonly StoredVersion[] {
  return storedVersions(doc)
}

export function toFileVersion({ snapshot: _s, base: _b, depth: _d, ...rest }: StoredVersion): FileVersion {
  return rest
}

// Resolved snapshots per doc and version id (deltas merged), computed once.
const resolved = new WeakMap<Y.Doc, Map<string, Y.Snapshot>>()

/** The full snapshot of a version (its delta chain merged). */
export function versionSnapshot(doc: Y.Doc, version: StoredVersion): Y.Snapshot {
  let cache = resolved.get(doc)
  if (!cache) {
    cache = new Map()
    resolved.set(doc, cache)
  }
  const hit = cache.get(version.id)
  if (hit) return hit
  const own = Y.decodeSnapshot(version.snapshot)
  let full = own
  if (version.base !== undefined) {
    const base = findStoredVersion(doc, version.base)
    if (!base) throw new RangeError(`version ${version.id} extends a missing version ${version.base}`)
    full = Y.createSnapshot(Y.mergeDeleteSets([versionSnapshot(doc, base).ds, own.ds]), own.sv)
  }
  cache.set(version.id, full)
  return full
}

// State vectors of versions, decoded once (a version is immutable once stored).
const stateVectors = new WeakMap<StoredVersion, Map<number, number>>()

/** The state vector of a version: stored whole in every version, delta or not. */
function stateVectorOfVersion(version: StoredVersion): Map<number, number> {
  let sv = stateVectors.get(version)
  if (!sv) {
    sv = Y.decodeSnapshot(version.snapshot).sv
    stateVectors.set(version, sv)
  }
  return sv
}

/**
 * True when the doc's content changed since its last version. When that version was recorded
 * here, the deletions since it are known (deletion-tracker.ts) and only what changed since is
 * looked at; otherwise the doc is walked once (`Y.snapshot`).
 */
export function hasUnversionedChanges(doc: Y.Doc): boolean {
  const last = lastStoredVersion(doc)
  if (!last) return contentTouched(doc)
  const since = deletionsSince(doc, last.id)
  if (since) {
    // Only the state vector is needed, and it is the version's own (a delta keeps the full one):
    // resolving its delete set would merge the whole chain, a cost that grows with the file's history.
    if (contentClientsSince(doc, stateVectorOfVersion(last)).size > 0) return true
    return deletesContent(doc, since.deletions)
  }
  const then = versionSnapshot(doc, last)
  const now = Y.snapshot(doc)
  // Only the versions array itself may have moved on since.
  return !sameContentState(doc, then, now)
}

function contentTouched(doc: Y.Doc): boolean {
  for (const key of doc.share.keys()) if (key !== VERSIONS_KEY) return true
  return false
}

/**
 * Clients that added content (any struct outside the versions array) after the state vector
 * `from`. Walks only the structs added since, from each client's first one (`findIndexSS`).
 */
export function contentClientsSince(doc: Y.Doc, from: Map<number, number>): Set<number> {
  const versions = doc.share.get(VERSIONS_KEY)
  const clients = new Set<number>()
  for (const [client, structs] of structsByClient(doc)) {
    const start = from.get(client) ?? 0
    const end = structs[structs.length - 1]!
    if (end.id.clock + end.length <= start) continue
    for (let i = Y.findIndexSS(structs, start); i < structs.length; i++) {
      const s = structs[i]!
      if (s instanceof Y.Item && s.parent === versions) continue
      clients.add(client)
      break
    }
  }
  return clients
}

// Equal when every struct added or deleted after `then` belongs to the versions array.
function sameContentState(doc: Y.Doc, then: Y.Snapshot, now: Y.Snapshot): boolean {
  if (Y.equalSnapshots(then, now)) return true
  if (contentClientsSince(doc, then.sv).size > 0) return false
  return !deletesContent(doc, subtractDeleteSet(now.ds, then.ds))
}

// True when `deletions` delete anything outside the versions array: range by range and struct
// by struct (not clock by clock: a long-edited doc has millions of deleted clocks).
function deletesContent(doc: Y.Doc, deletions: DeleteSet): boolean {
  const versions = doc.share.get(VERSIONS_KEY)
  let changed = false
  rangesOf(deletions).forEach((ranges, client) => {
    const structs = structsByClient(doc).get(client)
    if (!structs) {
      changed = changed || ranges.length > 0
      return
    }
    for (const r of ranges) {
      for (let i = Y.findIndexSS(structs, r.clock); i < structs.length && !changed; i++) {
        const s = structs[i]!
        if (s.id.clock >= r.clock + r.len) break
        if (!(s instanceof Y.Item) || s.parent !== versions) changed = true
      }
    }
  })
  return changed
}

let fullSnapshots = 0

/**
 * Work done by `recordVersion` so far in this process, for tests that check it stays
 * constant per version: walks over a whole doc (`Y.snapshot`) and reads of a whole versions array.
 */
export const recordWork = (): { fullSnapshots: number; listRebuilds: number } => ({
  fullSnapshots,
  listRebuilds: versionListRebuilds(),
})

/** The doc's state vector (what `Y.snapshot(doc).sv` holds, without walking the structs). */
function stateVectorOf(doc: Y.Doc): Map<number, number> {
  const sv = new Map<number, number>()
  for (const [client, structs] of structsByClient(doc)) {
    const last = structs[structs.length - 1]!
    sv.set(client, last.id.clock + last.length)
  }
  return sv
}

/** Who recorded a version, why, and what it was then. */
export interface VersionMeta {
  author: string
  reason: VersionReason
  size: number
  codec: string
  name: string
  ts: number
}

/**
 * Append a version of the doc's current content (call inside or outside a transaction).
 *
 * Cost: O(changes since the last version) when that version was recorded here
 * (deletion-tracker.ts); otherwise, and for every `KEYFRAME_EVERY`th version,
 * one walk over the doc's structs (`Y.snapshot`).
 */
export function recordVersion(
  doc: Y.Doc,
  // `id`: chosen by the caller when it must be known before the doc is built (a seed's first version).
  { id = newVersionId(), ...meta }: VersionMeta & { id?: string },
  origin?: unknown,
): StoredVersion {
  let version!: StoredVersion
  doc.transact(() => {
    const last = lastStoredVersion(doc)
    const depth = last ? (last.depth ?? 0) + 1 : 0
    const common = { id, ...meta, binary: readBinary(doc) !== undefined }
    let extra: DeleteSet = Y.createDeleteSet()
    const since = last && depth < KEYFRAME_EVERY ? deletionsSince(doc, last.id) : undefined
    if (last && since) {
      // The deletions since `last`, collected as they happened: no walk over the doc.
      extra = since.extra
      const sv = stateVectorOf(doc)
      const snapshot = Y.createSnapshot(since.deletions, sv)
      version = { ...common, base: last.id, depth, snapshot: Y.encodeSnapshot(snapshot) }
      // Known now: the next "changed since the last version?" need not decode the snapshot for it.
      stateVectors.set(version, sv)
    } else {
      fullSnapshots++
      const now = Y.snapshot(doc)
      if (!last || depth >= KEYFRAME_EVERY) version = { ...common, snapshot: Y.encodeSnapshot(now) }
      else {
        const base = versionSnapshot(doc, last).ds
        const delta = subtractDeleteSet(now.ds, base)
        // Deletions the base chain has and this replica has not seen yet (its full set is now.ds ∪ extra).
        extra = subtractDeleteSet(base, now.ds)
        version = {
          ...common,
          base: last.id,
          depth,
          snapshot: Y.encodeSnapshot(Y.createSnapshot(delta, now.sv)),
        }
      }
      stateVectors.set(version, now.sv)
    }
    appendVersion(doc, version)
    track(doc, version.id, extra)
  }, origin)
  return version
}

/** The content of a version, read with the codec that was active then. */
export function readVersionContent(
  doc: Y.Doc,
  version: StoredVersion,
  codecs: readonly ContentCodec[],
): VersionContent {
  const codec = codecs.find((c) => c.id === version.codec) ?? codecs[codecs.length - 1]!
  return readSnapshotContent(doc, versionSnapshot(doc, version), codec)
}

/**
 * The content a doc had at `snapshot`, read with `codec` (bytes when it was binary).
 * Throws `ContentDroppedError` when this replica no longer holds content the snapshot shows.
 */
export function readSnapshotContent(doc: Y.Doc, snapshot: Y.Snapshot, codec: ContentCodec): VersionContent {
  if (doc.gc) throw new TypeError('history needs a content doc with gc: false')
  // Plain text that was never binary: render the Y.Text at the snapshot in place (no copy of the doc).
  if (codec.id === 'text' && !doc.share.has(BINARY_KEY)) {
    const type = doc.getText('text')
    if (snapshotShowsDroppedContent(doc, snapshot, type)) throw new ContentDroppedError()
    let text = ''
    for (const op of type.toDelta(snapshot)) if (typeof op.insert === 'string') text += op.insert
    return { text }
  }
  if (snapshotShowsDroppedContent(doc, snapshot)) throw new ContentDroppedError()
  const old = Y.createDocFromSnapshot(doc, snapshot, new Y.Doc({ guid: 'yfs-history', gc: false }))
  try {
    const bytes = readBinary(old)
    if (bytes) return { bytes }
    return { text: codec.read(old) }
  } finally {
    old.destroy()
  }
}

/**
 * Drop deleted content that no version references from an encoded content-doc
 * state. The result has the same state vector and syncs with every replica
 * (deleted items become GC ranges, as in any gc-enabled Yjs doc); every
 * version it holds stays readable, and so does every snapshot in `keep` (the
 * states a filesystem instance last saw, the bases of later stale writes).
 *
 * Only for a replica no other replica records versions against: the
 * filesystem uses it in memory mode (no provider). A version recorded
 * concurrently elsewhere, by a peer that had not seen the dropped deletions,
 * still shows that content; a replica holding the compacted state cannot
 * rebuild it and `readSnapshotContent` throws `ContentDroppedError` there
 * (the peer that recorded it still reads it).
 */
export function compactContentState(update: Uint8Array, keep: readonly Y.Snapshot[] = []): Uint8Array {
  const full = new Y.Doc({ guid: 'yfs-history', gc: false })
  Y.applyUpdate(full, update)
  const snapshots = [...listStoredVersions(full).map((v) => versionSnapshot(full, v)), ...keep]
  full.destroy()
  const referenced = (item: Y.Item) =>
    snapshots.some((s) => item.id.clock < (s.sv.get(item.id.client) ?? 0) && !Y.isDeleted(s.ds, item.id))
  const compacted = new Y.Doc({ guid: 'yfs-compact', gc: true, gcFilter: (item) => !referenced(item) })
  Y.applyUpdate(compacted, update)
  const out = Y.encodeStateAsUpdate(compacted)
  compacted.destroy()
  return out
}
