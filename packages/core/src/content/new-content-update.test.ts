import fc from 'fast-check'
import { expect, it } from 'vitest'
import * as Y from 'yjs'
import { listStoredVersions, readVersionContent, recordVersion } from '../history/file-history.js'
import { readBinary, writeBinary } from './binary.js'
import { contentVersionOf } from './content-versions.js'
import { encodeNewContentDoc } from './new-content-update.js'
import { textCodec } from './text-codec.js'

/** The Y.Doc path: what a new file's doc holds after its first write. */
function built(clientID: number, content: { text?: string; bytes?: Uint8Array }, ts: number) {
  const doc = new Y.Doc({ gc: false, guid: 'f' })
  doc.clientID = clientID
  const size = content.bytes
    ? content.bytes.byteLength
    : new TextEncoder().encode(content.text ?? '').byteLength
  const meta = { author: 'agent:a', reason: 'write' as const, size, codec: 'text', name: 'f.txt', ts }
  doc.transact(() => {
    if (content.bytes) writeBinary(doc, content.bytes)
    else textCodec.write(doc, content.text ?? '', 'test')
    recordVersion(doc, meta, 'test')
  }, 'test')
  return { doc, meta }
}

const contentArb = fc.oneof(
  fc.record({ text: fc.string({ unit: 'grapheme', maxLength: 300 }) }),
  fc.record({ text: fc.string({ unit: 'binary', maxLength: 50 }) }),
  fc.record({ text: fc.array(fc.string({ maxLength: 40 }), { maxLength: 30 }).map((ls) => ls.join('\n')) }),
  fc.record({ bytes: fc.uint8Array({ maxLength: 300 }) }),
)

it('encodes exactly the update of the Y.Doc path (property)', () => {
  fc.assert(
    fc.property(fc.nat({ max: 0xffffffff }), contentArb, fc.nat(), (clientID, content, ts) => {
      const { doc, meta } = built(clientID, content, ts)
      const [version] = listStoredVersions(doc)
      const mine = encodeNewContentDoc({ clientID, ...content, version: { id: version!.id, ...meta } })
      expect(mine.update).toEqual(Y.encodeStateAsUpdate(doc))
      expect(mine.sv).toBe(contentVersionOf(doc))
    }),
    { numRuns: 300 },
  )
})

it('loads as a doc whose content and first version read back', () => {
  const text = 'line one\nline two 🎉\n'
  const { update } = encodeNewContentDoc({
    clientID: 42,
    text,
    version: {
      id: 'v000000001',
      author: 'a',
      reason: 'write',
      size: 24,
      codec: 'text',
      name: 'x.txt',
      ts: 5,
    },
  })
  const doc = new Y.Doc({ gc: false })
  Y.applyUpdate(doc, update)
  expect(textCodec.read(doc)).toBe(text)
  const [v] = listStoredVersions(doc)
  expect(v).toMatchObject({ id: 'v000000001', binary: false, size: 24, ts: 5 })
  expect(readVersionContent(doc, v!, [textCodec]).text).toBe(text)

  const bin = encodeNewContentDoc({
    clientID: 7,
    bytes: new Uint8Array([0, 1, 255]),
    version: { id: 'v000000002', author: 'a', reason: 'write', size: 3, codec: 'text', name: 'b.bin', ts: 6 },
  })
  const bdoc = new Y.Doc({ gc: false })
  Y.applyUpdate(bdoc, bin.update)
  expect([...readBinary(bdoc)!]).toEqual([0, 1, 255])
  expect(listStoredVersions(bdoc)[0]).toMatchObject({ binary: true })
})
