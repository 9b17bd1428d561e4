/**
 * The cases of issue 12, one test each: what an agent writes reads back as
 * written and the editor sees the structure; after a person edits the block
 * (y-prosemirror's `updateYFragment`, as the editor's sync plugin applies
 * it), the normalised form keeps the meaning and is a fixed point.
 */
import type { Node } from 'prosemirror-model'
import { EditorState, type Transaction } from 'prosemirror-state'
import { describe, expect, it } from 'vitest'
import { updateYFragment, yXmlFragmentToProseMirrorRootNode } from 'y-prosemirror'
import * as Y from 'yjs'
import {
  fingerprint,
  markdownCodec,
  markdownSchema,
  parseMarkdown,
  RICHTEXT_KEY,
  serializeMarkdown,
} from '../src/index.js'

const write = (text: string) => {
  const doc = new Y.Doc()
  markdownCodec.write(doc, text)
  return doc
}
const tree = (doc: Y.Doc) =>
  yXmlFragmentToProseMirrorRootNode(doc.getXmlFragment(RICHTEXT_KEY), markdownSchema)

/** A person's edit in the rich-text editor: a ProseMirror transaction synced into the fragment. */
function personEdits(doc: Y.Doc, edit: (state: EditorState) => Transaction): void {
  const state = EditorState.create({ doc: tree(doc) })
  updateYFragment(doc, doc.getXmlFragment(RICHTEXT_KEY), state.apply(edit(state)).doc, {
    mapping: new Map(),
    isOMark: new Map(),
  })
}

/** Position just inside the end of the first node named `type` whose text contains `text`. */
function endOf(doc: Node, type: string, text = ''): number {
  let at = -1
  doc.descendants((node, pos) => {
    if (at === -1 && node.type.name === type && node.textContent.includes(text)) at = pos + node.nodeSize - 1
    return at === -1
  })
  if (at === -1) throw new RangeError(`no ${type} with ${text}`)
  return at
}

const types = (doc: Node) => {
  const out: string[] = []
  doc.descendants((n) => {
    out.push(n.type.name)
  })
  return out
}

/** The output re-parses to the same blocks and serialises to itself. */
function expectFixedPoint(out: string): void {
  const again = parseMarkdown(out)
  expect(serializeMarkdown(again)).toBe(out)
  const twice = parseMarkdown(markdownCodec.read(write(out)))
  again.forEach((c, _, i) => {
    expect(fingerprint(twice.child(i))).toBe(fingerprint(c))
  })
}

/** Edit the first paragraph containing `text` by appending `suffix`; returns the read-back. */
function editParagraph(doc: Y.Doc, text: string, suffix = ' (edited)'): string {
  personEdits(doc, (s) => s.tr.insertText(suffix, endOf(s.doc, 'paragraph', text)))
  const out = markdownCodec.read(doc)
  expectFixedPoint(out)
  return out
}

