/**
 * The state a filesystem keeps for its write batches (write-batch.ts), as plain data: a
 * module of its own so the filesystem's context (fs-context.ts) can hold it without importing
 * the batch logic, which needs that context.
 */
import type * as Y from 'yjs'
import type { StoredVersion } from '../history/version-list.js'
import type { FileId } from '../ids.js'
import type { ContentState } from './content-state.js'

/** Text, or bytes when binary (the shape of content-codecs.ts' `FileContentValue`). */
export interface ContentValue {
  text?: string
  bytes?: Uint8Array
}

/** A new file's first state, encoded for a server's bulk store (see `encodeNewContent`). */
export interface EncodedContent {
  id: FileId
  /**
   * Its whole state: one update for a new file (what a bulk store sends), a chain for an
   * overwrite written on a known state (content-state.ts; what is sent is `change`).
   */
  update: ContentState
  /** Its content version (the row announces it). */
  sv: string
  /** The text a reader gets back (normalised by the codec); `undefined` for bytes. */
  text: string | undefined
  /** The bytes a reader gets back; `undefined` for text. */
  bytes?: Uint8Array
  size: number
  /** The snapshot it is seen at once stored (encoded as a fresh doc: nothing deleted); `undefined`: seen as current. */
  at: Y.Snapshot | undefined
  /** Its first version (encoded directly); `undefined` when built in a scratch doc. */
  version?: StoredVersion
}

/** A new file's content waiting for the batch's next bulk store. */
export interface PendingContent {
  name: string
  value: ContentValue
  content: EncodedContent
  /** Still the file's first state as written (not written again since). */
  first: boolean
  /** The Yjs client id it was encoded with. */
  clientId: number
}

/** What a write changed in a content doc from some state on (`writeInScratchDoc`'s `since`). */
export interface ContentChange {
  /** The encoded state vector it starts from. */
  since: Uint8Array
  /** The update from there to the doc's state after the write. */
  update: Uint8Array
}

/**
 * An overwrite of an existing file whose doc is not open here, waiting for the next bulk
 * update: `content.update` is the file's whole state after the write (its base, fetched or
 * stored before, and the write); `change` is what is sent, from the state the first write of the
 * batch on this file built on (a file written again before it was sent: one change from there).
 */
export interface PendingUpdate {
  name: string
  content: EncodedContent
  change: ContentChange
  /** The server's head of the state `change` starts from, when known (the update is sent on it). */
  base?: string
}

/**
 * A doc's stored state with its head, from a server that gives heads (@yfs/protocol
 * bulk-messages.ts): the head names the doc's stored log as it stood; any change gives another.
 */
export interface HeadedState {
  /** The stored state; `undefined`: still at the head the request gave (the caller holds that state). */
  state: Uint8Array | undefined
  /** Its head; `undefined` when the server gives none. */
  head: string | undefined
}

/**
 * What one fetch got (fetch-folder.ts): the states the server sent (or confirmed: a state known
 * here at the head it is still at), by file, each with its content version (`sv`: its state
 * vector, base64).
 */
export type FetchedStates = ReadonlyMap<FileId, { state: ContentState; sv: string }>

/** A state kept decoded (decoded-states.ts): `doc` holds exactly `state`; `epoch`, the batch that last used it. */
export interface DecodedState {
  state: ContentState
  doc: Y.Doc
  epoch: number
}

/** A content state known without its doc (known-states.ts). */
export interface KnownState {
  /** Its content version. */
  sv: string
  update: ContentState
  /** The server's head of exactly this state, when it gave one (it is then the stored state at that head). */
  head?: string
  /** The batch it was had in (`BatchState.epoch`); `undefined`: outside any batch. */
  epoch: number | undefined
}

/** A batch's state on one filesystem (FsContext.batch). */
export interface BatchState {
  /** Open batches. */
  depth: number
  /** New files' content not sent yet, by file, in write order. */
  pending: Map<FileId, PendingContent>
  pendingBytes: number
  /** Overwrites of existing files not sent yet, by file, in write order (bytes: counted with `pendingBytes`). */
  updates: Map<FileId, PendingUpdate>
  /** No bulk updates before this time (ms, `Date.now`): the last one was refused or failed. */
  updatesPausedUntil: number
  /** Content being stored, by file: resolves once stored (or written through the pool). */
  readonly storing: Map<FileId, Promise<void>>
  timer: ReturnType<typeof setTimeout> | undefined
  /** Outside a batch: a send is scheduled for the end of this task. */
  sendAfterTask: boolean
  /**
   * Content states this instance stored or fetched without opening their docs, with the
   * content version of each, most recent last (bounded, write-batch.ts). Offline, a new file's
   * doc opens from it at once, as it would had it stayed loaded since it was written (pool
   * `knownState`); online, an overwrite of a file whose doc is not open builds on it while it
   * holds every change announced for the file.
   */
  readonly known: Map<FileId, KnownState>
  knownBytes: number
  /** Counts outermost batches: a known state is a write's base only in the batch it was had in. */
  epoch: number
  /**
   * Folders the batch `fetchesEpoch` fetched from (fetch-folder.ts): the first fetch in a folder
   * takes the file alone to write it (a few of a big folder's files to read), the next ones up to
   * a request's worth.
   */
  readonly foldersFetched: Set<FileId>
  fetchesEpoch: number
  /** Bytes of a fetched state, on average over the last fetch that brought any (fetch-folder.ts). */
  fetchedStateBytes: number
  /** Client ids for encoded docs, drawn in blocks. */
  clientIds: Uint32Array
  nextClientId: number
  /**
   * States kept decoded in scratch docs, by file, least recently used first, with the batch that
   * last used each (decoded-states.ts): the write that follows on the same state takes the doc.
   */
  readonly decoded: Map<FileId, DecodedState>
  decodedBytes: number
  /** Drops the docs kept once no batch ran for a while (decoded-states.ts `dropDecodedWhenIdle`). */
  decodedIdleTimer: ReturnType<typeof setTimeout> | undefined
  /** Files overwritten in bulk in the batch `rewrittenEpoch` (the last one `rewritten-files.ts` saw). */
  readonly rewritten: Set<FileId>
  rewrittenEpoch: number
  /** Files recent batches overwrote in bulk alone or with few others, most recent last (rewritten-files.ts). */
  readonly rewrittenFew: Set<FileId>
}

/**
 * Whether this instance's own overwrite of `id` is on its way (not sent yet, or not yet stored):
 * the state to build on, or to announce, comes with its acknowledgement.
 */
export function ownWriteOnItsWay(batch: BatchState, id: FileId): boolean {
  return batch.updates.has(id) || batch.storing.has(id)
}

export function newBatchState(): BatchState {
  return {
    depth: 0,
    pending: new Map(),
    pendingBytes: 0,
    updates: new Map(),
    updatesPausedUntil: 0,
    storing: new Map(),
    known: new Map(),
    knownBytes: 0,
    epoch: 0,
    foldersFetched: new Set(),
    fetchesEpoch: 0,
    fetchedStateBytes: 0,
    timer: undefined,
    sendAfterTask: false,
    clientIds: new Uint32Array(0),
    nextClientId: 0,
    decoded: new Map(),
    decodedBytes: 0,
    decodedIdleTimer: undefined,
    rewritten: new Set(),
    rewrittenEpoch: 0,
    rewrittenFew: new Set(),
  }
}
