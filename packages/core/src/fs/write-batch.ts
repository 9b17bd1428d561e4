/**
 * Write batches (`fs.batch`, a shell command's scope, an agent's tool call):
 * what a batch changes reaches the main doc, and so peers, together.
 *
 * - **Rows.** The batch holds the files table (lww-map.ts, "Held writes"): each
 *   row is in the table at once and the batch's rows are stored in one main-doc
 *   transaction (one provider message) when it ends, or in steps of 100 ms.
 * - **New files' content, on a connected filesystem with a server's bulk store**
 *   (`storeContent`). Opening a content doc per new file (a provider, its
 *   authentication and sync) costs more than the write. So a new file's first
 *   state is encoded at once, without a doc (`encodeNewContent`), and stored
 *   with the batch's other new files in one bulk request: at the end of the
 *   batch, once 256 files or 1 MiB wait, 100 ms after the first, or as soon as
 *   someone opens one of those docs. Outside a batch the same, sent at once:
 *   at the end of the event loop's turn (the files written in that turn go
 *   together); `storePending` waits for it (a client's `flush()` does). Reads get the text from the plaintext
 *   cache meanwhile. Content first, row last: the file's row is pinned (held
 *   even past the batch's end) until its content is stored. A store the server
 *   refuses or that fails is retried file by file through the pool's provider.
 *
 * A batch ends by storing what it holds (its promise resolves once the
 * server acknowledged the content); overlapping batches share the pending
 * content and the table's hold, and each end stores what is pending.
 */
import * as Y from 'yjs'
import { afterThisTask, hostClearTimeout, hostSetTimeout } from '../host-timers.js'
import type { FileId } from '../ids.js'
import type { PendingContent } from './batch-state.js'
import type { FileContentValue } from './content-codecs.js'
import { FS_ORIGIN, type FsContext } from './fs-context.js'
import { encodeNewContent, markStored, randomUint32s, writeInScratchDoc } from './write-content.js'

/** Store pending content once this many files wait… */
const MAX_PENDING_FILES = 256
/** …or this many bytes of updates. */
const MAX_PENDING_BYTES = 1 << 20
/** Store pending content at the latest this long after the first waits (a long batch shows progress). */
const MAX_PENDING_MS = 100

/** Open a batch on `ctx`; the returned function ends it (stores what it holds) and resolves once stored. */
export function openBatch(ctx: FsContext): () => Promise<void> {
  const release = ctx.table.hold()
  ctx.batch.depth++
  let ended = false
  return async () => {
    if (ended) return
    ended = true
    ctx.batch.depth--
    try {
      await storePendingContent(ctx)
    } finally {
      release()
    }
  }
}

/**
 * True when a new file's content written now goes to the server's bulk store (see the module
 * comment): in a batch, with the batch's others; outside one, when the client says it may
 * (online, no local copy to keep it in), at once with whatever else was written in the same
 * turn of the event loop, still without a doc and a provider of its own.
 */
export function bulkStoresNewContent(ctx: FsContext): boolean {
  return ctx.storeContent !== undefined && !ctx.lazyContent && (ctx.batch.depth > 0 || ctx.bulkStoreReady())
}

/**
 * A new file's content in the open batch: encoded now, readable at once (plaintext cache), stored
 * with the batch's others; its row (written next by the caller) waits for it. Returns the size.
 */
export function addNewContent(ctx: FsContext, id: FileId, name: string, value: FileContentValue): number {
  const size = putPending(ctx, id, name, value)
  ctx.table.pin(id)
  const batch = ctx.batch
  if (batch.pending.size >= MAX_PENDING_FILES || batch.pendingBytes >= MAX_PENDING_BYTES)
    void sendPending(ctx)
  else if (batch.depth > 0)
    batch.timer ??= hostSetTimeout(() => {
      batch.timer = undefined
      void sendPending(ctx)
    }, MAX_PENDING_MS)
  else if (!batch.sendAfterTask) {
    // Outside a batch: stored at once, after this task's other writes (a loop of awaited
    // writes that never waits on the network writes many files in one task). Sent earlier for
    // another reason, the send finds nothing pending: no need to cancel it.
    batch.sendAfterTask = true
    afterThisTask(() => {
      batch.sendAfterTask = false
      void sendPending(ctx)
    })
  }
  return size
}

/** The content of `id` when it is a new file of a batch whose content is not sent yet. */
export function pendingContentOf(ctx: FsContext, id: FileId): FileContentValue | undefined {
  return ctx.batch.pending.get(id)?.value
}

/**
 * A new file of the batch written again before its content was sent (`> f` creates f empty,
 * then writes it; `>>` appends): the write goes into its pending state, in a scratch doc (no
 * provider, no round trip), with its own history version as any write; the new state replaces
 * the pending one. Returns the size.
 */
