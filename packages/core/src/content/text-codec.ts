/**
 * The text codec: code and plain text live in `Y.Text(TEXT_KEY)`, one
 * character per character, so CodeMirror binds to it directly and
 * `read(write(x)) === x` for every string.
 */
import type * as Y from 'yjs'
import type { ContentCodec } from './codec.js'
import { applyTextDiff } from './text-diff.js'

/** Root key of the `Y.Text` that holds text and code. */
export const TEXT_KEY = 'text'

export const textCodec: ContentCodec = {
  id: 'text',
  matches: () => true,
  read: (doc) => doc.getText(TEXT_KEY).toString(),
  write(doc, text, origin, current) {
    const ytext = doc.getText(TEXT_KEY)
    doc.transact(() => applyTextDiff(ytext, text, current), origin)
  },
  hasContent: (doc) => doc.share.has(TEXT_KEY) && doc.getText(TEXT_KEY).length > 0,
  observe(doc, onChange) {
    const ytext = doc.getText(TEXT_KEY)
    const handler = (_e: Y.YTextEvent, tr: Y.Transaction) => onChange(tr.origin)
    ytext.observe(handler)
    return () => ytext.unobserve(handler)
  },
}
