/**
 * The one ProseMirror schema for Markdown in yfs: CommonMark (from
 * prosemirror-markdown) plus GFM strikethrough. The headless codec and the
 * browser editor import this module, so what one writes the other can read.
 * Parser and serializer are configured from it (parse.ts, serialize.ts),
 * never the other way round.
 */
import { schema as commonmark } from 'prosemirror-markdown'
import { Schema } from 'prosemirror-model'

export const markdownSchema: Schema = new Schema({
  nodes: commonmark.spec.nodes,
  marks: commonmark.spec.marks.addToEnd('strikethrough', {
    parseDOM: [{ tag: 's' }, { tag: 'del' }, { style: 'text-decoration=line-through' }],
    toDOM: () => ['s', 0],
  }),
})
