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
} from '../src/index.js'
import { loadCorpus } from './corpus.js'

const corpus = loadCorpus()
const emptyMeta = () => ({ mapping: new Map(), isOMark: new Map() })

const write = (text: string) => {
  const doc = new Y.Doc({ gc: false })
  markdownCodec.write(doc, text)
  return doc
}

// First top-level paragraph with text: its index.
const editable = (pm: Node) => {
  for (let i = 0; i < pm.childCount; i++) {
    const c = pm.child(i)
    if (c.type.name === 'paragraph' && c.textContent.trim() !== '') return i
  }
  return -1
}

describe('corpus', () => {
  it('is the real one: hundreds of documents from node_modules plus the docs', () => {
    expect(corpus.filter((d) => d.name.startsWith('node_modules/')).length).toBeGreaterThanOrEqual(200)
    expect(corpus.some((d) => d.name === 'docs/markdown.md')).toBe(true)
  })

  it.each(corpus.map((d) => [d.name, d.text] as const))('%s reads back byte-identical', (_name, text) => {
    expect(markdownCodec.read(write(text))).toBe(text)
  })

  it.each(corpus.map((d) => [d.name, d.text] as const))(
    '%s: a person edits one paragraph, only it changes, and the output is a fixed point',
    (_name, text) => {
      const doc = write(text)
      const fragment = doc.getXmlFragment(RICHTEXT_KEY)
      const before = yXmlFragmentToProseMirrorRootNode(fragment, markdownSchema)
      const k = editable(before)
      if (k === -1) return // no top-level paragraph with text: listed in docs/markdown.md
      let pos = 0
      for (let i = 0; i < k; i++) pos += before.child(i).nodeSize
      const end = pos + before.child(k).nodeSize - 1
      const state = EditorState.create({ doc: before })
      const edited = state.apply(state.tr.insertText(' EDITED by a person', end)).doc
      updateYFragment(doc, fragment, edited, emptyMeta())

      const out = markdownCodec.read(doc)
      // The front matter block (kept verbatim) comes before the body's blocks.
      const front = (doc.getMap<string>(MARKDOWN_META_KEY).get('frontMatterSource') ?? '').length
      const sources: string[] = []
      before.forEach((c) => {
        sources.push(c.attrs.mdSource)
      })
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
