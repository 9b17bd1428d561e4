/**
 * Fidelity over the corpus (test/corpus.ts: every README.md and CHANGELOG.md
 * in node_modules plus the project's own Markdown):
 * - what is written through the codec reads back byte-identical;
 * - a person's edit of one paragraph, made the way the web editor makes it
 *   (a ProseMirror transaction applied to the fragment with y-prosemirror's
 *   `updateYFragment`, as its sync plugin does), changes the read-back only
 *   in that paragraph, and the output re-parses to the edited document and
 *   reads back unchanged when written again.
 */

import type { Node } from 'prosemirror-model'
import { EditorState } from 'prosemirror-state'
import { describe, expect, it } from 'vitest'
import { updateYFragment, yXmlFragmentToProseMirrorRootNode } from 'y-prosemirror'
import * as Y from 'yjs'
import {
  fingerprint,
  MARKDOWN_META_KEY,
  markdownCodec,
  markdownSchema,
  parseMarkdown,
  RICHTEXT_KEY,
  serializeBlocks,
} from '../src/index.js'
import { loadCorpus } from './corpus.js'

const corpus = loadCorpus()
const emptyMeta = () => ({ mapping: new Map(), isOMark: new Map() })

const write = (text: string) => {
  const doc = new Y.Doc({ gc: false })
  markdownCodec.write(doc, text)
  return doc
}

// The paragraph a person edits: the first top-level one with text, else the first nested one, else
// (documents of headings, tables or HTML only) the first text block of any kind.
// Returns the top-level block index and the position at the end of the paragraph's content.
const editable = (pm: Node): { block: number; end: number } | undefined => {
  let pos = 0
  for (let i = 0; i < pm.childCount; i++) {
    const c = pm.child(i)
    if (c.type.name === 'paragraph' && c.textContent.trim() !== '')
      return { block: i, end: pos + c.nodeSize - 1 }
    pos += c.nodeSize
  }
  for (const kind of [(n: Node) => n.type.name === 'paragraph', (n: Node) => n.isTextblock]) {
    let found: { block: number; end: number } | undefined
    pm.descendants((node, p) => {
      if (found) return false
      if (kind(node) && node.textContent.trim() !== '') {
        found = { block: pm.resolve(p).index(0), end: p + node.nodeSize - 1 }
        return false
      }
      return true
    })
    if (found) return found
  }
  return undefined
}

describe('corpus', () => {
  it('is the real one: hundreds of documents from node_modules plus the docs', () => {
    expect(corpus.filter((d) => d.name.startsWith('node_modules/')).length).toBeGreaterThanOrEqual(200)
    expect(corpus.some((d) => d.name === 'docs/markdown.md')).toBe(true)
  })

  it.each(corpus.map((d) => [d.name, d.text] as const))('%s reads back byte-identical', (_name, text) => {
    expect(markdownCodec.read(write(text))).toBe(text)
  })

  // Documents up to 128 KiB (all but a handful of changelogs): a 337 KB one (ai's CHANGELOG.md)
  // takes 10–20 s here, in the editor binding's update of the whole fragment, and exercises
  // nothing the others do not; it still reads back byte-identical above.
  const editable_ = corpus.filter((d) => d.text.length <= 128 * 1024)
  it('edits most of the corpus', () => {
    expect(editable_.length).toBeGreaterThanOrEqual(corpus.length - 10)
  })

  it.each(editable_.map((d) => [d.name, d.text] as const))(
    '%s: a person edits one paragraph, only it changes, and the output is a fixed point',
    (_name, text) => {
      const doc = write(text)
      const fragment = doc.getXmlFragment(RICHTEXT_KEY)
      const before = yXmlFragmentToProseMirrorRootNode(fragment, markdownSchema)
      const target = editable(before)
      expect(target).toBeDefined()
      const { block: k, end } = target!
      const state = EditorState.create({ doc: before })
      const edited = state.apply(state.tr.insertText(' EDITED by a person', end)).doc
      updateYFragment(doc, fragment, edited, emptyMeta())

      const out = markdownCodec.read(doc)
      // The front matter block (kept verbatim) comes before the body's blocks.
      const front = (doc.getMap<string>(MARKDOWN_META_KEY).get('frontMatterSource') ?? '').length
      const sources = serializeBlocks(before)
      expect(sources.join('')).toBe(text.slice(front))
      const head = text.slice(0, front) + sources.slice(0, k).join('')
      const tail = sources.slice(k + 1).join('')
      expect(out.startsWith(head)).toBe(true)
      expect(out.endsWith(tail)).toBe(true)
      const middle = out.slice(head.length, out.length - tail.length)
      expect(middle).toContain('EDITED by a person')
      expect(parseMarkdown(middle).childCount).toBe(1)

      // Re-parsing the output gives the edited document, and it reads back as itself.
      const again = parseMarkdown(out.slice(front))
      expect(again.childCount).toBe(edited.childCount)
      again.forEach((c, _, i) => {
        expect(fingerprint(c)).toBe(fingerprint(edited.child(i)))
      })
      expect(markdownCodec.read(write(out))).toBe(out)
    },
  )
})
