/**
 * Property: random Markdown built from the schema's constructs reads back
 * byte-identical through the codec, and its normalised form re-parses to the
 * same document and is a fixed point.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { fingerprint, markdownCodec, parseMarkdown, serializeNormalized } from '../src/index.js'
import { markdownDocument } from './markdown-arbitrary.js'

const SEED = 12

describe('random Markdown from the schema constructs', () => {
  it('reads back byte-identical', () => {
    fc.assert(
      fc.property(markdownDocument, (text) => {
        const doc = new Y.Doc()
        markdownCodec.write(doc, text)
        expect(markdownCodec.read(doc)).toBe(text)
      }),
      { numRuns: 300, seed: SEED },
    )
  }, 120_000)

  it('the normalised form keeps the structure and is a fixed point', () => {
    fc.assert(
      fc.property(markdownDocument, (text) => {
        const parsed = parseMarkdown(text)
        const normal = serializeNormalized(parsed)
        const again = parseMarkdown(normal)
        const shape = (n: typeof parsed) => {
          const out: string[] = []
          n.forEach((c) => {
            out.push(fingerprint(c))
          })
          return out
        }
        expect(shape(again)).toEqual(shape(parsed))
        expect(serializeNormalized(again)).toBe(normal)
      }),
      { numRuns: 300, seed: SEED },
    )
  }, 120_000)
})
