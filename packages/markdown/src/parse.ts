/**
 * Markdown text → ProseMirror document of `markdownSchema`, headless
 * (markdown-it, no DOM): CommonMark + GFM tables, task lists, strikethrough
 * and autolinks (`linkify`, scheme or `www.` required), footnotes, raw HTML
 * kept as HTML nodes, and link reference definitions as nodes of their own.
 *
 * Every top-level block gets its source (the lines it was parsed from plus
 * the blank lines after it; the first block also takes any blank lines
 * before it) and a fingerprint of its content (see schema.ts), so the
 * concatenated sources are exactly the input text.
 *
 * Soft line breaks stay line breaks (a `\n` in the text) instead of becoming
 * spaces, so wrapped prose keeps its lines even when a block is re-serialised.
 */
import MarkdownIt, { type PluginSimple } from 'markdown-it'
import type Token from 'markdown-it/lib/token.mjs'
import footnotePlugin from 'markdown-it-footnote'
import { MarkdownParser } from 'prosemirror-markdown'
import { Fragment, type Mark, type Node } from 'prosemirror-model'
import { fingerprint, hashString } from './fingerprint.js'
import { blockRuleOf } from './internals/markdown-it.js'
import { markdownSchema } from './schema.js'
import { endsWithBlank, needsNeighbour, normalisedPiece } from './serialize.js'

/** The markdown-it instance behind `parseMarkdown` (GFM + footnotes, HTML on). */
export const tokenizer: MarkdownIt = MarkdownIt('commonmark', { html: true, linkify: true })
  .enable(['strikethrough', 'table', 'linkify'])
  // @types/markdown-it-footnote targets markdown-it's CJS typings; the plugin is the same function.
  .use(footnotePlugin as unknown as PluginSimple)
tokenizer.linkify.set({ fuzzyLink: false })
// Footnote definitions stay where they were written (the plugin moves them to the end) and `^[inline]` notes are not GFM.
tokenizer.core.ruler.disable(['footnote_tail'])
tokenizer.inline.ruler.disable(['footnote_inline'])

// Reads one definition's label, destination and title (a plain instance: no wrapped rules, no recursion).
const definitions = MarkdownIt('commonmark')

// Link reference definitions produce no token in markdown-it: emit one, so the definition is a node.
const reference = blockRuleOf(tokenizer, 'reference')
tokenizer.block.ruler.at('reference', (state, startLine, endLine, silent) => {
  if (!reference(state, startLine, endLine, silent)) return false
  if (silent) return true
  const lines: string[] = []
  for (let l = startLine; l < state.line; l++)
    lines.push(state.src.slice(state.bMarks[l]! + state.tShift[l]!, state.eMarks[l]))
  const text = lines.join('\n')
  const env: { references?: Record<string, { href: string; title: string }> } = {}
  definitions.block.parse(text, definitions, env, [])
  const parsed = Object.values(env.references ?? {})[0]
  const token = state.push('link_definition', '', 0)
  token.map = [startLine, state.line]
  token.meta = {
    label: /^\[((?:[^\\\]]|\\.)*)\]/.exec(text)?.[1] ?? '',
    href: parsed?.href ?? '',
    title: parsed?.title ? parsed.title : null,
  }
  return true
})

// The footnote plugin's definition tokens carry no line map and are not marked as block tokens: fix both.
const footnoteDef = blockRuleOf(tokenizer, 'footnote_def')
tokenizer.block.ruler.at(
  'footnote_def',
  (state, startLine, endLine, silent) => {
    const first = state.tokens.length
    if (!footnoteDef(state, startLine, endLine, silent)) return false
    const open = state.tokens[first]
    const close = state.tokens.at(-1)
    if (!silent && open && close) {
      open.map = [startLine, state.line]
      open.block = true
      close.block = true
    }
    return true
  },
  { alt: ['paragraph', 'reference'] },
)

tokenizer.core.ruler.push('yfs_soft_breaks_and_tasks', (state) => {
  const tokens = state.tokens
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!
    if (token.type === 'list_item_open') markTask(token, tokens[i + 1], tokens[i + 2])
    for (const child of token.children ?? []) {
      if (child.type === 'softbreak') {
        child.type = 'text'
        child.content = '\n'
      }
    }
  }
})

const TASK = /^\[([ xX])\](?:[ \t]+|$)/

