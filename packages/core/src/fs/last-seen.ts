/**
 * Last-seen state: for every file a filesystem instance has read whole or
 * written, the state of its content doc that the instance last saw. A later
 * whole-file write from that instance is merged against it (see
 * stale-write.ts) when the file changed in between.
 *
 * Cheap by being lazy: after a read or a write the entry only says "the doc
 * as it is now" and copies nothing. The first transaction on the doc that is
 * not this instance's own (a person's editor, a remote update) turns the
 * entry into a Yjs snapshot (state vector + delete set) taken just before
 * that transaction runs; content docs keep deleted items (`gc: false`), so
 * the text the instance saw can be rebuilt from the snapshot later. A
 * transaction that only appended a history version turns it back. A doc
 * closed while it may change elsewhere (a provider is attached) is
 * snapshotted at close. No copies of file contents are ever kept.
 *
 * Deliberately not here: rebuilding the base text (the filesystem does that
 * with its codecs) or deciding what a stale write does.
 */
import * as Y from 'yjs'
import { VERSIONS_KEY } from '../history/file-history.js'
import type { FileId } from '../ids.js'

/** What an instance last saw of a file: the doc as it is now, or a snapshot of an older state. */
export type LastSeen =
  | { kind: 'current'; codec: string }
  | { kind: 'snapshot'; codec: string; snapshot: Y.Snapshot }

interface Entry {
  seen: LastSeen
  // Snapshotted by the transaction running now: undone if it turns out to touch only versions.
  pending: boolean
}

export class LastSeenTracker {
  readonly #entries = new Map<FileId, Entry>()
  readonly #current = new Map<string, LastSeen>()
  readonly #ownOrigin: unknown

  readonly #enabled: boolean

  /**
   * `ownOrigin`: transaction origin of the instance's own writes, which never make an entry stale.
   * `enabled: false` tracks nothing (every write is a plain replace).
   */
  constructor(ownOrigin: unknown, enabled = true) {
    this.#ownOrigin = ownOrigin
    this.#enabled = enabled
  }

  /** The instance now knows the file's current content (read as `codec`). */
  markSeen(id: FileId, codec: string): void {
    if (!this.#enabled) return
    // One "current" object per codec, shared: entries replace `seen`, never change it.
    let seen = this.#current.get(codec)
    if (seen === undefined) {
      seen = { kind: 'current', codec }
      this.#current.set(codec, seen)
    }
    const entry = this.#entries.get(id)
    if (entry === undefined) this.#entries.set(id, { seen, pending: false })
    else {
      entry.seen = seen
      entry.pending = false
    }
  }

  /**
   * The instance saw `id` at `snapshot` (a doc it did not have open: "current" would follow
   * changes it never saw, since only an open doc's transactions turn "current" into a snapshot).
   */
  markSeenAt(id: FileId, codec: string, snapshot: Y.Snapshot): void {
    if (!this.#enabled) return
    this.#entries.set(id, { seen: { kind: 'snapshot', codec, snapshot }, pending: false })
  }

  /** What the instance last saw of `id`; `undefined` when it never read or wrote it. */
  get(id: FileId): LastSeen | undefined {
    return this.#entries.get(id)?.seen
  }

  forget(id: FileId): void {
    this.#entries.delete(id)
  }

  /** Snapshots that must stay readable (compaction keeps what they can see). */
  snapshotsOf(id: FileId): Y.Snapshot[] {
    const seen = this.#entries.get(id)?.seen
    return seen?.kind === 'snapshot' ? [seen.snapshot] : []
  }

  /** Watch a loaded content doc; returns the detach. */
  attach(id: FileId, doc: Y.Doc): () => void {
    if (!this.#enabled) return () => {}
    const before = (tr: Y.Transaction) => {
      if (tr.origin === this.#ownOrigin) return
      const entry = this.#entries.get(id)
      if (entry?.seen.kind !== 'current') return
      entry.seen = { kind: 'snapshot', codec: entry.seen.codec, snapshot: Y.snapshot(doc) }
      entry.pending = true
    }
    const after = (tr: Y.Transaction) => {
      const entry = this.#entries.get(id)
      if (!entry?.pending) return
      entry.pending = false
      const versions = doc.share.get(VERSIONS_KEY)
      let content = false
      for (const type of tr.changed.keys()) if (type !== versions) content = true
      if (!content) entry.seen = { kind: 'current', codec: entry.seen.codec }
    }
    doc.on('beforeTransaction', before)
    doc.on('afterTransaction', after)
    return () => {
      doc.off('beforeTransaction', before)
      doc.off('afterTransaction', after)
    }
  }

  /**
   * The doc is closing and may change before it is opened again: pin "current" to a snapshot
   * (`snapshot()`, the doc's state now, taken by the caller at most once).
   */
  freeze(id: FileId, snapshot: () => Y.Snapshot): void {
    const entry = this.#entries.get(id)
    if (entry?.seen.kind === 'current')
      entry.seen = { kind: 'snapshot', codec: entry.seen.codec, snapshot: snapshot() }
  }
}
