import { describe, expect, it } from 'vitest'
import type { FileId } from '../ids.js'
import { newBatchState } from './batch-state.js'
import type { FsContext } from './fs-context.js'
import { countRewrite, rewrittenRecently } from './rewritten-files.js'

// The module reads the batch state and whether the pool keeps idle docs, nothing else.
const contextOf = (keepsIdle = true) =>
  ({ batch: newBatchState(), pool: { keepsIdle } }) as unknown as FsContext
const id = (n: number) => `file${n}` as FileId
/** One outermost batch that overwrites `ids` in bulk, as openBatch counts them. */
const batchOf = (ctx: FsContext, ids: FileId[]) => {
  ctx.batch.epoch++
  for (const fileId of ids) countRewrite(ctx, fileId)
}

describe('files rewritten call after call', () => {
  it('a file a batch overwrote alone or with up to 3 others counts from the next batch on; with 4 others it does not', () => {
    const ctx = contextOf()
    batchOf(ctx, [id(1)])
    // Not within its own batch: a second write there goes on the pending update.
    expect(rewrittenRecently(ctx, id(1))).toBe(false)
    ctx.batch.epoch++
    expect(rewrittenRecently(ctx, id(1))).toBe(true)
    batchOf(ctx, [id(2), id(3), id(4), id(5)])
    batchOf(ctx, [id(6), id(7), id(8), id(9), id(10)])
    ctx.batch.epoch++
    for (const n of [1, 2, 3, 4, 5]) expect(rewrittenRecently(ctx, id(n))).toBe(true)
    for (const n of [6, 7, 8, 9, 10]) expect(rewrittenRecently(ctx, id(n))).toBe(false)
  })

  it('two files in turn both count; only the 16 most recent are kept', () => {
    const ctx = contextOf()
    for (let round = 0; round < 3; round++) for (const n of [1, 2]) batchOf(ctx, [id(n)])
    ctx.batch.epoch++
    expect(rewrittenRecently(ctx, id(1)) && rewrittenRecently(ctx, id(2))).toBe(true)
    for (let n = 100; n < 116; n++) batchOf(ctx, [id(n)])
    ctx.batch.epoch++
    expect(rewrittenRecently(ctx, id(1)) || rewrittenRecently(ctx, id(2))).toBe(false)
    for (let n = 100; n < 116; n++) expect(rewrittenRecently(ctx, id(n))).toBe(true)
    expect(ctx.batch.rewrittenFew.size).toBe(16)
  })

  it('a batch over many files keeps no set of them', () => {
    const ctx = contextOf()
    batchOf(
      ctx,
      Array.from({ length: 10_000 }, (_, n) => id(n)),
    )
    expect(ctx.batch.rewritten.size).toBe(5)
  })

  it('never counts when the pool keeps no idle doc (each write would open it again)', () => {
    const ctx = contextOf(false)
    batchOf(ctx, [id(1)])
    ctx.batch.epoch++
    expect(rewrittenRecently(ctx, id(1))).toBe(false)
  })
})