// GFM task item: `[ ]`/`[x]` written (not escaped) at the start of the item's first paragraph.
function markTask(item: Token, open: Token | undefined, inline: Token | undefined): void {
  if (open?.type !== 'paragraph_open' || inline?.type !== 'inline' || !TASK.test(inline.content)) return
  const first = inline.children?.[0]
  const m = first?.type === 'text' ? TASK.exec(first.content) : null
  if (!first || !m) return
  first.content = first.content.slice(m[0].length)
  if (first.content === '') inline.children!.shift()
  item.meta = { ...item.meta, checked: m[1] !== ' ' }
}

const listIsTight = (tokens: Token[], i: number) => {
  while (++i < tokens.length) if (tokens[i]!.type !== 'list_item_open') return tokens[i]!.hidden
  return false
}

const cellAttrs = (tok: Token) => {
  const align = /text-align:\s*(left|center|right)/.exec(tok.attrGet('style') ?? '')?.[1]
  return { align: align ?? null }
}

// The tokenizer as prosemirror-markdown sees it: also leaves the tokens in the env, for the source map.
const recordingTokenizer = {
  parse(text: string, env: { tokens?: Token[] }): Token[] {
    const tokens = tokenizer.parse(text, env)
    env.tokens = tokens
    return tokens
  },
}

/** Token → node mapping (prosemirror-markdown's `MarkdownParser`); use `parseMarkdown` for source-preserving parses. */
export const markdownParser: MarkdownParser = new MarkdownParser(
  markdownSchema,
  recordingTokenizer as unknown as MarkdownIt,
  {
    blockquote: { block: 'blockquote' },
    paragraph: { block: 'paragraph' },
    list_item: { block: 'list_item', getAttrs: (tok) => ({ checked: tok.meta?.checked ?? null }) },
    bullet_list: {
      block: 'bullet_list',
      getAttrs: (tok, tokens, i) => ({ tight: listIsTight(tokens, i), bullet: tok.markup || null }),
    },
    ordered_list: {
      block: 'ordered_list',
      getAttrs: (tok, tokens, i) => ({
        order: +(tok.attrGet('start') ?? 1),
        tight: listIsTight(tokens, i),
        delimiter: tok.markup || null,
      }),
    },
    heading: { block: 'heading', getAttrs: (tok) => ({ level: +tok.tag.slice(1) }) },
    code_block: { block: 'code_block', noCloseToken: true },
    fence: { block: 'code_block', getAttrs: (tok) => ({ params: tok.info || '' }), noCloseToken: true },
    html_block: { block: 'html_block', noCloseToken: true },
    hr: { node: 'horizontal_rule', getAttrs: (tok) => ({ markup: tok.markup || null }) },
    table: { block: 'table' },
    thead: { ignore: true },
    tbody: { ignore: true },
    tr: { block: 'table_row' },
    th: { block: 'table_header', getAttrs: cellAttrs },
    td: { block: 'table_cell', getAttrs: cellAttrs },
    footnote_reference: {
      block: 'footnote_definition',
      getAttrs: (tok) => ({ label: tok.meta?.label ?? '' }),
    },
    link_definition: { node: 'link_definition', getAttrs: (tok) => ({ ...tok.meta }) },
    image: {
      node: 'image',
      getAttrs: (tok) => ({
        src: tok.attrGet('src') ?? '',
        title: tok.attrGet('title') || null,
        alt: tok.children?.[0]?.content || null,
      }),
    },
    hardbreak: { node: 'hard_break' },
    html_inline: { node: 'html_inline', getAttrs: (tok) => ({ html: tok.content }) },
    footnote_ref: { node: 'footnote_ref', getAttrs: (tok) => ({ label: tok.meta?.label ?? '' }) },
    em: { mark: 'em' },
    strong: { mark: 'strong' },
    s: { mark: 'strikethrough' },
    link: {
      mark: 'link',
      getAttrs: (tok) => ({ href: tok.attrGet('href') ?? '', title: tok.attrGet('title') || null }),
    },
    code_inline: { mark: 'code', noCloseToken: true },
  },
)

