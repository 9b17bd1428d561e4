import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { FileId } from '../ids.js'
import { newBatchState } from './batch-state.js'
import {
  cancelIdleDrop,
  DECODED_MAX,
  DECODED_MAX_BYTES,
  decodedState,
  dropDecoded,
  dropDecodedWhenIdle,
  keepDecoded,
  takeDecoded,
} from './decoded-states.js'
import type { FsContext } from './fs-context.js'

// The module reads and writes the batch state, nothing else.
const contextOf = () => ({ batch: newBatchState() }) as unknown as FsContext
const id = (n: number) => `file${n}` as FileId
/** A content state holding `text`. */
const stateOf = (text: string) => {
  const doc = new Y.Doc()
  doc.getText('text').insert(0, text)
  return Y.encodeStateAsUpdate(doc)
}
const textOf = (doc: Y.Doc) => doc.getText('text').toString()
/** Inside one outermost batch (as openBatch numbers them). */
const inBatch = (ctx: FsContext, run: () => void) => {
  ctx.batch.epoch++
  ctx.batch.depth++
  try {
    run()
  } finally {
    ctx.batch.depth--
  }
}

describe('states kept decoded', () => {
  it('decodes a state once: the same bytes give the same doc, equal bytes of another array decode again', () => {
    const ctx = contextOf()
    const state = stateOf('one')
    const doc = decodedState(ctx, id(1), state)
    expect(textOf(doc)).toBe('one')
    expect(decodedState(ctx, id(1), state)).toBe(doc)
    const copy = decodedState(ctx, id(1), state.slice())
    expect(copy).not.toBe(doc)
    expect(textOf(copy)).toBe('one')
  })

  it('a write takes the doc once; what it keeps after replaces it, and matches its new state only', () => {
    const ctx = contextOf()
    const state = stateOf('one')
    const doc = decodedState(ctx, id(1), state)
    expect(takeDecoded(ctx, id(1), state)).toBe(doc)
    expect(takeDecoded(ctx, id(1), state)).toBeUndefined()
    doc.getText('text').insert(3, ' two')
    const next = Y.encodeStateAsUpdate(doc)
    keepDecoded(ctx, id(1), next, doc)
    expect(takeDecoded(ctx, id(1), state)).toBeUndefined()
    expect(textOf(decodedState(ctx, id(1), next))).toBe('one two')
    expect(ctx.batch.decodedBytes).toBe(next.byteLength)
    // Another doc kept for the same file replaces it (the old one is destroyed).
    let destroyed = false
    doc.on('destroy', () => {
      destroyed = true
    })
    keepDecoded(ctx, id(1), stateOf('three'), new Y.Doc())
    expect(destroyed).toBe(true)
    expect(ctx.batch.decoded.size).toBe(1)
  })

  it('a sweep over more files than fit keeps the first ones it met, call after call; a later batch pushes out older ones', () => {
    const ctx = contextOf()
    const n = DECODED_MAX + 500
    const states = Array.from({ length: n }, (_, i) => stateOf(`f${i}`))
    const first: Y.Doc[] = []
    inBatch(ctx, () => {
      for (let i = 0; i < n; i++) first.push(decodedState(ctx, id(i), states[i]!))
    })
    expect(ctx.batch.decoded.size).toBe(DECODED_MAX)
    // The next call over the same files: the first DECODED_MAX are the docs kept, the rest decode again.
    inBatch(ctx, () => {
      for (let i = 0; i < n; i++) {
        const doc = decodedState(ctx, id(i), states[i]!)
        if (i < DECODED_MAX) expect(doc).toBe(first[i])
        else expect(doc).not.toBe(first[i])
        expect(textOf(doc)).toBe(`f${i}`)
      }
    })
    // The files kept grow (a version each) and are kept again: as their sizes no longer fit, they
    // drop out one by one (the rest are still found), never pushing out those the call needs next.
    inBatch(ctx, () => {
      for (let i = 0; i < DECODED_MAX; i++) {
        const doc = takeDecoded(ctx, id(i), states[i]!)
        expect(doc).toBe(first[i])
        doc!.getText('text').insert(0, 'x')
        states[i] = Y.encodeStateAsUpdate(doc!)
        keepDecoded(ctx, id(i), states[i]!, doc!)
      }
    })
    expect(ctx.batch.decoded.size).toBe(DECODED_MAX)
    // Batches over other files: only what neither of the last two batches used makes room.
    inBatch(ctx, () => {
      for (let i = 0; i < 100; i++) decodedState(ctx, id(n + i), stateOf(`new ${i}`))
    })
    expect(ctx.batch.decoded.has(id(n))).toBe(false)
    inBatch(ctx, () => {
      for (let i = 0; i < 100; i++) decodedState(ctx, id(n + i), stateOf(`new ${i}`))
    })
    expect(ctx.batch.decoded.size).toBe(DECODED_MAX)
    expect(ctx.batch.decoded.has(id(n + 99))).toBe(true)
    expect(ctx.batch.decoded.has(id(0))).toBe(false)
    expect(ctx.batch.decoded.has(id(100))).toBe(true)
  })

  it('files whose states outgrow the bytes kept drop out one by one, the others still found', () => {
    const ctx = contextOf()
    const size = 64 * 1024
    const count = Math.floor(DECODED_MAX_BYTES / (size + 64))
    const states = Array.from({ length: count }, (_, i) => stateOf(`${i}`.padEnd(size, '.')))
    const docs: (Y.Doc | undefined)[] = []
    inBatch(ctx, () => {
      for (let i = 0; i < count; i++) docs.push(decodedState(ctx, id(i), states[i]!))
    })
    expect(ctx.batch.decoded.size).toBe(count)
    // Each call: every file takes its doc (when kept), grows by 1 KiB, and is kept again.
    for (let call = 0; call < 4; call++) {
      let found = 0
      inBatch(ctx, () => {
        for (let i = 0; i < count; i++) {
          const doc = takeDecoded(ctx, id(i), states[i]!)
          if (doc) found++
          const next = doc ?? decodedState(ctx, id(i), states[i]!)
          if (!doc) takeDecoded(ctx, id(i), states[i]!)
          next.getText('text').insert(0, '.'.repeat(1024))
          states[i] = Y.encodeStateAsUpdate(next)
          keepDecoded(ctx, id(i), states[i]!, next)
        }
      })
      // Only the files that no longer fit decode again: never all of them.
      expect(found).toBeGreaterThan(count * 0.9 - call * count * 0.02 - 1)
      expect(ctx.batch.decodedBytes).toBeLessThanOrEqual(DECODED_MAX_BYTES)
    }
  })

  it('keeps no state bigger than its byte bound, and never more bytes than it; dropping destroys them all', () => {
    const ctx = contextOf()
    const big = stateOf('x'.repeat(DECODED_MAX_BYTES + 1))
    expect(textOf(decodedState(ctx, id(1), big)).length).toBe(DECODED_MAX_BYTES + 1)
    expect(ctx.batch.decoded.size).toBe(0)
    const third = stateOf('y'.repeat(DECODED_MAX_BYTES / 3))
    for (let i = 0; i < 4; i++) decodedState(ctx, id(10 + i), third.slice())
    expect(ctx.batch.decoded.size).toBe(2)
    expect(ctx.batch.decodedBytes).toBeLessThanOrEqual(DECODED_MAX_BYTES)
    dropDecoded(ctx)
    expect(ctx.batch.decoded.size).toBe(0)
    expect(ctx.batch.decodedBytes).toBe(0)
  })

  it('drops every doc once no batch opened for a while after the last ended; a batch opening keeps them', async () => {
    const ctx = contextOf()
    const destroyed: string[] = []
    const keep = (n: number) => {
      const doc = decodedState(ctx, id(n), stateOf(`text ${n}`))
      doc.on('destroy', () => destroyed.push(textOf(doc)))
    }
    inBatch(ctx, () => {
      keep(1)
      keep(2)
    })
    const idle = 30
    const past = () => new Promise((done) => setTimeout(done, idle * 3))
    // Another batch opened meanwhile: kept.
    dropDecodedWhenIdle(ctx, idle)
    cancelIdleDrop(ctx)
    await past()
    expect(ctx.batch.decoded.size).toBe(2)
    // Still inside a batch when the time comes: kept.
    dropDecodedWhenIdle(ctx, idle)
    ctx.batch.depth++
    await past()
    ctx.batch.depth--
    expect(ctx.batch.decoded.size).toBe(2)
    // Idle: all dropped, and destroyed.
    dropDecodedWhenIdle(ctx, idle)
    await past()
    expect(ctx.batch.decoded.size).toBe(0)
    expect(ctx.batch.decodedBytes).toBe(0)
    expect(destroyed.sort()).toEqual(['text 1', 'text 2'])
    expect(ctx.batch.decodedIdleTimer).toBeUndefined()
    // Nothing kept: no timer at all.
    dropDecodedWhenIdle(ctx, idle)
    expect(ctx.batch.decodedIdleTimer).toBeUndefined()
  })

  it('with no time to keep them (0 ms) drops every doc as the batch ends, with no timer', () => {
    const ctx = contextOf()
    inBatch(ctx, () => {
      decodedState(ctx, id(1), stateOf('one'))
    })
    dropDecodedWhenIdle(ctx, 0)
    expect(ctx.batch.decoded.size).toBe(0)
    expect(ctx.batch.decodedBytes).toBe(0)
    expect(ctx.batch.decodedIdleTimer).toBeUndefined()
  })
})
