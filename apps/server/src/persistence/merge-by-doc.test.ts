import { expect, it } from 'vitest'
import * as Y from 'yjs'
import { mergeByDoc } from './merge-by-doc.js'
import { createUpdateMerger } from './update-merger.js'

/** Rows of `docs` documents, two updates each, ordered by doc then id as the stores read them. */
function rowsOf(docs: number) {
  const rows: { doc: string; data: Uint8Array }[] = []
  for (let i = 0; i < docs; i++) {
    const doc = new Y.Doc({ guid: `d${i}` })
    doc.on('update', (data: Uint8Array) => rows.push({ doc: `w/d${String(i).padStart(6, '0')}`, data }))
    doc.getText('t').insert(0, 'x'.repeat(500))
    doc.getText('t').insert(0, `${i}`)
  }
  return rows
}

const textOf = (state: Uint8Array) => {
  const doc = new Y.Doc()
  Y.applyUpdate(doc, state)
  return doc.getText('t').toString()
}

it('merges each document’s rows, letting the event loop turn while a large workspace merges', async () => {
  const rows = rowsOf(3000)
  let turns = 0
  const tick = () => {
    turns++
    if (!done) setImmediate(tick)
  }
  let done = false
  setImmediate(tick)
  const merger = createUpdateMerger()
  try {
    const documents = await mergeByDoc(rows, merger)
    done = true
    expect(documents).toHaveLength(3000)
    expect(textOf(documents[42]!.state)).toBe(`42${'x'.repeat(500)}`)
    // Thousands of merges (hundreds of ms) in slices of 10 ms: the loop turned in between.
    expect(turns).toBeGreaterThan(0)
  } finally {
    await merger.close()
  }
})
