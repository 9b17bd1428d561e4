/**
 * The Markdown codec: `.md` files keep their body as a ProseMirror tree in
 * `Y.XmlFragment(RICHTEXT_KEY)` and their front matter in
 * `Y.Map(FRONTMATTER_KEY)` — what Milkdown/ProseMirror editors bind to.
 *
 * `write` never clears and rebuilds: it parses the new text and applies it
 * with y-prosemirror's `updateYFragment`, which keeps every unchanged block
 * (same Yjs items) and diffs changed text at character level, so a person
 * editing another paragraph at the same time keeps their edit. Front matter
 * is updated key by key.
 *
 * Reading gives back what was written, byte for byte, for every part nobody
 * has edited since: each top-level block keeps its source (see parse.ts and
 * serialize.ts), and the front matter block keeps its text in
 * `Y.Map(MARKDOWN_META_KEY)` with a fingerprint of the data it parsed to.
 * Edited parts come back in the normalised form, which is a fixed point.
 */
import type { ContentCodec } from '@yfs/core'
import type { Node } from 'prosemirror-model'
import { updateYFragment, yXmlFragmentToProseMirrorRootNode } from 'y-prosemirror'
import type * as Y from 'yjs'
import { hashString } from './fingerprint.js'
import {
  type FrontMatter,
  readFrontMatter,
  splitFrontMatter,
  stringifyFrontMatter,
  updateFrontMatter,
} from './front-matter.js'
import { parseIncrementally } from './incremental-parse.js'
import { mergeMarkdown } from './markdown-merge.js'
import { parseMarkdownBlocks } from './parse.js'
import { markdownSchema } from './schema.js'
import { serializeBlocks } from './serialize.js'

/** Root key of the body (ProseMirror tree). */
export const RICHTEXT_KEY = 'richtext'
/** Root key of the front matter map. */
export const FRONTMATTER_KEY = 'frontmatter'
/** Root key of codec metadata: the front matter's source text and the fingerprint of its data. */
export const MARKDOWN_META_KEY = 'markdown'
const FRONT_SOURCE = 'frontMatterSource'
const FRONT_HASH = 'frontMatterHash'

// Key order of nested objects is kept by Y.Map values; top-level keys are sorted by readFrontMatter.
const frontHash = (data: FrontMatter) => hashString(JSON.stringify(data))

/** The front matter block of a content doc: its stored source while the data still matches, else YAML. */
export function readFrontMatterText(doc: Y.Doc): string {
  const front = doc.share.has(FRONTMATTER_KEY) ? readFrontMatter(doc.getMap(FRONTMATTER_KEY)) : {}
  if (doc.share.has(MARKDOWN_META_KEY)) {
    const meta = doc.getMap<string>(MARKDOWN_META_KEY)
    const source = meta.get(FRONT_SOURCE)
    if (typeof source === 'string' && source !== '' && meta.get(FRONT_HASH) === frontHash(front))
      return source
  }
  return stringifyFrontMatter(front)
}

const MARKDOWN_NAME = /\.(md|markdown)$/i

// y-prosemirror's binding metadata (its createEmptyMeta is not exported): a fresh one per write.
const emptyMeta = () => ({ mapping: new Map(), isOMark: new Map() })

/**
 * The body of a doc as a tree and the text of each top-level block, kept
 * per doc between a write and the next read or write, and dropped by the
 * first change to the fragment made by anything else (a person's edit, a
 * remote update, an undo). Saves a conversion and a serialisation of the
 * whole document per write and per read.
 */
interface BodyCache {
  tree: Node
  pieces: string[]
  /** The transaction that wrote them (its own change event keeps the entry). */
  tr: Y.Transaction | null
}
const bodies = new WeakMap<Y.Doc, BodyCache>()
const watched = new WeakSet<Y.Doc>()

function watch(doc: Y.Doc, fragment: Y.XmlFragment): void {
  if (watched.has(doc)) return
  watched.add(doc)
  fragment.observeDeep((_events, tr) => {
    if (bodies.get(doc)?.tr !== tr) bodies.delete(doc)
  })
}

// The current body (tree and block texts), from the cache or the fragment.
function currentBody(doc: Y.Doc, fragment: Y.XmlFragment): BodyCache {
  watch(doc, fragment)
  const cached = bodies.get(doc)
  if (cached) return cached
  const tree = yXmlFragmentToProseMirrorRootNode(fragment, markdownSchema)
  const body = { tree, pieces: serializeBlocks(tree), tr: null }
  bodies.set(doc, body)
  return body
}

/** Read the body of a content doc as Markdown. */
export function readMarkdownBody(doc: Y.Doc): string {
  const fragment = doc.getXmlFragment(RICHTEXT_KEY)
  if (fragment.length === 0) return ''
  return currentBody(doc, fragment).pieces.join('')
}

export const markdownCodec: ContentCodec = {
  id: 'markdown',
  matches: (name) => MARKDOWN_NAME.test(name),
  // Stale writes merge blocks and front-matter keys (markdown-merge.ts).
  merge: mergeMarkdown,
  read(doc) {
    return readFrontMatterText(doc) + readMarkdownBody(doc)
  },
  write(doc, text, origin) {
    const { data, body } = splitFrontMatter(text)
    const source = text.slice(0, text.length - body.length)
    const fragment = doc.getXmlFragment(RICHTEXT_KEY)
    let parsed: { tree: Node; pieces: string[] | null }
    if (fragment.length > 0) {
      const previous = currentBody(doc, fragment)
      parsed = parseIncrementally(previous.tree, previous.pieces, body)
    } else {
      watch(doc, fragment)
      parsed = parseMarkdownBlocks(body)
    }
    const pNode = parsed.tree
    doc.transact((tr) => {
      const map = doc.getMap(FRONTMATTER_KEY)
      updateFrontMatter(map, data)
      const meta = doc.getMap<string>(MARKDOWN_META_KEY)
      if (source === '') {
        meta.delete(FRONT_SOURCE)
        meta.delete(FRONT_HASH)
      } else {
        const hash = frontHash(readFrontMatter(map))
        if (meta.get(FRONT_SOURCE) !== source) meta.set(FRONT_SOURCE, source)
        if (meta.get(FRONT_HASH) !== hash) meta.set(FRONT_HASH, hash)
      }
      updateYFragment(doc, fragment, pNode, emptyMeta())
      if (parsed.pieces) bodies.set(doc, { tree: pNode, pieces: parsed.pieces, tr })
      else bodies.delete(doc)
    }, origin)
  },
  hasContent(doc) {
    return (
      (doc.share.has(RICHTEXT_KEY) && doc.getXmlFragment(RICHTEXT_KEY).length > 0) ||
      (doc.share.has(FRONTMATTER_KEY) && doc.getMap(FRONTMATTER_KEY).size > 0)
    )
  },
  observe(doc, onChange) {
    const fragment = doc.getXmlFragment(RICHTEXT_KEY)
    const map = doc.getMap(FRONTMATTER_KEY)
    const handler = (_e: unknown, tr: Y.Transaction) => onChange(tr.origin)
    fragment.observeDeep(handler as (e: Y.YEvent<Y.XmlFragment>[], tr: Y.Transaction) => void)
    map.observe(handler as (e: Y.YMapEvent<unknown>, tr: Y.Transaction) => void)
    return () => {
      fragment.unobserveDeep(handler as (e: Y.YEvent<Y.XmlFragment>[], tr: Y.Transaction) => void)
      map.unobserve(handler as (e: Y.YMapEvent<unknown>, tr: Y.Transaction) => void)
    }
  },
}