describe('issue 12 cases', () => {
  it('a GFM task list stays a task list (not escaped text) and grep finds `[ ]`', () => {
    const text = '- [ ] task\n- [x] done\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    expect(/\[ \]/.test(markdownCodec.read(doc))).toBe(true)
    const items: unknown[] = []
    tree(doc).descendants((n) => {
      if (n.type.name === 'list_item') items.push(n.attrs.checked)
    })
    expect(items).toEqual([false, true])
    expect(editParagraph(doc, 'task')).toBe('- [ ] task (edited)\n- [x] done\n')
  })

  it('escaped HTML stays escaped: `&lt;div&gt;` never becomes a live `<div>`', () => {
    const text = '&lt;div&gt; is a tag\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    expect(types(tree(doc))).not.toContain('html_inline')
    const out = editParagraph(doc, 'tag')
    expect(out).toBe('&lt;div> is a tag (edited)\n')
    expect(types(parseMarkdown(out))).not.toContain('html_inline')
  })

  it('a linked image (a README badge) keeps its link, also after an edit', () => {
    const text = '[![build](https://ci.example/badge.svg)](https://ci.example/run) Build status\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    const image = tree(doc).firstChild!.firstChild!
    expect(image.type.name).toBe('image')
    expect(image.attrs.href).toBe('https://ci.example/run')
    expect(editParagraph(doc, 'Build')).toBe(
      '[![build](https://ci.example/badge.svg)](https://ci.example/run) Build status (edited)\n',
    )
  })

  it('a footnote reference and its definition stay footnotes', () => {
    const text = 'A claim[^1].\n\n[^1]: The source.\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    expect(types(tree(doc))).toEqual(expect.arrayContaining(['footnote_ref', 'footnote_definition']))
    expect(editParagraph(doc, 'claim')).toBe('A claim[^1]. (edited)\n\n[^1]: The source.\n')
    personEdits(doc, (s) => s.tr.insertText(' More.', endOf(s.doc, 'paragraph', 'source')))
    expect(markdownCodec.read(doc)).toBe('A claim[^1]. (edited)\n\n[^1]: The source. More.\n')
  })

  it('reference-style links and their definitions are kept as written', () => {
    const text = 'See [the docs][docs] and [docs].\n\n[docs]: https://example.com/docs "Docs"\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    const def = tree(doc).lastChild!
    expect(def.type.name).toBe('link_definition')
    expect(def.attrs).toMatchObject({ label: 'docs', href: 'https://example.com/docs', title: 'Docs' })
    // The edited paragraph is normalised (inline links, same targets); the definition stays.
    const out = editParagraph(doc, 'See')
    expect(out.endsWith('\n\n[docs]: https://example.com/docs "Docs"\n')).toBe(true)
  })

  it('setext headings, `*`/`_`/`+` choices and two-space hard breaks are kept', () => {
    const text = 'Title\n=====\n\n+ one\n+ two\n\n_em_ and __strong__ and *em*  \nnext line\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    // Editing the heading leaves the list and the paragraph byte for byte.
    personEdits(doc, (s) => s.tr.insertText('!', endOf(s.doc, 'heading')))
    expect(markdownCodec.read(doc)).toBe(
      '# Title!\n\n+ one\n+ two\n\n_em_ and __strong__ and *em*  \nnext line\n',
    )
  })

  it('a line starting with `+ ` after a soft break is escaped when normalised, so it never turns into a list', () => {
    const text = 'first line\n\\+ not a list\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    const out = editParagraph(doc, 'first')
    expect(out).toBe('first line\n\\+ not a list (edited)\n')
    expect(types(parseMarkdown(out))).not.toContain('bullet_list')
    // Text a person types at a line start is escaped too.
    personEdits(doc, (s) => s.tr.insertText('\n- dash\n# hash\n1. one\n> quote', endOf(s.doc, 'paragraph')))
    const typed = markdownCodec.read(doc)
    expectFixedPoint(typed)
    expect(types(parseMarkdown(typed))).toEqual(['paragraph', 'text'])
  })

  it('blank lines in a fenced code block in a list item gain no indentation, and the code reads back as written', () => {
    const text = '- item\n\n  ```sh\n  a\n\n  b\n  ```\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    const out = editParagraph(doc, 'item')
    expect(out).toBe('- item (edited)\n\n  ```sh\n  a\n\n  b\n  ```\n')
    let code = ''
    parseMarkdown(out).descendants((n) => {
      if (n.type.name === 'code_block') code = n.textContent
    })
    expect(code).toBe('a\n\nb')
  })

  it('a GFM table is a table node the editor can show, and stays a table after a cell edit', () => {
    const text = '| Name | Size |\n|:-----|-----:|\n| a | 1 |\n| b | 22 |\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    const table = tree(doc).firstChild!
    expect(table.type.name).toBe('table')
    expect(table.childCount).toBe(3)
    expect(table.firstChild!.firstChild!.type.name).toBe('table_header')
    expect(table.firstChild!.child(1).attrs.align).toBe('right')
    personEdits(doc, (s) => s.tr.insertText(' | x', endOf(s.doc, 'table_cell', '22')))
    const out = markdownCodec.read(doc)
    expect(out).toBe('| Name | Size |\n| :-- | --: |\n| a | 1 |\n| b | 22 \\| x |\n')
    expectFixedPoint(out)
  })

  it('HTML blocks and inline HTML are kept verbatim and render as inert source text', () => {
    const text = '<div align="center">\n  <img src="x.png">\n</div>\n\nSome <kbd>Ctrl</kbd> text\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    const pm = tree(doc)
    expect(pm.firstChild!.type.name).toBe('html_block')
    const spec = markdownSchema.nodes.html_block!.spec.toDOM!(pm.firstChild!)
    expect((spec as readonly unknown[])[0]).toBe('pre')
    const inline = pm.child(1).child(1)
    expect(inline.type.name).toBe('html_inline')
    expect(markdownSchema.nodes.html_inline!.spec.toDOM!(inline)).toEqual([
      'code',
      { 'data-md-html': '', class: 'md-html-inline' },
      '<kbd>',
    ])
    expect(editParagraph(doc, 'Some')).toBe(
      '<div align="center">\n  <img src="x.png">\n</div>\n\nSome <kbd>Ctrl</kbd> text (edited)\n',
    )
  })

  it('front matter comes back as written until its data changes', () => {
    const text = '---\n# comment\ntitle: "Plan"\ndate: 2026-02-09\ntags: [a, b]\n---\nBody\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    doc.getMap('frontmatter').set('title', 'New')
    expect(markdownCodec.read(doc)).toBe(
      '---\ndate: 2026-02-09\ntags:\n  - a\n  - b\ntitle: New\n---\nBody\n',
    )
  })

  it('a block a person deleted does not glue its neighbours together', () => {
    const text = 'para one\n# Heading\npara two\n'
    const doc = write(text)
    expect(markdownCodec.read(doc)).toBe(text)
    personEdits(doc, (s) => {
      const h = s.doc.child(0).nodeSize
      return s.tr.delete(h, h + s.doc.child(1).nodeSize)
    })
    const out = markdownCodec.read(doc)
    expect(out).toBe('para one\n\npara two\n')
    expect(parseMarkdown(out).childCount).toBe(2)
  })

  it('two lists a person brings together stay two lists', () => {
    const text = '- a\n- b\n\nbetween\n\n- c\n'
    const doc = write(text)
    personEdits(doc, (s) => {
      const from = s.doc.child(0).nodeSize
      return s.tr.delete(from, from + s.doc.child(1).nodeSize)
    })
    const out = markdownCodec.read(doc)
    expect(parseMarkdown(out).childCount).toBe(2)
    expectFixedPoint(out)
  })
})
