// @yfs/markdown — Markdown as rich text in yfs.

export { fingerprint, hashString } from './fingerprint.js'
export type { FrontMatter } from './front-matter.js'
export { readFrontMatter, splitFrontMatter, stringifyFrontMatter, updateFrontMatter } from './front-matter.js'
export {
  FRONTMATTER_KEY,
  MARKDOWN_META_KEY,
  markdownCodec,
  RICHTEXT_KEY,
  readFrontMatterText,
  readMarkdownBody,
} from './markdown-codec.js'
export { markdownBlocks, mergeMarkdown } from './markdown-merge.js'
export { markdownParser, type ParseContext, parseMarkdown, tokenizer as markdownTokenizer } from './parse.js'
export { markdownSchema, SOURCE_ATTRS, safeUrl } from './schema.js'
export {
  hasCurrentSource,
  markdownSerializer,
  serializeBlocks,
  serializeMarkdown,
  serializeNormalized,
} from './serialize.js'
