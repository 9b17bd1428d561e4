import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { repairLog } from './salvage.js'

// An update with an empty deletion range: `Y.mergeUpdates` takes it, `Y.applyUpdate` throws
// ("Unexpected case"). The server's checks refuse it since 724b6cd; older logs may hold it.
const EMPTY_RANGE = Uint8Array.from([1, 1, 0, 219, 191, 195, 2, 1, 35, 1, 1, 109, 1, 98, 1, 15, 0])
// Bytes that are no update at all: both merging and applying throw.
const TRUNCATED = Uint8Array.from([5, 200, 1])

/** Two updates of one text: "hello" then " world" appended by another client. */
function edits(): Uint8Array[] {
  const a = new Y.Doc()
  a.getText('t').insert(0, 'hello')
  const first = Y.encodeStateAsUpdate(a)
  const b = new Y.Doc()
  Y.applyUpdate(b, first)
  const sv = Y.encodeStateVector(b)
  b.getText('t').insert(5, ' world')
  b.getText('t').delete(0, 1)
  return [first, Y.encodeStateAsUpdate(b, sv)]
}

const textOf = (state: Uint8Array | undefined) => {
  const doc = new Y.Doc()
  if (state) Y.applyUpdate(doc, state)
  return doc.getText('t').toString()
}

describe('repairLog', () => {
  it('the bytes the salvage exists for: they merge, and the merged state does not apply', () => {
    const merged = Y.mergeUpdates([...edits(), EMPTY_RANGE])
    expect(() => Y.applyUpdate(new Y.Doc(), merged)).toThrow()
    expect(() => Y.mergeUpdates([...edits(), TRUNCATED])).toThrow()
  })

  it('keeps every row that applies, names the others, and gives a state that loads', () => {
    const [first, second] = edits()
    const repair = repairLog([first!, EMPTY_RANGE, TRUNCATED, second!])
    expect(repair.bad.map((b) => b.index)).toEqual([1, 2])
    expect(repair.bad.every((b) => b.reason.length > 0)).toBe(true)
    // Deletions of the good rows are kept.
    expect(textOf(repair.state)).toBe('ello world')
  })

  it('a row that folded a bad one in (an older compaction) keeps what Yjs integrates of it', () => {
    const folded = Y.mergeUpdates([...edits(), EMPTY_RANGE])
    const repair = repairLog([folded])
    expect(repair.bad.map((b) => b.index)).toEqual([0])
    expect(textOf(repair.state)).toContain('world')
  })

  it('a log of which nothing applies has no state', () => {
    expect(repairLog([TRUNCATED, TRUNCATED])).toEqual({
      state: undefined,
      bad: [expect.objectContaining({ index: 0 }), expect.objectContaining({ index: 1 })],
    })
  })

  it('a sound log comes back whole, nothing named', () => {
    const repair = repairLog(edits())
    expect(repair.bad).toEqual([])
    expect(textOf(repair.state)).toBe('ello world')
  })
})
