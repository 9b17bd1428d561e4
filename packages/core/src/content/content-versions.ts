/**
 * Content versions announced in rows: which state of a file's content doc a
 * row change describes, so a replica can tell whether the content it holds
 * (or has cached as text) already includes every change peers announced.
 *
 * A version is the content doc's Yjs state vector, encoded
 * (`Y.encodeStateVector`) and then base64, stored in the row's `sv` field.
 * Round trip: `decodeContentVersion(contentVersionOf(doc))` is
 * `Y.decodeStateVector(Y.encodeStateVector(doc))`.
 *
 * `ContentAnnouncements` merges every version a replica has received per
 * file (winning rows or not: a concurrent edit whose row lost the LWW still
 * changed the content). Content covers the announcements when its state
 * vector is at least as far on for every client.
 */
import { fromBase64, toBase64 } from 'lib0/buffer'
import * as Y from 'yjs'
import type { FileId } from '../ids.js'

type StateVector = Map<number, number>

/** The version of a content doc's current state, for a row's `sv`. */
export function contentVersionOf(doc: Y.Doc): string {
  return toBase64(Y.encodeStateVector(doc))
}

/** The state vector of a row's `sv`; empty for a malformed value (from a peer). */
export function decodeContentVersion(version: string): StateVector {
  try {
    return Y.decodeStateVector(fromBase64(version))
  } catch {
    // A garbage `sv` from a peer announces nothing we can check against.
    return new Map()
  }
}

/** True when `have` is at least as far on as `wanted` for every client. */
export function coversVersion(have: StateVector, wanted: StateVector): boolean {
  for (const [client, clock] of wanted) if ((have.get(client) ?? 0) < clock) return false
  return true
}

/** Per file, the merged versions announced by rows this replica has received. */
export class ContentAnnouncements {
  readonly #byId = new Map<FileId, StateVector>()

  /** Merge the version announced by a row. */
  add(id: FileId, version: string): void {
    const incoming = decodeContentVersion(version)
    const known = this.#byId.get(id)
    if (!known) {
      this.#byId.set(id, incoming)
      return
    }
    for (const [client, clock] of incoming) if ((known.get(client) ?? 0) < clock) known.set(client, clock)
  }

  /** True when content whose state vector is `have` includes every announced change of `id`. */
  coveredBy(id: FileId, have: StateVector): boolean {
    const wanted = this.#byId.get(id)
    return wanted === undefined || coversVersion(have, wanted)
  }

  delete(id: FileId): void {
    this.#byId.delete(id)
  }
}
