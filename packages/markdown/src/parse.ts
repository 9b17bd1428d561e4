/**
 * Markdown text → ProseMirror document, headless (markdown-it, no DOM).
 * CommonMark plus `~~strikethrough~~`; raw HTML is kept as text.
 */
import MarkdownIt from 'markdown-it'
import { defaultMarkdownParser, MarkdownParser } from 'prosemirror-markdown'
import type { Node } from 'prosemirror-model'
import { markdownSchema } from './schema.js'

const tokenizer = MarkdownIt('commonmark', { html: false }).enable('strikethrough')

export const markdownParser = new MarkdownParser(markdownSchema, tokenizer, {
  ...defaultMarkdownParser.tokens,
  s: { mark: 'strikethrough' },
})

/** Parse a Markdown body (no front matter) into a document of `markdownSchema`. */
export function parseMarkdown(text: string): Node {
  return markdownParser.parse(text)
}
