/**
 * Which codec's keys hold a file's content when its own codec's keys are empty: the "heal"
 * of an interrupted convert-on-switch (a peer renamed the row but its converted content is
 * not here) or of a file a peer wrote without this codec (a `.md` written as plain text).
 *
 * A file whose newest version was recorded by its own codec is not healed: its keys are empty
 * because it was emptied (`: > notes.txt` after `mv notes.md notes.txt`), and another codec's
 * keys hold what it was before, not what it is. Healing then brought old content back, and
 * wrote it into the doc.
 */
import type * as Y from 'yjs'
import { lastStoredVersion } from '../history/version-list.js'
import type { ContentCodec } from './codec.js'

/** The other codec to read `doc` through, or `undefined` to read it through `codec` (empty or not). */
export function healSource(
  doc: Y.Doc,
  codec: ContentCodec,
  codecs: readonly ContentCodec[],
): ContentCodec | undefined {
  if (codec.hasContent(doc)) return undefined
  const other = codecs.find((c) => c !== codec && c.hasContent(doc))
  if (other === undefined || lastStoredVersion(doc)?.codec === codec.id) return undefined
  return other
}
