/**
 * The `ContentCodec` contract: what the filesystem relies on from every
 * codec, as fast-check properties over texts the codec stores exactly
 * (`texts`). Run on the text and Markdown codecs, and on binary storage
 * through `binaryAsCodec` (bytes shown as Latin-1 text), so the three kinds
 * of content answer to one set of rules:
 *
 * - `read` after `write` gives the text back; writing what is there changes
 *   nothing (no update, no event), and `write` with `current` equals `write`;
 * - the doc's state carries the content (a fresh doc loaded from it reads the same);
 * - `hasContent` is false on an empty doc, true once non-empty text is written;
 * - `observe` reports each change with its origin, and stops when unsubscribed;
 * - two docs that write different texts concurrently read the same after exchanging updates;
 * - the three-way merge (`merge`, else core's line merge) keeps the untouched side's changes.
 */
import fc from 'fast-check'
import * as Y from 'yjs'
import { clearBinary, observeBinary, readBinary, writeBinary } from '../content/binary.js'
import type { ContentCodec } from '../content/codec.js'
import { mergeText } from '../content/three-way-merge.js'

export interface CodecCase {
  name: string
  /** Throws (fast-check's report) when the property fails. */
  run(): void
}

function check(ok: boolean, message: string): void {
  if (!ok) throw new Error(`codec contract: ${message}`)
}

/** Binary storage in the codec's shape: each byte a Latin-1 character (for the contract only). */
export const binaryAsCodec: ContentCodec = {
  id: 'binary',
  matches: () => false,
  read: (doc) => String.fromCharCode(...(readBinary(doc) ?? [])),
  write(doc, text, origin) {
    const bytes = Uint8Array.from(text, (c) => c.charCodeAt(0))
    const now = readBinary(doc) ?? new Uint8Array()
    if (now.length === bytes.length && now.every((b, i) => b === bytes[i])) return
    doc.transact(() => (bytes.length ? writeBinary(doc, bytes) : clearBinary(doc)), origin)
  },
  hasContent: (doc) => (readBinary(doc)?.length ?? 0) > 0,
  observe: observeBinary,
}

/** Latin-1 strings: every byte value, as `binaryAsCodec` stores them. */
export const latin1Texts: fc.Arbitrary<string> = fc
  .uint8Array({ maxLength: 300 })
  .map((bytes) => String.fromCharCode(...bytes))

const exchange = (a: Y.Doc, b: Y.Doc) => {
  const fromA = Y.encodeStateAsUpdate(a, Y.encodeStateVector(b))
  const fromB = Y.encodeStateAsUpdate(b, Y.encodeStateVector(a))
  Y.applyUpdate(b, fromA)
  Y.applyUpdate(a, fromB)
}

export function codecContract(codec: ContentCodec, texts: fc.Arbitrary<string>, numRuns = 100): CodecCase[] {
  const assert = <T>(arb: fc.Arbitrary<T>, body: (value: T) => void) =>
    fc.assert(fc.property(arb, body), { numRuns })
  return [
    {
      name: 'reads back what it wrote; rewriting it changes nothing; write with current equals write',
      run: () =>
        assert(fc.tuple(texts, texts), ([first, second]) => {
          const doc = new Y.Doc()
          codec.write(doc, first)
          codec.write(doc, second)
          check(codec.read(doc) === second, `read after write: ${JSON.stringify(codec.read(doc))}`)
          let updates = 0
          doc.on('update', () => updates++)
          codec.write(doc, second)
          codec.write(doc, second, undefined, second)
          check(updates === 0, `rewriting the same text made ${updates} update(s)`)
          const other = new Y.Doc()
          codec.write(other, first)
          codec.write(other, second, undefined, first)
          check(codec.read(other) === second, 'write with current')
        }),
    },
    {
      name: "the doc's state carries the content, and hasContent says whether there is any",
      run: () =>
        assert(texts, (text) => {
          const doc = new Y.Doc()
          check(!codec.hasContent(doc), 'an empty doc has no content')
          codec.write(doc, text)
          const fresh = new Y.Doc()
          Y.applyUpdate(fresh, Y.encodeStateAsUpdate(doc))
          check(codec.read(fresh) === text, 'a doc loaded from the state reads the same')
          if (text !== '') check(codec.hasContent(doc), 'written text is content')
        }),
    },
    {
      name: 'observe reports each change with its origin, and stops when unsubscribed',
      run: () =>
        assert(
          fc.tuple(texts, texts).filter(([a, b]) => a !== b),
          ([a, b]) => {
            const doc = new Y.Doc()
            codec.write(doc, a)
            const seen: unknown[] = []
            const stop = codec.observe(doc, (origin) => seen.push(origin))
            const origin = { who: 'contract' }
            codec.write(doc, b, origin)
            check(seen.length > 0 && seen.every((o) => o === origin), `origins ${seen.length}`)
            stop()
            const before = seen.length
            codec.write(doc, a, origin)
            check(seen.length === before, 'events after unsubscribing')
          },
        ),
    },
    {
      name: 'two docs writing different texts at once read the same after exchanging updates',
      run: () =>
        assert(fc.tuple(texts, texts, texts), ([base, left, right]) => {
          const a = new Y.Doc()
          codec.write(a, base)
          const b = new Y.Doc()
          Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
          codec.write(a, left)
          codec.write(b, right)
          exchange(a, b)
          check(
            codec.read(a) === codec.read(b),
            `diverged: ${JSON.stringify([codec.read(a), codec.read(b)])}`,
          )
        }),
    },
    {
      name: 'the three-way merge keeps the side that changed, and is the identity on no change',
      run: () =>
        assert(fc.tuple(texts, texts), ([base, changed]) => {
          const merge = codec.merge ?? mergeText
          check(merge(base, base, changed).text === changed, 'theirs only')
          check(merge(base, changed, base).text === changed, 'ours only')
          check(merge(changed, changed, changed).text === changed, 'no change')
        }),
    },
  ]
}
