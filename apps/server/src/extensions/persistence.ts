/**
 * Persistence extension: loads documents from the DocumentStore and stores
 * every client update *before* Hocuspocus applies and acknowledges it.
 *
 * Durability: Hocuspocus sends the sync-status ack right after applying an
 * update, synchronously, and awaits `beforeHandleMessage` before applying.
 * So the update is appended (and committed) in `beforeHandleMessage`: once a
 * provider counts a change as synced, it is in the store. There is no
 * debounce window; `onStoreDocument` is not used.
 *
 * Validation: the socket guard drops invalid updates before Hocuspocus sees
 * them; other callers of `storeUpdate` (the y-websocket path) are checked
 * there, so nothing malformed is ever stored, whichever path it comes in by.
 * An update to a workspace's main doc whose rows core would not write (names
 * `.`, `..`, with `/`, `\`, NUL, over 255 bytes; wrong types or shapes:
 * protocol/row-check.ts) is refused here, on both paths: not stored, not
 * applied (so no other client gets it), logged once with its size and the
 * problem, never its contents, and its socket is closed with 4400 and the
 * problem as the reason. Updates from read-only connections are not stored
 * (Hocuspocus refuses them). Updates that arrive through Redis were stored by
 * the process that received them and are not stored again.
 *
 * Compaction: after `compactEvery` appends to a document, and when a
 * document is unloaded or read in bulk (`load`) with at least
 * `UNLOAD_COMPACT_MIN` appends since its last compaction, its log is
 * compacted in the background. Fewer rows are
 * not worth it: merging a log of two or three rows costs about what loading
 * it costs, and an agent's command that edits 1,000 files once unloads
 * 1,000 such documents (a tenth of the server's time under `sed -i`).
 * Their appends keep counting across loads until they are. Either way only
 * once the bytes appended since are at least `COMPACT_TAIL_SHARE` of the
 * document's size as last loaded: a compaction rewrites the whole state, and
 * the main doc of a 100,000-file workspace (8 MiB) was rewritten for every
 * 256 small rows (an agent's calls and their activity entries), 160 times
 * the bytes it folded. So the bytes a compaction writes stay within a
 * constant factor of the bytes appended, and a large document's log holds
 * at most an eighth of its size in rows (merged off the event loop:
 * update-merger.ts). Small documents compact as before.
 */
import type {
  afterUnloadDocumentPayload,
  beforeHandleMessagePayload,
  Extension,
  onLoadDocumentPayload,
} from '@hocuspocus/server'
import { parseDocName } from '@yfs/protocol'
import * as Y from 'yjs'
import type { Logger } from '../logger.js'
import type { Compactor } from '../persistence/compactor.js'
import type { DocumentStore, LogHeads } from '../persistence/document-store.js'
import { repairLog } from '../persistence/salvage.js'
import { rowUpdateProblem } from '../protocol/row-check.js'
import { isEmptyUpdate, isValidUpdate, readHocuspocusUpdate } from '../protocol/sync-message.js'

/** WebSocket close code for a malformed or invalid message. */
export const CLOSE_INVALID_MESSAGE = 4400

/**
 * What a hook returns to end a refused message: a promise nobody settles. A new one each
 * time, so that it is collected with the message (reactions on a shared one would pile up).
 */
const never = (): Promise<never> => new Promise<never>(() => undefined)

/** A WebSocket close reason: at most 123 bytes (`ws` throws on longer ones). */
export const closeReason = (text: string): string =>
  Buffer.byteLength(text) <= 123 ? text : `${text.slice(0, 100)}…`

export interface PersistenceOptions {
  store: DocumentStore
  compactor: Compactor
  logger: Logger
  /** Compact a document's log after this many appends. Default 256. */
  compactEvery?: number
}

export interface StoreUpdateOptions {
  /** The caller already checked the update with `isValidUpdate` (the socket guard did). */
  validated?: boolean
  /** The document as loaded now, to place the update's rows (row-check.ts); main docs only. */
  document?: Y.Doc
}

