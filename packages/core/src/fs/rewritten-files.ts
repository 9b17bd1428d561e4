/**
 * Files an agent edits call after call (a `sed -i` of one file, again and again): their docs
 * are opened and kept warm instead of overwritten in bulk.
 *
 * An overwrite in bulk (write-batch.ts) builds on the file's whole state, fetched again in each
 * new batch (known-states.ts), so each such write costs the file's history: through the server's
 * `/mcp`, a `sed -i` of one file took 15 ms at first and 85 ms after 1,000 edits. A doc open here
 * follows the server's changes live and a write to it sends its change only. So a file that the
 * last batch to overwrite anything overwrote with at most `FEW` others is written through its doc
 * in the next batch: the doc opens (its state once) and stays warm in the pool (`idleMs`), and
 * the writes after that cost their change. A batch that overwrites many files (`sed -i` over a
 * folder) keeps going in bulk: opening a doc per file costs a provider's round trips each.
 */
import type { FileId } from '../ids.js'
import type { FsContext } from './fs-context.js'

/** Most files a batch may overwrite for them to be opened as docs in the next batch. */
const FEW = 4

/** Count `id` as overwritten in bulk in the batch open now. */
export function countRewrite(ctx: FsContext, id: FileId): void {
  const batch = ctx.batch
  if (batch.rewrittenEpoch !== batch.epoch) {
    // The last batch that overwrote anything is now the one before.
    batch.rewrittenBefore = batch.rewritten.size <= FEW ? new Set(batch.rewritten) : new Set()
    batch.rewritten.clear()
    batch.rewrittenEpoch = batch.epoch
  }
  // More than `FEW` is all that counts: a batch over a whole tree keeps no set of its files.
  if (batch.rewritten.size <= FEW) batch.rewritten.add(id)
}

/**
 * True when `id` was one of the few files the last batch to overwrite any overwrote in bulk, and
 * the pool keeps released docs warm (else an opened doc would close after each write, and each
 * write pay for opening it).
 */
export function rewrittenBefore(ctx: FsContext, id: FileId): boolean {
  const batch = ctx.batch
  if (!ctx.pool.keepsIdle) return false
  const before = batch.rewrittenEpoch === batch.epoch ? batch.rewrittenBefore : batch.rewritten
  return before.size <= FEW && before.has(id)
}
