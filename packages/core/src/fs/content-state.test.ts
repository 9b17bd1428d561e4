import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import {
  applyState,
  type ContentState,
  chainFits,
  chainState,
  MAX_STATE_PARTS,
  stateBytes,
  stateParts,
} from './content-state.js'

/** A doc as the scratch docs are: no garbage collection (history keeps what edits replaced). */
const newDoc = () => new Y.Doc({ gc: false })

/** What a doc holds, to compare two: its text, its versions list and its snapshot. */
function contentOf(state: ContentState, apply: (doc: Y.Doc) => void = (doc) => applyState(doc, state)) {
  const doc = newDoc()
  apply(doc)
  const out = {
    text: doc.getText('text').toString(),
    versions: doc.getArray('versions').toJSON(),
    sv: Y.encodeStateVector(doc),
    deletes: Y.encodeSnapshot(Y.snapshot(doc)),
  }
  doc.destroy()
  return out
}

/** Edits as a write makes them: text replaced in part, a version entry added. */
const edit = fc.record({ at: fc.nat(), cut: fc.nat({ max: 20 }), insert: fc.string({ maxLength: 12 }) })

describe('content states kept as chains of changes', () => {
  it('a chain of changes, each made on the state before, holds what the doc holds (applied or merged) (property)', () => {
    fc.assert(
      fc.property(fc.array(edit, { minLength: 1, maxLength: MAX_STATE_PARTS + 10 }), (edits) => {
        const doc = newDoc()
        const text = doc.getText('text')
        text.insert(0, 'line one\nline two\n')
        let state: ContentState = Y.encodeStateAsUpdate(doc)
        for (const [k, { at, cut, insert }] of edits.entries()) {
          const sv = Y.encodeStateVector(doc)
          doc.transact(() => {
            const from = Math.min(at, text.length)
            text.delete(from, Math.min(cut, text.length - from))
            text.insert(from, insert)
            doc.getArray('versions').push([{ id: `v${k}`, size: text.length }])
          })
          state = chainState(state, Y.encodeStateAsUpdate(doc, sv))
          expect(stateParts(state).length).toBeLessThanOrEqual(MAX_STATE_PARTS)
        }
        const whole = contentOf(Y.encodeStateAsUpdate(doc))
        expect(contentOf(state)).toEqual(whole)
        expect(contentOf(stateBytes(state))).toEqual(whole)
        doc.destroy()
      }),
      { numRuns: 60 },
    )
  })

  it('counts the bytes of its parts, merges once past MAX_STATE_PARTS, and gives the same merge again', () => {
    const doc = newDoc()
    let state: ContentState = Y.encodeStateAsUpdate(doc)
    for (let k = 0; k < MAX_STATE_PARTS - 1; k++) {
      const sv = Y.encodeStateVector(doc)
      doc.getText('text').insert(0, `${k}`)
      const before = state
      state = chainState(state, Y.encodeStateAsUpdate(doc, sv))
      expect(state.byteLength).toBe(before.byteLength + stateParts(state).at(-1)!.byteLength)
    }
    expect(stateParts(state)).toHaveLength(MAX_STATE_PARTS)
    expect(stateBytes(state)).toBe(stateBytes(state))
    const sv = Y.encodeStateVector(doc)
    doc.getText('text').insert(0, 'last ')
    const merged = chainState(state, Y.encodeStateAsUpdate(doc, sv))
    expect(merged).toBeInstanceOf(Uint8Array)
    expect(contentOf(merged).text).toBe(doc.getText('text').toString())
    doc.destroy()
  })

  it('applies a chain in one transaction, with the origin given', () => {
    const doc = newDoc()
    doc.getText('text').insert(0, 'a')
    const first = Y.encodeStateAsUpdate(doc)
    const sv = Y.encodeStateVector(doc)
    doc.getText('text').insert(1, 'b')
    const chain = chainState(first, Y.encodeStateAsUpdate(doc, sv))
    const target = newDoc()
    const origins: unknown[] = []
    target.on('afterTransaction', (tr: Y.Transaction) => origins.push(tr.origin))
    applyState(target, chain, 'server')
    expect(origins).toEqual(['server'])
    expect(target.getText('text').toString()).toBe('ab')
    doc.destroy()
    target.destroy()
  })

  it('files start their chains afresh after between half and all of MAX_STATE_PARTS parts, not all after the same number', () => {
    const chainOf = (parts: number): ContentState => ({
      parts: Array.from({ length: parts }, () => new Uint8Array(1)),
      byteLength: parts,
    })
    const limits = Array.from({ length: 200 }, (_, k) => {
      let parts = 1
      while (chainFits(`file-${k}`, chainOf(parts))) parts++
      return parts
    })
    for (const limit of limits) {
      expect(limit).toBeGreaterThanOrEqual(MAX_STATE_PARTS / 2)
      expect(limit).toBeLessThanOrEqual(MAX_STATE_PARTS)
    }
    expect(new Set(limits).size).toBeGreaterThan(MAX_STATE_PARTS / 4)
    expect(chainFits('file-0', new Uint8Array(1))).toBe(true)
  })
})