export interface Persistence {
  extension: Extension
  /**
   * Validate and durably append one client update to `documentName`. Resolves with why it
   * was refused (nothing stored, logged once): `invalid update` for bytes that are not a Yjs
   * update, the rows' problem for a main-doc update with rows core would not write (a short
   * text that quotes nothing: fit for a close reason); `undefined` once it is stored. Throws if
   * the store fails.
   */
  storeUpdate(
    documentName: string,
    update: Uint8Array,
    options?: StoreUpdateOptions,
  ): Promise<string | undefined>
  /**
   * Durably append one (already validated) update to each of several
   * documents of one workspace, in one store transaction: all or none.
   */
  storeMany(workspace: string, updates: readonly { name: string; update: Uint8Array }[]): Promise<void>
  /** A document's stored state; `undefined` when nothing is stored. */
  load(documentName: string): Promise<Uint8Array | undefined>
  /**
   * With a store that has heads (`DocumentStore.heads`), the same three with them: `load` with
   * the head of the state loaded (`head` undefined: nothing stored), `storeMany` resolving with
   * each update's document head before and after it (an empty update, not stored, leaves the
   * head as it was), and the heads of documents. Otherwise `undefined`.
   */
  readonly heads:
    | {
        load(documentName: string): Promise<{ state: Uint8Array | undefined; head: string | undefined }>
        storeMany(
          workspace: string,
          updates: readonly { name: string; update: Uint8Array }[],
        ): Promise<{ before: string | undefined; after: string | undefined }[]>
        of(workspace: string, names: readonly string[]): Promise<(string | undefined)[]>
      }
    | undefined
  /** Load a document's stored state into `doc`. */
  loadInto(documentName: string, doc: Y.Doc): Promise<void>
  /** Resolves when no append is in flight. */
  flush(): Promise<void>
}

/** Appends since the last compaction for which unloading a document compacts its log. */
export const UNLOAD_COMPACT_MIN = 4

/** Documents whose appends are counted at most (the oldest counts are dropped: compaction is an optimisation). */
const MAX_COUNTED_DOCS = 100_000

/** A compaction waits for appended bytes of at least this share of the document's size (see the module comment). */
export const COMPACT_TAIL_SHARE = 1 / 8

/** Documents smaller than this compact by their count of appends alone. */
const SIZED_DOC_MIN_BYTES = 64 * 1024

/** Appends to a document since its last scheduled compaction. */
interface Tail {
  count: number
  bytes: number
}

