/**
 * Markdown text → ProseMirror document, headless (markdown-it, no DOM).
 * CommonMark plus `~~strikethrough~~`; raw HTML is kept as text.
 *
 * Soft line breaks stay line breaks (a `\n` in the text) instead of
 * becoming spaces, so wrapped prose, GFM tables and HTML blocks — which this
 * schema has no nodes for — keep their lines through a round trip.
 */
import MarkdownIt from 'markdown-it'
import { defaultMarkdownParser, MarkdownParser } from 'prosemirror-markdown'
import type { Node } from 'prosemirror-model'
import { markdownSchema } from './schema.js'

const tokenizer = MarkdownIt('commonmark', { html: false }).enable('strikethrough')
tokenizer.core.ruler.push('yfs_keep_soft_breaks', (state) => {
  for (const token of state.tokens) {
    for (const child of token.children ?? []) {
      if (child.type === 'softbreak') {
        child.type = 'text'
        child.content = '\n'
      }
    }
  }
})

export const markdownParser = new MarkdownParser(markdownSchema, tokenizer, {
  ...defaultMarkdownParser.tokens,
  s: { mark: 'strikethrough' },
})

/** Parse a Markdown body (no front matter) into a document of `markdownSchema`. */
export function parseMarkdown(text: string): Node {
  return markdownParser.parse(text)
}
