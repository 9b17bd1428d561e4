import fc from 'fast-check'
import { expect, it } from 'vitest'
import * as Y from 'yjs'
import { listStoredVersions, readVersionContent, recordVersion } from '../history/file-history.js'
import { readBinary, writeBinary } from './binary.js'
import { contentVersionOf } from './content-versions.js'
import { encodeNewContentDoc } from './new-content-update.js'
import { textCodec } from './text-codec.js'

/** The Y.Doc path: what a new file's doc holds after its first write. */
function built(
  clientID: number,
  content: { text?: string; bytes?: Uint8Array },
  ts: number,
  who: { author: string; name: string } = { author: 'agent:a', name: 'f.txt' },
) {
  const doc = new Y.Doc({ gc: false, guid: 'f' })
  doc.clientID = clientID
  const size = content.bytes
    ? content.bytes.byteLength
    : new TextEncoder().encode(content.text ?? '').byteLength
  const meta = { author: who.author, reason: 'write' as const, size, codec: 'text', name: who.name, ts }
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

// Timestamps as lib0 writes them: small integers as varInts, then float32-exact ones, then
// float64 (a clock's milliseconds since 1970, ~1.7e12, are above 2^31).
const tsArb = fc.oneof(
  fc.nat(),
  fc.integer({ min: 2 ** 31 - 2, max: Number.MAX_SAFE_INTEGER }),
  fc.integer({ min: 1_600_000_000_000, max: 2_100_000_000_000 }),
  fc.integer({ min: 12_000_000, max: 16_000_000 }).map((n) => n * 131_072),
)
// Names and authors: short and long (past a one-byte length), any Unicode.
const nameArb = fc.oneof(
  fc.string({ minLength: 1, maxLength: 10 }),
  fc.string({ unit: 'grapheme', maxLength: 120 }),
)

it('encodes exactly the update of the Y.Doc path (property)', () => {
  fc.assert(
    fc.property(
      fc.nat({ max: 0xffffffff }),
      contentArb,
      tsArb,
      fc.record({ author: nameArb, name: nameArb }),
      (clientID, content, ts, who) => {
        const { doc, meta } = built(clientID, content, ts, who)
        const [version] = listStoredVersions(doc)
        const mine = encodeNewContentDoc({ clientID, ...content, version: { id: version!.id, ...meta } })
        expect(mine.update).toEqual(Y.encodeStateAsUpdate(doc))
        expect(mine.sv).toBe(contentVersionOf(doc))
        expect(new Map([[clientID, mine.clock]])).toEqual(Y.decodeStateVector(Y.encodeStateVector(doc)))
      },
    ),
    { numRuns: 500 },
  )
})

it('encodes large content as the Y.Doc path does, and small content right after it', () => {
  // Past the reused buffer's first size (4 KiB) and past what it keeps between calls (1 MiB).
  const big = 'line ✓\n'.repeat(150_000)
  const bytes = new Uint8Array(70_000).map((_, i) => i % 251)
  for (const content of [{ text: big }, { bytes }, { text: 'small\n' }]) {
    const { doc, meta } = built(7, content, 1_764_000_000_000)
    const [version] = listStoredVersions(doc)
    const mine = encodeNewContentDoc({ clientID: 7, ...content, version: { id: version!.id, ...meta } })
    // Compared as buffers: an element-by-element diff of megabytes takes the test runner minutes.
    expect(Buffer.from(mine.update).equals(Buffer.from(Y.encodeStateAsUpdate(doc)))).toBe(true)
  }
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
