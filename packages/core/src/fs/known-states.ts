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
 * - **Heads.** From a server that gives heads, a known state that is exactly the stored state at
 *   a head (fetched with it, or stored right on it: `rememberStored`) keeps that head. A later
 *   batch's fetch sends it (`since`): when the doc is still at that head the server sends nothing
 *   and the state counts as fetched in this batch again (`confirmKnown`). So an agent's `sed -i`
 *   over the same files, call after call, neither loads nor transfers their whole history again
 *   (each state grows by a version a call).
 */
import { fromBase64 } from 'lib0/buffer'
import * as Y from 'yjs'
import type { FileId } from '../ids.js'
import type { EncodedContent, KnownState } from './batch-state.js'
import { type ContentState, stateBytes } from './content-state.js'
import type { FsContext } from './fs-context.js'

/**
 * Known states kept… A folder's files are fetched in one order and written in another (`sed -i
 * *.txt` goes by name): fewer than a big folder's files would be dropped before they are used.
 */
const KNOWN_STATES_MAX = 8192
/**
 * …and their bytes at most (1,000 files of 100 versions each, a session's `sed -i` over a folder
 * call after call, hold about 18 MB; dropped ones are fetched whole again).
 */
export const KNOWN_STATES_MAX_BYTES = 24 << 20

/**
 * Remember `id`'s state `update`, whose content version is `sv`; `head`: the server's head of
 * exactly this state (see the module comment).
 */
export function rememberState(
  ctx: FsContext,
  id: FileId,
  update: ContentState,
  sv: string,
  head?: string,
): void {
  forgetKnown(ctx, id)
  const epoch = ctx.batch.depth > 0 ? ctx.batch.epoch : undefined
  ctx.batch.known.set(id, head === undefined ? { sv, update, epoch } : { sv, update, epoch, head })
  ctx.batch.knownBytes += update.byteLength
  trimKnown(ctx)
}

/**
 * Remember the states just stored of `docs`; `heads` (from the store or update, in order): the
 * head of each where the server stored it right on the state it was made on.
 */
export function rememberStored(
  ctx: FsContext,
  docs: { content: EncodedContent }[],
  // biome-ignore lint/suspicious/noConfusingVoidType: what `storeContent` / `updateContent` resolve with
  heads?: void | readonly (string | undefined)[],
): void {
  docs.forEach(({ content }, k) => {
    rememberState(ctx, content.id, content.update, content.sv, heads?.[k])
  })
}

/** The server's head of the state known of `id`, had in any batch (see the module comment). */
export function knownHead(ctx: FsContext, id: FileId): string | undefined {
  return ctx.batch.known.get(id)?.head
}

/**
 * The server answered that `id` is still at `head`: the known state at that head, now counted
 * as fetched in the batch open now; `undefined` when none is known at that head.
 */
export function confirmKnown(ctx: FsContext, id: FileId, head: string): KnownState | undefined {
  const known = ctx.batch.known.get(id)
  if (known?.head !== head) return undefined
  rememberState(ctx, id, known.update, known.sv, head)
  return ctx.batch.known.get(id)
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
export function coveringState(ctx: FsContext, id: FileId): ContentState | undefined {
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
  return ctx.table.get(id)?.sv === known.sv ? stateBytes(known.update) : undefined
}