export function createPersistence(options: PersistenceOptions): Persistence {
  const { store, compactor, logger } = options
  const compactEvery = options.compactEvery ?? 256
  // Appends per document since its last scheduled compaction.
  const appends = new Map<string, Tail>()
  // Each document's size as last loaded here (its state's bytes, with what was compacted since).
  const sizes = new Map<string, number>()
  const inFlight = new Set<Promise<unknown>>()

  // Sockets that sent a refused update: their later messages are dropped too.
  const refusedSockets = new WeakSet<object>()

  function workspaceOf(documentName: string): string {
    const parsed = parseDocName(documentName)
    if (!parsed) throw new RangeError(`not a yfs document name: ${documentName}`)
    return parsed.workspace
  }

  async function storeUpdate(
    documentName: string,
    update: Uint8Array,
    options: StoreUpdateOptions = {},
  ): Promise<string | undefined> {
    const refuse = (problem: string): string => {
      logger.warn('update refused', { doc: documentName, problem, bytes: update.byteLength })
      return problem
    }
    if (!options.validated && !isValidUpdate(update)) return refuse('invalid update')
    if (isEmptyUpdate(update)) return undefined
    const workspace = workspaceOf(documentName)
    if (parseDocName(documentName)?.kind === 'main') {
      const problem = rowUpdateProblem(update, options.document)
      if (problem !== undefined) return refuse(problem)
    }
    await tracked(store.append(workspace, documentName, update))
    counted(workspace, documentName, update.byteLength)
    return undefined
  }

  /** Track an in-flight write (for `flush`). */
  async function tracked<T>(write: Promise<T>): Promise<T> {
    inFlight.add(write)
    try {
      return await write
    } finally {
      inFlight.delete(write)
    }
  }

  /** Count an append to `documentName`; schedule a compaction every `compactEvery` (see the module comment). */
  function counted(workspace: string, documentName: string, bytes: number): void {
    let tail = appends.get(documentName)
    if (!tail) {
      if (appends.size >= MAX_COUNTED_DOCS) appends.delete(appends.keys().next().value!)
      tail = { count: 0, bytes: 0 }
      appends.set(documentName, tail)
    }
    tail.count++
    tail.bytes += bytes
    if (tail.count >= compactEvery) compactIfLongEnough(workspace, documentName, compactEvery)
  }

  /** Schedule a compaction of `documentName` when it has `minCount` appends and enough bytes since its last. */
  function compactIfLongEnough(workspace: string, documentName: string, minCount: number): void {
    const tail = appends.get(documentName)
    if (!tail || tail.count < minCount) return
    const size = sizes.get(documentName)
    if (size !== undefined && tail.bytes < size * COMPACT_TAIL_SHARE) return
    appends.delete(documentName)
    if (size !== undefined) sizes.set(documentName, size + tail.bytes)
    // The compacted state's size: a document that grew large while loaded is sized from then on.
    compactor.schedule(workspace, documentName, (result) => {
      if (result.bytes > 0) noteSize(documentName, result.bytes)
    })
  }

  /** Schedule a compaction of `documentName` when it has `UNLOAD_COMPACT_MIN` appends since its last (and bytes). */
  function compactIfWorthIt(workspace: string, documentName: string): void {
    compactIfLongEnough(workspace, documentName, UNLOAD_COMPACT_MIN)
  }

  async function storeMany(
    workspace: string,
    updates: readonly { name: string; update: Uint8Array }[],
  ): Promise<void> {
    const nonEmpty = nonEmptyOf(workspace, updates)
    if (nonEmpty.length === 0) return
    await tracked(store.appendMany(workspace, nonEmpty))
    for (const { name, update } of nonEmpty) counted(workspace, name, update.byteLength)
  }

  /** `updates` but the empty ones (nothing to store); throws RangeError for a document of another workspace. */
  function nonEmptyOf(workspace: string, updates: readonly { name: string; update: Uint8Array }[]) {
    for (const { name } of updates)
      if (workspaceOf(name) !== workspace) throw new RangeError(`${name} is not a document of ${workspace}`)
    return updates.filter(({ update }) => !isEmptyUpdate(update))
  }

  function headsOf(logHeads: LogHeads): NonNullable<Persistence['heads']> {
    return {
      async load(documentName) {
        const workspace = workspaceOf(documentName)
        const loaded = await readSalvaged(
          workspace,
          documentName,
          () => logHeads.load(workspace, documentName),
          (got) => got.state.byteLength,
        )
        // As `load` (below): read without being opened, compacted here as an unload would.
        compactIfWorthIt(workspace, documentName)
        return { state: loaded?.state, head: loaded?.head }
      },
      async storeMany(workspace, updates) {
        const nonEmpty = nonEmptyOf(workspace, updates)
        const stored = nonEmpty.length === 0 ? [] : await tracked(logHeads.appendMany(workspace, nonEmpty))
        for (const { name, update } of nonEmpty) counted(workspace, name, update.byteLength)
        if (stored.length === updates.length) return stored
        // Empty updates stored nothing: their heads are the documents' as they are now.
        const now = await logHeads.of(
          workspace,
          updates.map(({ name }) => name),
        )
        let next = 0
        return updates.map(({ update }, k) =>
          isEmptyUpdate(update) ? { before: now[k], after: now[k] } : stored[next++]!,
        )
      },
      of: (workspace, names) => logHeads.of(workspace, names),
    }
  }

  /**
   * Salvage the log of `documentName`, which did not load (`failure`): it is replaced by what of
   * each row applies, the rows that do not are quarantined (persistence/salvage.ts), and the
   * document loads again instead of refusing every client from now on.
   */
  async function salvage(workspace: string, documentName: string, failure: unknown): Promise<void> {
    const result = await store.salvage(workspace, documentName, repairLog)
    logger.error('stored updates quarantined', {
      doc: documentName,
      error: failure,
      rows: result.rows,
      quarantined: result.quarantined,
      bytes: result.bytes,
    })
  }

  /**
   * What `read` gets of `documentName`'s stored log, salvaged first when its rows do not merge;
   * its size (`bytesOf`) noted.
   */
  async function readSalvaged<T>(
    workspace: string,
    documentName: string,
    read: () => Promise<T | undefined>,
    bytesOf: (got: T) => number,
  ): Promise<T | undefined> {
    let got: T | undefined
    try {
      got = await read()
    } catch (error) {
      // `Y.mergeUpdates` threw on a row (a failing database throws in the salvage too).
      await salvage(workspace, documentName, error)
      got = await read()
    }
    noteSize(documentName, got === undefined ? 0 : bytesOf(got))
    return got
  }

  /** The stored state of `documentName`, salvaged first when its rows do not merge. */
  function loadState(workspace: string, documentName: string): Promise<Uint8Array | undefined> {
    return readSalvaged(
      workspace,
      documentName,
      () => store.load(workspace, documentName),
      (state) => state.byteLength,
    )
  }

  /** Remember a large document's size (small ones compact by their count alone). */
  function noteSize(documentName: string, bytes: number): void {
    if (bytes < SIZED_DOC_MIN_BYTES) {
      sizes.delete(documentName)
      return
    }
    if (!sizes.has(documentName) && sizes.size >= MAX_COUNTED_DOCS) sizes.delete(sizes.keys().next().value!)
    sizes.set(documentName, bytes)
  }

  async function loadInto(documentName: string, doc: Y.Doc): Promise<void> {
    const workspace = workspaceOf(documentName)
    const state = await loadState(workspace, documentName)
    if (!state) return
    try {
      Y.applyUpdate(doc, state)
    } catch (error) {
      // Rows that merge but do not apply. What integrated before the error stays in `doc`;
      // the salvaged state brings the rest (applying an update twice changes nothing).
      await salvage(workspace, documentName, error)
      const salvaged = await store.load(workspace, documentName)
      if (salvaged) Y.applyUpdate(doc, salvaged)
    }
  }

  const extension: Extension = {
    extensionName: 'yfs-persistence',

    async onLoadDocument({ document, documentName }: onLoadDocumentPayload) {
      const started = performance.now()
      await loadInto(documentName, document)
      logger.debug('document loaded', { doc: documentName, ms: Math.round(performance.now() - started) })
    },

    async beforeHandleMessage(payload: beforeHandleMessagePayload) {
      const { connection, update: message, documentName, document } = payload
      if (refusedSockets.has(connection.webSocket)) return never()
      // The socket guard has decoded and validated this frame (protocol/guarded-socket.ts).
      const update = readHocuspocusUpdate(message)
      if (!update || connection.readOnly) return
      let refusal: string | undefined
      try {
        refusal = await storeUpdate(documentName, update, { validated: true, document })
      } catch (error) {
        // Not acked: the client resends after reconnecting.
        logger.error('append failed', { hook: 'beforeHandleMessage', doc: documentName, error })
        connection.webSocket.close(1011, 'storage error')
        throw Object.assign(new Error('storage error'), { reason: 'storage error' })
      }
      if (refusal !== undefined) {
        refusedSockets.add(connection.webSocket)
        connection.webSocket.close(CLOSE_INVALID_MESSAGE, closeReason(refusal))
        // Throwing would make Hocuspocus log the error again, with a stack trace (console.error):
        // a hook that never settles ends this message here instead. Nothing of it is applied,
        // broadcast or acknowledged, and the socket is closing.
        return never()
      }
    },

    async afterUnloadDocument({ documentName }: afterUnloadDocumentPayload) {
      compactIfWorthIt(workspaceOf(documentName), documentName)
    },
  }

  return {
    extension,
    storeUpdate,
    storeMany,
    heads: store.heads && headsOf(store.heads),
    async load(documentName) {
      const workspace = workspaceOf(documentName)
      const state = await loadState(workspace, documentName)
      // Read without being opened (a bulk load): such a document is never unloaded, so its log is
      // compacted here as an unload would, or every later load merges it again (a file that
      // agents' calls overwrite in bulk gains a row per call).
      compactIfWorthIt(workspace, documentName)
      return state
    },
    loadInto,
    async flush() {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight])
    },
  }
}
