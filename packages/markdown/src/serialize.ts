/**
 * ProseMirror document → Markdown text, the mirror of parse.ts. The output
 * ends with one newline when the document is not empty, like a file on disk.
 *
 * Bullets are `-` (what most authors and agents write). Adjacent lists of the
 * same kind alternate their markers (`-`/`*`, `.`/`)`):
 * with one marker, CommonMark would read them back as a single list.
 */
import {
  defaultMarkdownSerializer,
  MarkdownSerializer,
  type MarkdownSerializerState,
} from 'prosemirror-markdown'
import type { Node } from 'prosemirror-model'

/** True when an odd number of lists of `type` directly precede child `index` of `parent`. */
function afterSameList(parent: Node, index: number, type: string): boolean {
  let n = 0
  for (let i = index - 1; i >= 0 && parent.child(i).type.name === type; i--) n++
  return n % 2 === 1
}

export const markdownSerializer = new MarkdownSerializer(
  {
    ...defaultMarkdownSerializer.nodes,
    bullet_list(state: MarkdownSerializerState, node: Node, parent: Node, index: number) {
      const bullet = afterSameList(parent, index, 'bullet_list') ? '*' : '-'
      state.renderList(node, '  ', () => `${bullet} `)
    },
    ordered_list(state: MarkdownSerializerState, node: Node, parent: Node, index: number) {
      const delim = afterSameList(parent, index, 'ordered_list') ? ')' : '.'
      const start: number = node.attrs.order ?? 1
      const width = String(start + node.childCount - 1).length
      state.renderList(node, ' '.repeat(width + 2), (i) => {
        const n = String(start + i)
        return `${' '.repeat(width - n.length)}${n}${delim} `
      })
    },
  },
  {
    ...defaultMarkdownSerializer.marks,
    strikethrough: { open: '~~', close: '~~', mixable: true, expelEnclosingWhitespace: true },
  },
)

/** Serialise a document of `markdownSchema` to Markdown. */
export function serializeMarkdown(doc: Node): string {
  const text = markdownSerializer.serialize(doc)
  return text === '' ? '' : `${text}\n`
}
