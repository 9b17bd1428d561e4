// @yfs/markdown — Markdown as rich text in yfs.

export type { FrontMatter } from './front-matter.js'
export { readFrontMatter, splitFrontMatter, stringifyFrontMatter, updateFrontMatter } from './front-matter.js'
export { FRONTMATTER_KEY, markdownCodec, RICHTEXT_KEY, readMarkdownBody } from './markdown-codec.js'
export { markdownParser, parseMarkdown } from './parse.js'
export { markdownSchema } from './schema.js'
export { markdownSerializer, serializeMarkdown } from './serialize.js'