export function replacePendingContent(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
): number {
  const pending = ctx.batch.pending.get(id)!
  const content = writeInScratchDoc(ctx, id, name, value, pending.content.update)
  markStored(ctx, name, content)
  ctx.batch.pendingBytes += content.update.byteLength - pending.content.update.byteLength
  ctx.batch.pending.set(id, { name, value, content })
  return content.size
}

function putPending(ctx: FsContext, id: FileId, name: string, value: FileContentValue): number {
  const batch = ctx.batch
  if (batch.nextClientId >= batch.clientIds.length) {
    batch.clientIds = randomUint32s(MAX_PENDING_FILES)
    batch.nextClientId = 0
  }
  const content = encodeNewContent(ctx, id, name, value, batch.clientIds[batch.nextClientId++]!)
  markStored(ctx, name, content)
  batch.pending.set(id, { name, value, content })
  batch.pendingBytes += content.update.byteLength
  return content.size
}

/**
 * Before a content doc is opened: if it is a new file of a batch whose content is not stored
 * yet, store it (with the others pending) and its row, and resolve then; `undefined` otherwise.
 */
export function whenContentStored(ctx: FsContext, id: FileId): Promise<void> | undefined {
  const batch = ctx.batch
  if (batch.storing.size === 0 && batch.pending.size === 0) return undefined
  if (batch.pending.has(id)) void sendPending(ctx)
  const storing = batch.storing.get(id)
  // The server opens a content doc only for a file whose row it has: store the rows too.
  return storing?.then(() => ctx.table.flush())
}

/** Send every pending file's content and wait until all content being stored is. */
export async function storePendingContent(ctx: FsContext): Promise<void> {
  void sendPending(ctx)
  while (ctx.batch.storing.size > 0) await Promise.all(new Set(ctx.batch.storing.values()))
}

/** Send what is pending in one bulk store; resolves once stored (never rejects). */
function sendPending(ctx: FsContext): Promise<void> {
  const batch = ctx.batch
  if (batch.timer !== undefined) {
    hostClearTimeout(batch.timer)
    batch.timer = undefined
  }
  if (batch.pending.size === 0) return Promise.resolve()
  const docs = [...batch.pending.values()]
  batch.pending = new Map()
  batch.pendingBytes = 0
  const ids = docs.map((d) => d.content.id)
  const run = storeDocs(ctx, docs).finally(() => {
    for (const id of ids) if (batch.storing.get(id) === run) batch.storing.delete(id)
    ctx.table.unpin(ids)
  })
  for (const id of ids) batch.storing.set(id, run)
  return run
}

/** Stored states kept for `knownStateOf` (about as many files as the pool keeps idle docs). */
const KNOWN_STATES_MAX = 512
const KNOWN_STATES_MAX_BYTES = 8 << 20

function rememberStored(ctx: FsContext, docs: PendingContent[]): void {
  const batch = ctx.batch
  for (const { content } of docs) {
    forgetKnown(ctx, content.id)
    batch.known.set(content.id, { sv: content.sv, update: content.update })
    batch.knownBytes += content.update.byteLength
  }
  for (const id of batch.known.keys()) {
    if (batch.known.size <= KNOWN_STATES_MAX && batch.knownBytes <= KNOWN_STATES_MAX_BYTES) break
    forgetKnown(ctx, id)
  }
}

function forgetKnown(ctx: FsContext, id: FileId): void {
  const known = ctx.batch.known.get(id)
  if (!known) return
  ctx.batch.known.delete(id)
  ctx.batch.knownBytes -= known.update.byteLength
}

/**
 * Pool `knownState`, offline only: the stored state of a new file this instance wrote without
 * opening its doc, while its row still announces that state (a peer's change announces
 * another), at the doc's first open. Online the doc syncs first as usual (a peer's edit may
 * be on the server before its row is here).
 */
export function knownStateOf(ctx: FsContext, id: FileId): Uint8Array | undefined {
  const known = ctx.batch.known.get(id)
  if (!known) return undefined
  // Used at the doc's first open only: from then on the doc itself is what this instance knows.
  forgetKnown(ctx, id)
  if (ctx.online()) return undefined
  return ctx.table.get(id)?.sv === known.sv ? known.update : undefined
}

async function storeDocs(ctx: FsContext, docs: PendingContent[]): Promise<void> {
  try {
    await ctx.storeContent!(docs.map(({ content }) => ({ id: content.id, update: content.update })))
    rememberStored(ctx, docs)
  } catch {
    // Refused or failed (offline, timed out): each doc through its provider, which keeps it
    // until the server has it. The doc is fresh here: nothing remote to wait for. (No longer
    // "being stored": opening it must not wait for this very store, see `whenContentStored`.)
    for (const { content } of docs) ctx.batch.storing.delete(content.id)
    for (const { content } of docs) {
      try {
        const handle = await ctx.pool.acquire(content.id, { fresh: true })
        try {
          Y.applyUpdate(handle.doc, content.update, FS_ORIGIN)
        } finally {
          handle.release()
        }
      } catch (error) {
        console.error(`yfs: the content of ${content.id} could not be stored:`, error)
      }
    }
  }
}
