// Frame reading and update validation used by the socket guard and persistence.
import * as encoding from 'lib0/encoding'
import { expect, it } from 'vitest'
import * as Y from 'yjs'
import {
  isEmptyUpdate,
  isValidUpdate,
  newDocUpdateProblem,
  readFrameHeader,
  readHocuspocusUpdate,
} from './sync-message.js'

function frame(docName: string, type: number, syncType?: number, payload?: Uint8Array): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarString(e, docName)
  encoding.writeVarUint(e, type)
  if (syncType !== undefined) encoding.writeVarUint(e, syncType)
  if (payload) encoding.writeVarUint8Array(e, payload)
  return encoding.toUint8Array(e)
}

it('reads the header and the update of sync step 2 and update frames', () => {
  const doc = new Y.Doc()
  doc.getText('t').insert(0, 'x')
  const update = Y.encodeStateAsUpdate(doc)
  expect(readFrameHeader(frame('w/f', 0, 2, update))).toEqual({ docName: 'w/f', type: 0 })
  expect(readHocuspocusUpdate(frame('w', 0, 2, update))).toEqual(update)
  expect(readHocuspocusUpdate(frame('w', 0, 1, update))).toEqual(update)
  expect(readHocuspocusUpdate(frame('w', 4, 2, update))).toEqual(update)
  // Sync step 1 carries a state vector, awareness is not a doc update.
  expect(readHocuspocusUpdate(frame('w', 0, 0, Y.encodeStateVector(doc)))).toBeUndefined()
  expect(readHocuspocusUpdate(frame('w', 1, undefined, new Uint8Array([0])))).toBeUndefined()
  expect(() => readHocuspocusUpdate(new Uint8Array([1, 0x77, 0, 2, 50]))).toThrow()
})

it('validates updates', () => {
  const doc = new Y.Doc()
  doc.getMap('m').set('k', 'v')
  expect(isValidUpdate(Y.encodeStateAsUpdate(doc))).toBe(true)
  expect(isValidUpdate(Y.encodeStateAsUpdate(new Y.Doc()))).toBe(true)
  expect(isValidUpdate(new Uint8Array([0xff, 0xff, 0xff]))).toBe(false)
  expect(isValidUpdate(new Uint8Array([]))).toBe(false)
  expect(isEmptyUpdate(Y.encodeStateAsUpdate(new Y.Doc()))).toBe(true)
  expect(isEmptyUpdate(Y.encodeStateAsUpdate(doc))).toBe(false)
})

it("a new document's update must carry everything it depends on", () => {
  const doc = new Y.Doc({ gc: false })
  doc.getText('t').insert(0, 'first ')
  const first = Y.encodeStateAsUpdate(doc)
  const before = Y.encodeStateVector(doc)
  doc.getText('t').insert(6, 'second')
  const tail = Y.encodeStateAsUpdate(doc, before)
  const deleteOnly = (() => {
    const sv = Y.encodeStateVector(doc)
    doc.getText('t').delete(0, 3)
    return Y.encodeStateAsUpdate(doc, sv)
  })()
  expect(newDocUpdateProblem(first)).toBeUndefined()
  expect(newDocUpdateProblem(Y.encodeStateAsUpdate(doc))).toBeUndefined()
  // Valid updates, but not the first update of a doc: they build on `first`.
  expect(isValidUpdate(tail)).toBe(true)
  expect(newDocUpdateProblem(tail)).toBe('depends on changes it does not carry')
  expect(isValidUpdate(deleteOnly)).toBe(true)
  expect(newDocUpdateProblem(deleteOnly)).toBe('depends on changes it does not carry')
  expect(newDocUpdateProblem(new Uint8Array([0xff, 0xff, 0xff]))).toBe('not a Yjs update')
  expect(newDocUpdateProblem(first.subarray(0, first.byteLength - 4))).toBe('not a Yjs update')
})
