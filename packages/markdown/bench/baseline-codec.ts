/**
 * The Markdown codec as it was before source-preserving blocks (issue 4's
 * version, commit ddc2021): CommonMark + strikethrough schema, markdown-it
 * with soft breaks kept as `\n`, prosemirror-markdown's serializer, body
 * written with `updateYFragment`. Only the benchmark uses it, as the "before"
 * side measured in the same run.
 */
import MarkdownIt from 'markdown-it'
import {
  schema as commonmark,
  defaultMarkdownParser,
  defaultMarkdownSerializer,
  MarkdownParser,
  MarkdownSerializer,
} from 'prosemirror-markdown'
import { Schema } from 'prosemirror-model'
import { updateYFragment, yXmlFragmentToProseMirrorRootNode } from 'y-prosemirror'
import type * as Y from 'yjs'

const schema = new Schema({
  nodes: commonmark.spec.nodes,
  marks: commonmark.spec.marks.addToEnd('strikethrough', { toDOM: () => ['s', 0] }),
})
const tokenizer = MarkdownIt('commonmark', { html: false }).enable('strikethrough')
tokenizer.core.ruler.push('soft_breaks', (state) => {
  for (const token of state.tokens) {
    for (const child of token.children ?? []) {
      if (child.type === 'softbreak') {
        child.type = 'text'
        child.content = '\n'
      }
    }
  }
})
const parser = new MarkdownParser(schema, tokenizer, {
  ...defaultMarkdownParser.tokens,
  s: { mark: 'strikethrough' },
})
const serializer = new MarkdownSerializer(defaultMarkdownSerializer.nodes, {
  ...defaultMarkdownSerializer.marks,
  strikethrough: { open: '~~', close: '~~', mixable: true, expelEnclosingWhitespace: true },
})

/** Write `text` (no front matter) into `doc` the old way. */
export function baselineWrite(doc: Y.Doc, text: string): void {
  const node = parser.parse(text)
  doc.transact(() =>
    updateYFragment(doc, doc.getXmlFragment('richtext'), node, { mapping: new Map(), isOMark: new Map() }),
  )
}

/** Read `doc` back the old way (normalised). */
export function baselineRead(doc: Y.Doc): string {
  const text = serializer.serialize(yXmlFragmentToProseMirrorRootNode(doc.getXmlFragment('richtext'), schema))
  return text === '' ? '' : `${text}\n`
}
