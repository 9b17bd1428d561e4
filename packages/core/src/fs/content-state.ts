/**
 * A content doc's whole state as this instance keeps it without the doc (known-states.ts,
 * decoded-states.ts, write-batch.ts): one update, or a chain of updates applied in order, the
 * state a write built on and each change written on it since.
 *
 * Why a chain: an overwrite without the file's doc (write-batch.ts `addUpdate`) must leave the
 * file's whole state behind it (the next call's write builds on it, offline the doc opens from
 * it). Encoded from the scratch doc, that state is every version of the file's history, so an
 * agent's `sed -i` over the same 1,000 files encoded more at every call (a quarter of the
 * server's time after 16 calls, growing with every one). Chained, a write costs the change it
 * adds; the chain is merged into one update only where one is needed (`stateBytes`: a doc opened
 * offline from it, a new file's state sent whole) and after `MAX_STATE_PARTS` changes.
 *
 * A state is matched by identity (decoded-states.ts): a chain is never changed, a write makes a
 * new one.
 */
import * as Y from 'yjs'

/** Updates that, applied in order, make one state; `byteLength`: theirs in all. */
export interface StateChain {
  readonly parts: readonly Uint8Array[]
  readonly byteLength: number
}

/** A content doc's whole state: one update, or a chain of them (see the module comment). */
export type ContentState = Uint8Array | StateChain

/**
 * Updates a chain holds at most: past it, `chainState` merges them into one (about what encoding
 * the whole state costs). A writer holding the doc encodes it whole instead, sooner and spread
 * over calls (`chainFits`).
 */
export const MAX_STATE_PARTS = 32

/**
 * Whether the state of file `id` written on `base` may still be a chain of `base`'s parts and one
 * more change; else the writer encodes its doc whole (a state of one update again). Each file
 * starts afresh after between `MAX_STATE_PARTS` / 2 and `MAX_STATE_PARTS` parts, chosen by its
 * id: files written together call after call (`sed -i` over a folder) do not all pay for their
 * whole history in the same call (merged all at once past the limit, a call over 1,000 files
 * took ~0.8 s more every 32 calls).
 */
export function chainFits(id: string, base: ContentState): boolean {
  let hash = 0
  for (let i = 0; i < id.length; i++) hash = (hash * 31 + id.charCodeAt(i)) | 0
  const half = MAX_STATE_PARTS / 2
  return stateParts(base).length < half + (Math.abs(hash) % half)
}

const merged = new WeakMap<StateChain, Uint8Array>()

/** The updates of `state`, in the order they apply. */
export function stateParts(state: ContentState): readonly Uint8Array[] {
  return state instanceof Uint8Array ? [state] : state.parts
}

/** `base` and then `change` (an update made on exactly `base`'s state) as one state. */
export function chainState(base: ContentState, change: Uint8Array): ContentState {
  const parts = [...stateParts(base), change]
  if (parts.length > MAX_STATE_PARTS) return Y.mergeUpdates(parts)
  return { parts, byteLength: base.byteLength + change.byteLength }
}

/** `state` as one update (a chain is merged once, then the merge is kept with it). */
export function stateBytes(state: ContentState): Uint8Array {
  if (state instanceof Uint8Array) return state
  let bytes = merged.get(state)
  if (bytes === undefined) {
    bytes = state.parts.length === 1 ? state.parts[0]! : Y.mergeUpdates(state.parts as Uint8Array[])
    merged.set(state, bytes)
  }
  return bytes
}

/** Apply `state` to `doc` (a chain's updates in order, in one transaction). */
export function applyState(doc: Y.Doc, state: ContentState, origin?: unknown): void {
  if (state instanceof Uint8Array) {
    Y.applyUpdate(doc, state, origin)
    return
  }
  doc.transact(() => {
    for (const part of state.parts) Y.applyUpdate(doc, part, origin)
  }, origin)
}
