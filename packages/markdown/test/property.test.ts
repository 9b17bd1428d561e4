/**
 * Property: random Markdown built from the schema's constructs reads back
 * byte-identical through the codec, and its normalised form re-parses to the
 * same document and is a fixed point.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { yXmlFragmentToProseMirrorRootNode } from 'y-prosemirror'
import * as Y from 'yjs'
import {
  fingerprint,
  markdownCodec,
  markdownSchema,
  parseMarkdown,
  RICHTEXT_KEY,
  serializeBlocks,
  serializeNormalized,
  splitFrontMatter,
} from '../src/index.js'
import { joinBlocks, markdownBlock, markdownBlocks, markdownDocument } from './markdown-arbitrary.js'

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

  it('an agent rewriting one block writes what a full parse would give (incremental parse)', () => {
    const edit = fc.record({
      blocks: markdownBlocks,
      at: fc.nat(8),
      kind: fc.constantFrom('replace', 'insert', 'delete', 'append'),
      block: markdownBlock,
      end: fc.constantFrom('\n', ''),
    })
    fc.assert(
      fc.property(edit, ({ blocks, at, kind, block, end }) => {
        const before = joinBlocks(blocks, end)
        const next = [...blocks]
        const i = at % next.length
        if (kind === 'replace') next[i] = block
        else if (kind === 'insert') next.splice(i, 0, block)
        else if (kind === 'delete' && next.length > 1) next.splice(i, 1)
        else next.push(block)
        const after = joinBlocks(next, end)
        const doc = new Y.Doc()
        markdownCodec.write(doc, before)
        markdownCodec.write(doc, after)
        expect(markdownCodec.read(doc)).toBe(after)
        const tree = yXmlFragmentToProseMirrorRootNode(doc.getXmlFragment(RICHTEXT_KEY), markdownSchema)
        const full = parseMarkdown(splitFrontMatter(after).body) // `---` blocks at the top can be front matter
        expect(tree.childCount).toBe(full.childCount)
        expect(serializeBlocks(tree)).toEqual(serializeBlocks(full))
        full.forEach((c, _, k) => {
          expect(fingerprint(tree.child(k))).toBe(fingerprint(c))
        })
      }),
      { numRuns: 400, seed: SEED },
    )
  }, 120_000)
})
