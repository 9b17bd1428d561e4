/**
 * Content states kept decoded in scratch docs, for files this instance writes without their
 * docs (write-batch.ts): the state a "before" version was read off (`decodedState`, an agent's
 * call noting each file's version first) and the state each such write left (`keepDecoded`), so
 * the next write on that very state takes the doc (`takeDecoded`) instead of decoding it again:
 * the next append to a new file not sent yet, the write after the "before" version, and, with a
 * server that gives heads (known-states.ts), the next call's write on a state still at its head.
 * Decoding a state reads its whole history (every version), so an agent's `sed -i` over the same
 * files, call after call, would otherwise cost more each call.
 *
 * A state is matched by identity (the very bytes kept with it), never by content. Bounded in
 * count and in bytes of encoded state (a decoded doc holds about 5–7 times its bytes); when full,
 * the least recently used makes room only if neither the batch open now (or the last one) nor
 * the one before used it, else the new one is not kept. Least recently used alone would fail the
 * case it is for: a call over more files than fit would push out, file by file, the very docs the
 * rest of the call was about to use, and none would be found (as each file's state grows a
 * version a call, the files kept stop fitting one by one instead).
 *
 * Dropped once no batch ran for `keepDecodedMs` (default `DECODED_IDLE_MS`; `dropDecodedWhenIdle`): a decoded doc takes 5–7
 * times its state's bytes, up to ~50 MB for a full set, and a server holds a filesystem per agent
 * session for as long as the session lives (30 minutes idle), most of it between calls.
 */
import * as Y from 'yjs'
import { hostClearTimeout, hostSetTimeout } from '../host-timers.js'
import type { FileId } from '../ids.js'
import type { DecodedState } from './batch-state.js'
import { applyState, type ContentState } from './content-state.js'
import type { FsContext } from './fs-context.js'

/** Docs kept at most… */
export const DECODED_MAX = 2048
/** …and their states' bytes (1,000 files of 24 versions each: about 4 MB). */
export const DECODED_MAX_BYTES = 8 << 20

/**
 * `state` of file `id` in a scratch doc, to be read only (not changed): kept for a write on the
 * same state that may follow (`takeDecoded`), so a "before" version read then a write decode the
 * state once. The caller must not destroy or change it.
 */
export function decodedState(ctx: FsContext, id: FileId, state: ContentState): Y.Doc {
  const kept = ctx.batch.decoded.get(id)
  if (kept?.state === state) {
    touch(ctx, id, kept)
    return kept.doc
  }
  const doc = decodeState(id, state)
  keepDecoded(ctx, id, state, doc)
  return doc
}

/** `state` of file `id` in a scratch doc of its own, not kept (destroyed, and the error thrown, when it cannot be applied). */
export function decodeState(id: FileId, state: ContentState): Y.Doc {
  const doc = new Y.Doc({ guid: id, gc: false })
  try {
    applyState(doc, state)
  } catch (error) {
    doc.destroy()
    throw error
  }
  return doc
}

/** Keep `doc`, which holds exactly `state` of file `id` (replacing what was kept of it), if there is room. */
export function keepDecoded(ctx: FsContext, id: FileId, state: ContentState, doc: Y.Doc): void {
  const batch = ctx.batch
  const previous = batch.decoded.get(id)
  if (previous) {
    forget(ctx, id, previous)
    if (previous.doc !== doc) previous.doc.destroy()
  }
  if (!makeRoom(ctx, state.byteLength)) return
  batch.decoded.set(id, { state, doc, epoch: batch.epoch })
  batch.decodedBytes += state.byteLength
}

/** The doc kept for `id` on this very `state`, now the caller's (to change); else `undefined`. */
export function takeDecoded(ctx: FsContext, id: FileId, state: ContentState): Y.Doc | undefined {
  const kept = ctx.batch.decoded.get(id)
  if (kept?.state !== state) return undefined
  forget(ctx, id, kept)
  return kept.doc
}

/**
 * How long the docs kept outlive the last batch: an agent's next call usually comes within
 * seconds (and finds them); after a minute, the memory matters more than one decode a file.
 */
export const DECODED_IDLE_MS = 60_000

/** Destroy every doc kept (the filesystem is destroyed, or no batch ran for a while). */
export function dropDecoded(ctx: FsContext): void {
  const batch = ctx.batch
  cancelIdleDrop(ctx)
  for (const { doc } of batch.decoded.values()) doc.destroy()
  batch.decoded.clear()
  batch.decodedBytes = 0
}

/**
 * The outermost batch ended (`openBatch`): drop the docs kept unless another batch opens within
 * `ms` (one opening cancels it: `cancelIdleDrop`). The timer keeps no process alive.
 */
export function dropDecodedWhenIdle(ctx: FsContext, ms: number): void {
  const batch = ctx.batch
  cancelIdleDrop(ctx)
  if (batch.decoded.size === 0) return
  // None kept past a batch: dropped now.
  if (ms <= 0) {
    dropDecoded(ctx)
    return
  }
  const timer = hostSetTimeout(() => {
    batch.decodedIdleTimer = undefined
    if (batch.depth === 0) dropDecoded(ctx)
  }, ms)
  ;(timer as { unref?: () => void }).unref?.()
  batch.decodedIdleTimer = timer
}

/** A batch opens: the docs kept stay (see `dropDecodedWhenIdle`). */
export function cancelIdleDrop(ctx: FsContext): void {
  const batch = ctx.batch
  if (batch.decodedIdleTimer === undefined) return
  hostClearTimeout(batch.decodedIdleTimer)
  batch.decodedIdleTimer = undefined
}

function touch(ctx: FsContext, id: FileId, kept: DecodedState): void {
  ctx.batch.decoded.delete(id)
  kept.epoch = ctx.batch.epoch
  ctx.batch.decoded.set(id, kept)
}

function forget(ctx: FsContext, id: FileId, kept: DecodedState): void {
  ctx.batch.decoded.delete(id)
  ctx.batch.decodedBytes -= kept.state.byteLength
}

/** Make room for a state of `bytes`: drop the least recently used while the last two batches used none of them. */
function makeRoom(ctx: FsContext, bytes: number): boolean {
  const batch = ctx.batch
  if (bytes > DECODED_MAX_BYTES) return false
  for (const [id, kept] of batch.decoded) {
    if (batch.decoded.size < DECODED_MAX && batch.decodedBytes + bytes <= DECODED_MAX_BYTES) return true
    // Used by one of the last two batches (most recent last: the rest were too).
    if (kept.epoch >= batch.epoch - 1) return false
    forget(ctx, id, kept)
    kept.doc.destroy()
  }
  return batch.decoded.size < DECODED_MAX && batch.decodedBytes + bytes <= DECODED_MAX_BYTES
}
