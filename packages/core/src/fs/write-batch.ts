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
 * - **Changes to content docs open here** go through each doc's provider; on a client that
 *   can hold them (`holdContentUpdates`), a doc's changes in a batch go as one update when the
 *   batch ends, before its rows, or in steps (@yfs/client held-updates.ts).
 * - **Overwrites of existing files whose docs are not open here**, in a batch, with
 *   a server's bulk update (`updateContent`).
 *   Opening a doc to overwrite it costs a provider's round trips per file (`sed -i`
 *   over a folder). Instead the write builds on the file's state as this instance
 *   knows it (stored or fetched here in this batch, `known`, while it holds every
 *   change announced for the file; else fetched with files of its folder, `loadContent`,
 *   fetch-folder.ts), in a scratch doc, and the difference is sent with the others as new files'
 *   content is: same triggers, same row pinning, the same fallback through the
 *   pool's provider (applying the whole state there sends only what the server
 *   lacks). A refused or failed update pauses bulk updates for a minute.
 *   The base holds what the server had when the batch first fetched or stored
 *   the file, as a doc opened then would; a concurrent edit after that is merged
 *   by Yjs (line by line, text-diff.ts), as in an open doc. A file a recent batch
 *   overwrote alone or with a few others is written through its doc instead
 *   (rewritten-files.ts): an agent editing one file call after call would otherwise fetch
 *   its whole history in every call.
 *
 * A batch ends by storing what it holds (its promise resolves once the
 * server acknowledged the content); overlapping batches share the pending
 * content and the table's hold, and each end stores what is pending.
 */
import { decodeContentVersion } from '../content/content-versions.js'
import { textCodec } from '../content/text-codec.js'
import { afterThisTask, hostClearTimeout, hostNow, hostSetTimeout, outsideScripts } from '../host-timers.js'
import type { FileId } from '../ids.js'
import type { EncodedContent, PendingContent, PendingUpdate } from './batch-state.js'
import { codecFor, type FileContentValue, isEmptyValue } from './content-codecs.js'
import { applyState, type ContentState, stateBytes } from './content-state.js'
import { cancelIdleDrop, dropDecodedWhenIdle } from './decoded-states.js'
import { fetchFolder } from './fetch-folder.js'
import { FS_ORIGIN, type FsContext } from './fs-context.js'
import { coveringState, rememberStored } from './known-states.js'
import type { StaleWrite } from './merge-stale.js'
import { countRewrite, rewrittenRecently } from './rewritten-files.js'
import { encodeNewContent, markStored, randomUint32s, writeInScratchDoc } from './write-content.js'

/** Store pending content once this many files wait… */
const MAX_PENDING_FILES = 256
/** …or this many bytes of updates. */
const MAX_PENDING_BYTES = 1 << 20
/** Store pending content at the latest this long after the first waits (a long batch shows progress). */
const MAX_PENDING_MS = 100
/** How long bulk updates pause after one was refused or failed (overwrites open their docs meanwhile). */
const UPDATES_PAUSE_MS = 60_000

