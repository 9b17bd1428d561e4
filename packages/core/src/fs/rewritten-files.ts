/**
 * Files an agent edits call after call (a `sed -i` of one file, again and again; two or three
 * files in turn): their docs are opened and kept warm instead of overwritten in bulk.
 *
 * An overwrite in bulk (write-batch.ts) builds on the file's whole state, fetched again in each
 * new batch (known-states.ts), so each such write costs the file's history: through the server's
 * `/mcp`, a `sed -i` of one file took 15 ms at first and 85 ms after 1,000 edits. A doc open here
 * follows the server's changes live and a write to it sends its change only. So a file that a
 * recent batch overwrote in bulk with at most `FEW` − 1 others (one of the last `RECENT` such
 * files) is written through its doc: the doc opens (its state once) and stays warm in the pool
 * (`idleMs`), and the writes after that cost their change. A batch that overwrites many files
 * (`sed -i` over a folder) keeps going in bulk: opening a doc per file costs a provider's round
 * trips each.
 */
import type { FileId } from '../ids.js'
import type { FsContext } from './fs-context.js'

/** Most files a batch may overwrite for them to be opened as docs in later batches… */
const FEW = 4
/** …and how many such files are remembered (the most recent). */
const RECENT = 16

/** Count `id` as overwritten in bulk in the batch open now. */
export function countRewrite(ctx: FsContext, id: FileId): void {
  rollOver(ctx)
  const { rewritten } = ctx.batch
  // More than `FEW` is all that counts: a batch over a whole tree keeps no set of its files.
  if (rewritten.size <= FEW) rewritten.add(id)
}

/**
 * True when `id` is one of the files recent batches overwrote in bulk with few others, and the
 * pool keeps released docs warm (else an opened doc would close after each write, and each write
 * pay for opening it).
 */
export function rewrittenRecently(ctx: FsContext, id: FileId): boolean {
  if (!ctx.pool.keepsIdle) return false
  rollOver(ctx)
  return ctx.batch.rewrittenFew.has(id)
}

/**
 * In a batch other than the one `rewritten` counts: that one has ended, so its files join the
 * recent few when there were few of them, and counting starts afresh for this one.
 */
function rollOver(ctx: FsContext): void {
  const batch = ctx.batch
  if (batch.rewrittenEpoch === batch.epoch) return
  batch.rewrittenEpoch = batch.epoch
  const { rewritten, rewrittenFew } = batch
  if (rewritten.size <= FEW)
    for (const id of rewritten) {
      // Most recent last.
      rewrittenFew.delete(id)
      rewrittenFew.add(id)
    }
  rewritten.clear()
  for (const id of rewrittenFew) {
    if (rewrittenFew.size <= RECENT) break
    rewrittenFew.delete(id)
  }
}
