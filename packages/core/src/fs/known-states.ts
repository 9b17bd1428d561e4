/**
 * Content states this instance knows without holding their docs open: the
 * states of new files it stored in bulk, of overwrites it sent in bulk, and
 * of files it fetched (`loadContent`), each with its content version
 * (`batch.known`, most recent last, bounded in count and bytes).
 *
 * - Offline, a file's doc opens from its known state at once, while its row
 *   still announces that state (`knownStateOf`, pool `knownState`), as it
 *   would had the doc stayed loaded since.
 * - Online, an overwrite of a file whose doc is not open builds on it while
 *   it holds every change announced for the file, in the batch it was had in
 *   (`coveringState`, write-batch.ts). A write in a later batch fetches the
 *   state again: it then holds everything the server had when the batch
 *   fetched it, as a doc opened for the write would (a peer's flushed edit is
 *   merged, even while its row is still on its way here). A file rewritten alone
 *   batch after batch is written through its doc instead (rewritten-files.ts).
 */
import { fromBase64 } from 'lib0/buffer'
import * as Y from 'yjs'
import type { FileId } from '../ids.js'
import type { EncodedContent } from './batch-state.js'
import type { FsContext } from './fs-context.js'

/**
 * Known states kept… A folder's files are fetched in one order and written in another (`sed -i
 * *.txt` goes by name): fewer than a big folder's files would be dropped before they are used.
 */
const KNOWN_STATES_MAX = 8192
/** …and their bytes at most. */
const KNOWN_STATES_MAX_BYTES = 8 << 20

/** Remember `id`'s state `update`, whose content version is `sv`. */
export function rememberState(ctx: FsContext, id: FileId, update: Uint8Array, sv: string): void {
  forgetKnown(ctx, id)
  const epoch = ctx.batch.depth > 0 ? ctx.batch.epoch : undefined
  ctx.batch.known.set(id, { sv, update, epoch })
  ctx.batch.knownBytes += update.byteLength
  trimKnown(ctx)
}

/** Remember the states just stored of `docs`. */
export function rememberStored(ctx: FsContext, docs: { content: EncodedContent }[]): void {
  for (const { content } of docs) rememberState(ctx, content.id, content.update, content.sv)
}

function trimKnown(ctx: FsContext): void {
  const batch = ctx.batch
  for (const id of batch.known.keys()) {
    if (batch.known.size <= KNOWN_STATES_MAX && batch.knownBytes <= KNOWN_STATES_MAX_BYTES) break
    forgetKnown(ctx, id)
  }
}

export function forgetKnown(ctx: FsContext, id: FileId): void {
  const known = ctx.batch.known.get(id)
  if (!known) return
  ctx.batch.known.delete(id)
  ctx.batch.knownBytes -= known.update.byteLength
}

/**
 * The known state of `id` when it was had in the batch open now and holds every change announced
 * for the file; `undefined` otherwise.
 */
export function coveringState(ctx: FsContext, id: FileId): Uint8Array | undefined {
  const known = ctx.batch.known.get(id)
  if (!known || ctx.batch.depth === 0 || known.epoch !== ctx.batch.epoch) return undefined
  if (ctx.announced.coveredBy(id, Y.decodeStateVector(fromBase64(known.sv)))) return known.update
  forgetKnown(ctx, id)
  return undefined
}

/**
 * Pool `knownState`, offline only: the known state of `id` while its row still announces that
 * state (a peer's change announces another), at the doc's first open. Online the doc syncs first
 * as usual (a peer's edit may be on the server before its row is here).
 */
export function knownStateOf(ctx: FsContext, id: FileId): Uint8Array | undefined {
  const known = ctx.batch.known.get(id)
  if (!known) return undefined
  // Used at the doc's first open only: from then on the doc itself is what this instance knows.
  forgetKnown(ctx, id)
  if (ctx.online()) return undefined
  return ctx.table.get(id)?.sv === known.sv ? known.update : undefined
}