// y-prosemirror keeps no marks on inline nodes: move a link into the image's attributes and drop the rest.
function withoutAtomMarks(node: Node): Node {
  if (node.isTextblock) {
    let changed = false
    const children: Node[] = []
    node.forEach((child) => {
      if (child.isText || child.marks.length === 0) {
        children.push(child)
        return
      }
      changed = true
      const link: Mark | undefined = child.marks.find((m) => m.type.name === 'link')
      const attrs =
        child.type.name === 'image' && link
          ? { ...child.attrs, href: link.attrs.href, linkTitle: link.attrs.title }
          : child.attrs
      children.push(child.type.create(attrs, child.content, []))
    })
    return changed ? node.copy(Fragment.fromArray(children)) : node
  }
  if (node.isLeaf || node.inlineContent) return node
  let changed = false
  const children: Node[] = []
  node.forEach((child) => {
    const next = withoutAtomMarks(child)
    if (next !== child) changed = true
    children.push(next)
  })
  return changed ? node.copy(Fragment.fromArray(children)) : node
}

const LINE_END = /\r\n?|\n/g

// Offsets of the start of every line of `text` (markdown-it's line numbers: \r\n, \r and \n all end a line).
function lineStarts(text: string): number[] {
  const starts = [0]
  for (const m of text.matchAll(LINE_END)) starts.push(m.index + m[0].length)
  return starts
}

/** Where a parsed stretch of Markdown sits in a larger document (for incremental parses). */
export interface ParseContext {
  /** markdown-it env holding the link and footnote definitions made outside the stretch. */
  env?: object
  /** Emitted text of the block that follows the stretch (none: the stretch ends the document). */
  followedBy?: string
}

/** Parse a Markdown body (no front matter) into a document of `markdownSchema` whose top-level blocks keep their source. */
export function parseMarkdown(text: string, context: ParseContext = {}): Node {
  return parseMarkdownBlocks(text, context).tree
}

/**
 * `parseMarkdown`, also returning the text of each top-level block (what
 * `serializeBlocks` gives for the result; `null` when the blocks could not
 * be matched to lines, which does not happen with markdown-it's line maps).
 */
export function parseMarkdownBlocks(
  text: string,
  context: ParseContext = {},
): { tree: Node; pieces: string[] | null } {
  const env: { tokens?: Token[] } = { ...context.env }
  const parsed = withoutAtomMarks(markdownParser.parse(text, env))
  const tokens = env.tokens ?? []
  const starts: number[] = []
  for (const t of tokens) if (t.level === 0 && t.nesting >= 0 && t.block && t.map) starts.push(t.map[0])
  if (starts.length === 0) {
    // Blank text: the parser's one empty paragraph keeps the whitespace.
    const only = parsed.firstChild!
    if (text === '' || parsed.childCount !== 1)
      return { tree: parsed, pieces: parsed.childCount === 1 ? [''] : null }
    const kept = only.type.create({ ...only.attrs, mdSource: text, mdHash: fingerprint(only) }, only.content)
    return { tree: parsed.copy(Fragment.from(kept)), pieces: [text] }
  }
  if (starts.length !== parsed.childCount) return { tree: parsed, pieces: null } // then the blocks serialise normalised
  const offsets = lineStarts(text)
  const at = (line: number) => (line < offsets.length ? offsets[line]! : text.length)
  const sources = starts.map((line, i) =>
    text.slice(i === 0 ? 0 : at(line), i + 1 < starts.length ? at(starts[i + 1]!) : text.length),
  )
  return { tree: withSources(parsed, sources, context.followedBy ?? null), pieces: sources }
}

/**
 * Give each top-level block of `doc` its source attributes: none when the
 * normalised form already writes the block exactly as its source (the usual
 * case for plain paragraphs and ATX headings), else `mdSource` + `mdHash`,
 * and `mdNext` where the serializer needs to know the block that followed.
 */
function withSources(doc: Node, sources: string[], followedBy: string | null): Node {
  const children: Node[] = []
  doc.forEach((child, _, i) => {
    const source = sources[i]!
    const last = i + 1 === sources.length
    const next = last ? followedBy : sources[i + 1]!
    const prevEndsBlank = i === 0 || endsWithBlank(sources[i - 1]!)
    if (prevEndsBlank && !needsNeighbour(child) && source === normalisedPiece(doc, i, next === null)) {
      children.push(child)
      return
    }
    const needsNext = needsNeighbour(child) || !endsWithBlank(source)
    const attrs = {
      ...child.attrs,
      mdSource: source,
      mdHash: fingerprint(child),
      mdNext: needsNext && next !== null ? hashString(next) : null,
    }
    children.push(child.type.create(attrs, child.content, child.marks))
  })
  return doc.copy(Fragment.fromArray(children))
}
