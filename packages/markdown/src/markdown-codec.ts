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
 * Reading is normalising (CommonMark serializer): `read(write(x))` may differ
 * from `x` the first time, and is a fixed point after that.
 */
import type { ContentCodec } from '@yfs/core'
import { updateYFragment, yXmlFragmentToProseMirrorRootNode } from 'y-prosemirror'
import type * as Y from 'yjs'
import { readFrontMatter, splitFrontMatter, stringifyFrontMatter, updateFrontMatter } from './front-matter.js'
import { parseMarkdown } from './parse.js'
import { markdownSchema } from './schema.js'
import { serializeMarkdown } from './serialize.js'

/** Root key of the body (ProseMirror tree). */
export const RICHTEXT_KEY = 'richtext'
/** Root key of the front matter map. */
export const FRONTMATTER_KEY = 'frontmatter'

const MARKDOWN_NAME = /\.(md|markdown)$/i

// y-prosemirror's binding metadata (its createEmptyMeta is not exported): a fresh one per write.
const emptyMeta = () => ({ mapping: new Map(), isOMark: new Map() })

/** Read the body of a content doc as Markdown. */
export function readMarkdownBody(doc: Y.Doc): string {
  const fragment = doc.getXmlFragment(RICHTEXT_KEY)
  if (fragment.length === 0) return ''
  return serializeMarkdown(yXmlFragmentToProseMirrorRootNode(fragment, markdownSchema))
}

export const markdownCodec: ContentCodec = {
  id: 'markdown',
  matches: (name) => MARKDOWN_NAME.test(name),
  read(doc) {
    const front = doc.share.has(FRONTMATTER_KEY) ? readFrontMatter(doc.getMap(FRONTMATTER_KEY)) : {}
    return stringifyFrontMatter(front) + readMarkdownBody(doc)
  },
  write(doc, text, origin) {
    const { data, body } = splitFrontMatter(text)
    const pNode = parseMarkdown(body)
    doc.transact(() => {
      updateFrontMatter(doc.getMap(FRONTMATTER_KEY), data)
      updateYFragment(doc, doc.getXmlFragment(RICHTEXT_KEY), pNode, emptyMeta())
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
