import { afterEach, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createUpdateMerger, type UpdateMerger } from './update-merger.js'

/** A log: a first state and `n` small updates after it. */
function log(n: number, chars = 10): Uint8Array[] {
  const doc = new Y.Doc({ guid: 'log' })
  const updates: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => updates.push(u))
  for (let i = 0; i < n; i++) doc.getText('t').insert(0, `${i}`.padEnd(chars, '.'))
  return updates
}

const textOf = (state: Uint8Array) => {
  const doc = new Y.Doc()
  Y.applyUpdate(doc, state)
  return doc.getText('t').toString()
}

/** `work`'s value, and whether the event loop turned (an immediate ran) before it settled. */
async function whileTurning<T>(work: Promise<T>): Promise<{ value: T; turned: boolean }> {
  let turned = false
  setImmediate(() => {
    turned = true
  })
  const value = await work
  return { value, turned }
}

describe('update merger', () => {
  let merger: UpdateMerger
  afterEach(() => merger.close())

  it('merges large logs on another thread: the event loop turns meanwhile; the bytes are Yjs’s', async () => {
    merger = createUpdateMerger({ minBytes: 64 * 1024 })
    const updates = log(3000, 40)
    expect(updates.reduce((n, u) => n + u.byteLength, 0)).toBeGreaterThan(64 * 1024)
    const { value: merged, turned } = await whileTurning(merger.merge(updates))
    expect(turned).toBe(true)
    expect(Buffer.from(merged).equals(Buffer.from(Y.mergeUpdates(updates)))).toBe(true)
    // Several at once, answered each with its own.
    const logs = [log(10), log(20), log(30)]
    const all = await Promise.all(logs.map((l) => merger.merge(l)))
    for (const [i, l] of logs.entries()) expect(textOf(all[i]!)).toBe(textOf(Y.mergeUpdates(l)))
  })

  it('merges small logs inline, before the event loop turns', async () => {
    merger = createUpdateMerger()
    const updates = log(20)
    const { value: merged, turned } = await whileTurning(merger.merge(updates))
    expect(turned).toBe(false)
    expect(Buffer.from(merged).equals(Buffer.from(Y.mergeUpdates(updates)))).toBe(true)
  })

  it('rejects with Yjs’s error on bytes that are no update, on either thread, and keeps working', async () => {
    const bad = [log(1)[0]!, new Uint8Array([255, 255, 255, 255, 255, 1, 2, 3])]
    expect(() => Y.mergeUpdates(bad)).toThrow()
    for (const minBytes of [0, 1 << 20]) {
      merger = createUpdateMerger({ minBytes })
      await expect(merger.merge(bad)).rejects.toThrow(Error)
      const good = log(5)
      expect(textOf(await merger.merge(good))).toBe(textOf(Y.mergeUpdates(good)))
      await merger.close()
    }
  })

  it('a worker that cannot start is no failure: its merges and every later one run inline', async () => {
    merger = createUpdateMerger({ minBytes: 0, yjs: '/nonexistent/yjs.cjs' })
    const updates = log(50)
    const expected = Buffer.from(Y.mergeUpdates(updates))
    expect(Buffer.from(await merger.merge(updates)).equals(expected)).toBe(true)
    expect(Buffer.from(await merger.merge(updates)).equals(expected)).toBe(true)
    // A merge error is still Yjs's.
    await expect(merger.merge([updates[0]!, new Uint8Array([255, 255, 255, 255, 255, 1])])).rejects.toThrow()
  })

  it('a merge still waiting when the merger closes rejects', async () => {
    merger = createUpdateMerger({ minBytes: 0 })
    const pending = merger.merge(log(2000, 40))
    await merger.close()
    await expect(pending).rejects.toThrow(/closed|stopped/)
  })
})