/** Open a batch on `ctx`; the returned function ends it (stores what it holds) and resolves once stored. */
export function openBatch(ctx: FsContext): () => Promise<void> {
  const release = ctx.table.hold()
  const releaseContent = ctx.holdContentUpdates?.()
  if (ctx.batch.depth === 0) {
    ctx.batch.epoch++
    cancelIdleDrop(ctx)
  }
  ctx.batch.depth++
  let ended = false
  return async () => {
    if (ended) return
    ended = true
    ctx.batch.depth--
    try {
      await storePendingContent(ctx)
    } finally {
      // Content first, rows last: open docs' held changes go before the rows that announce them.
      releaseContent?.()
      release()
      if (ctx.batch.depth === 0) dropDecodedWhenIdle(ctx, ctx.keepDecodedMs)
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
  scheduleSend(ctx)
  return size
}

/** Send what waits now when there is enough of it, else at the batch's timer or this task's end. */
function scheduleSend(ctx: FsContext): void {
  const batch = ctx.batch
  if (batch.pending.size + batch.updates.size >= MAX_PENDING_FILES || batch.pendingBytes >= MAX_PENDING_BYTES)
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
}

/**
 * True when an overwrite of `id` goes to the server's bulk update (see the module comment): in a
 * batch, on a filesystem that has one, `id`'s doc not open here (an open doc is written as it
 * is), bulk updates not paused, `id` not one of the few files recent batches rewrote
 * (rewritten-files.ts). Outside a batch an overwrite opens the doc: a lone write gains nothing
 * from a bulk request, and a doc kept open after it follows a peer's saves live (the sync daemon
 * merging saves on disk with writes in the workspace, a few ms apart).
 */
export function bulkUpdatesContent(ctx: FsContext, id: FileId): boolean {
  return (
    ctx.batch.depth > 0 &&
    ctx.updateContent !== undefined &&
    ctx.pool.peek(id) === undefined &&
    hostNow() >= ctx.batch.updatesPausedUntil &&
    !rewrittenRecently(ctx, id)
  )
}

/**
 * The state an overwrite of `id` builds on without its doc: its pending update's, else a known
 * state that holds every change announced for the file, else the same after fetching it with its
 * folder's files. `undefined` when none can be had (the caller opens the doc).
 */
export async function baseStateOf(ctx: FsContext, id: FileId): Promise<ContentState | undefined> {
  const pending = ctx.batch.updates.get(id)
  if (pending) return pending.content.update
  // Its content (as a new file, or an earlier update) is on its way: its stored state follows.
  const storing = ctx.batch.storing.get(id)
  if (storing) await storing
  const known = coveringState(ctx, id)
  if (known) return known
  if (!ctx.loadContent) return undefined
  const fetched = (await fetchFolder(ctx, id, true)).get(id)
  // Written meanwhile (another call of this instance): its pending state is newer.
  const pendingNow = ctx.batch.updates.get(id)
  if (pendingNow) return pendingNow.content.update
  if (!fetched) return undefined
  // Only as new as what the rows announced: else the doc (its sync waits for what is missing).
  return ctx.announced.coveredBy(id, decodeContentVersion(fetched.sv)) ? fetched.state : undefined
}

/**
 * An overwrite of existing file `id` without its doc (see `bulkUpdatesContent`): written on
 * `base` (from `baseStateOf`) in a scratch doc, as `writeContent` writes a doc (stale-write
 * merge, a version), readable at once (plaintext cache), sent with the batch's next bulk
 * request; its row (updated next by the caller) waits for it. Returns the size.
 */
export function addUpdate(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
  base: ContentState,
  stale?: StaleWrite,
): number {
  const batch = ctx.batch
  const pending = batch.updates.get(id)
  // A file written again before it was sent: one change from the first base.
  const { change, ...content } = writeInScratchDoc(
    ctx,
    id,
    name,
    value,
    base,
    stale,
    pending?.change.since ?? 'base',
  )
  markStored(ctx, name, content)
  countRewrite(ctx, id)
  batch.pendingBytes += content.update.byteLength - (pending?.content.update.byteLength ?? 0)
  batch.updates.delete(id)
  // The server's head of the base, when it is a known state at one: the change is sent on it.
  const known = pending ? undefined : batch.known.get(id)
  const head = pending ? pending.base : known?.update === base ? known.head : undefined
  batch.updates.set(
    id,
    head === undefined ? { name, content, change } : { name, content, change, base: head },
  )
  ctx.table.pin(id)
  scheduleSend(ctx)
  return content.size
}

/** The content of `id` when it is a new file of a batch whose content is not sent yet. */
export function pendingContentOf(ctx: FsContext, id: FileId): FileContentValue | undefined {
  return ctx.batch.pending.get(id)?.value
}

/**
 * A new file of the batch written again before its content was sent (`> f` creates f empty,
 * then writes it; `>>` appends): the write goes into its pending state, in a scratch doc (no
 * provider, no round trip), with its own history version as any write; the new state replaces
 * the pending one. A file created empty and not written since is created with the new content
 * instead (one version, encoded directly): the shell's `> f` then its output is one write, as
 * a held truncation of an existing file is (held-truncations.ts). Returns the size.
 */
export function replacePendingContent(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
): number {
  const pending = ctx.batch.pending.get(id)!
  // Encoded directly with the same client: the new state covers the empty one its row announced.
  if (pending.first && isEmptyValue(pending.value) && encodesDirectly(ctx, name, value)) {
    ctx.batch.pending.delete(id)
    ctx.batch.pendingBytes -= pending.content.update.byteLength
    return putPending(ctx, id, name, value, pending.clientId)
  }
  const content = writeInScratchDoc(ctx, id, name, value, pending.content.update)
  markStored(ctx, name, content)
  ctx.batch.pendingBytes += content.update.byteLength - pending.content.update.byteLength
  ctx.batch.pending.set(id, { name, value, content, first: false, clientId: pending.clientId })
  return content.size
}

/** Text-codec or binary content: `encodeNewContent` encodes it with the client id it is given. */
function encodesDirectly(ctx: FsContext, name: string, value: FileContentValue): boolean {
  return value.bytes !== undefined || codecFor(ctx, name) === textCodec
}

function putPending(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
  clientId = nextClientId(ctx),
): number {
  const batch = ctx.batch
  const content = encodeNewContent(ctx, id, name, value, clientId)
  markStored(ctx, name, content)
  batch.pending.set(id, { name, value, content, first: true, clientId })
  batch.pendingBytes += content.update.byteLength
  return content.size
}

/** A client id for a new doc's first state, drawn in blocks. */
function nextClientId(ctx: FsContext): number {
  const batch = ctx.batch
  if (batch.nextClientId >= batch.clientIds.length) {
    batch.clientIds = randomUint32s(MAX_PENDING_FILES)
    batch.nextClientId = 0
  }
  return batch.clientIds[batch.nextClientId++]!
}

/**
 * Before a content doc is opened: if it is a new file of a batch whose content is not stored
 * yet, store it (with the others pending) and its row, and resolve then; `undefined` otherwise.
 */
export function whenContentStored(ctx: FsContext, id: FileId): Promise<void> | undefined {
  const batch = ctx.batch
  if (batch.storing.size === 0 && batch.pending.size === 0 && batch.updates.size === 0) return undefined
  if (batch.pending.has(id) || batch.updates.has(id)) void sendPending(ctx)
  const storing = batch.storing.get(id)
  // The server opens a content doc only for a file whose row it has: store the rows too.
  return outsideScripts(() => storing?.then(() => ctx.table.flush()))
}

/** Send every pending file's content and wait until all content being stored is. */
export async function storePendingContent(ctx: FsContext): Promise<void> {
  void sendPending(ctx)
  while (ctx.batch.storing.size > 0) await Promise.all(new Set(ctx.batch.storing.values()))
}

/**
 * Send what is pending in one bulk store and one bulk update; resolves once stored (never rejects).
 * Started outside any script: the store may end after the script that wrote the files, and its
 * bookkeeping (the rows it unpins) must run then (host-timers.ts `outsideScripts`).
 */
function sendPending(ctx: FsContext): Promise<void> {
  return outsideScripts(() => sendPendingNow(ctx))
}

function sendPendingNow(ctx: FsContext): Promise<void> {
  const batch = ctx.batch
  if (batch.timer !== undefined) {
    hostClearTimeout(batch.timer)
    batch.timer = undefined
  }
  const docs = [...batch.pending.values()]
  const updates = [...batch.updates.values()]
  batch.pending = new Map()
  batch.updates = new Map()
  batch.pendingBytes = 0
  const runs: Promise<void>[] = []
  if (docs.length > 0) runs.push(tracked(ctx, docs, storeDocs(ctx, docs)))
  if (updates.length > 0) runs.push(tracked(ctx, updates, updateDocs(ctx, updates)))
  return runs.length === 1 ? runs[0]! : Promise.all(runs).then(() => undefined)
}

/** `run` stores `docs`: they are `storing` until it ends, their rows pinned until then. */
function tracked(ctx: FsContext, docs: { content: EncodedContent }[], store: Promise<void>): Promise<void> {
  const batch = ctx.batch
  const ids = docs.map((d) => d.content.id)
  const run = store.finally(() => {
    for (const id of ids) if (batch.storing.get(id) === run) batch.storing.delete(id)
    ctx.table.unpin(ids)
  })
  for (const id of ids) batch.storing.set(id, run)
  return run
}

async function storeDocs(ctx: FsContext, docs: PendingContent[]): Promise<void> {
  try {
    const heads = await ctx.storeContent!(
      docs.map(({ content }) => ({ id: content.id, update: stateBytes(content.update) })),
    )
    rememberStored(ctx, docs, heads)
  } catch {
    // Refused or failed (offline, timed out). The doc is fresh here: nothing remote to wait for.
    await throughEachDoc(ctx, docs)
  }
}

/**
 * A bulk request that was refused or failed: each file's whole state through its doc's provider,
 * which keeps it until the server has it. The doc opens without waiting for its sync (offline the
 * wait would fail, and the write be lost); for an existing file the sync then sends what the
 * server lacks and brings what it has. (No longer "being stored": opening the doc must not wait
 * for this very request, see `whenContentStored`.)
 */
async function throughEachDoc(ctx: FsContext, docs: { content: EncodedContent }[]): Promise<void> {
  for (const { content } of docs) ctx.batch.storing.delete(content.id)
  for (const { content } of docs) {
    try {
      const handle = await ctx.pool.acquire(content.id, { fresh: true })
      try {
        applyState(handle.doc, content.update, FS_ORIGIN)
      } finally {
        handle.release()
      }
    } catch (error) {
      console.error(`yfs: the content of ${content.id} could not be stored:`, error)
    }
  }
}

async function updateDocs(ctx: FsContext, updates: PendingUpdate[]): Promise<void> {
  // Paused since some of these were written (their writes waited for a fetch while an earlier
  // update was refused): through each doc, as the writes after the refusal go.
  if (hostNow() >= ctx.batch.updatesPausedUntil) {
    try {
      const heads = await ctx.updateContent!(
        updates.map(({ content, change, base }) =>
          base === undefined
            ? { id: content.id, update: change.update }
            : { id: content.id, update: change.update, base },
        ),
      )
      rememberStored(ctx, updates, heads)
      return
    } catch {
      // Refused (a server of several processes takes none) or failed (offline, timed out); bulk
      // updates pause meanwhile.
      ctx.batch.updatesPausedUntil = hostNow() + UPDATES_PAUSE_MS
    }
  }
  // The server opens a content doc only for a file whose row it has (a new one's may wait
  // here): the rows go first.
  ctx.table.unpin(updates.map(({ content }) => content.id))
  ctx.table.flush()
  await throughEachDoc(ctx, updates)
}
