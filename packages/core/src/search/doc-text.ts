/**
 * The plaintext of a content doc outside a filesystem (a server indexing
 * stored docs): binary docs have none; otherwise the text through the codec
 * that owns the file's name, or, when that codec finds nothing and another
 * does (a file renamed to another kind before its doc converted), through
 * that one — what `fs.readPlaintext` returns, without converting the doc.
 */
import type * as Y from 'yjs'
import { readBinary } from '../content/binary.js'
import type { ContentCodec } from '../content/codec.js'
import { healSource } from '../content/heal-source.js'
import { textCodec } from '../content/text-codec.js'
import type { FileRow } from '../files-table.js'

/** The text of `doc` for a file named `name`, or undefined when it is binary. */
export function docPlaintext(doc: Y.Doc, name: string, codecs: readonly ContentCodec[]): string | undefined {
  if (readBinary(doc)) return undefined
  const all = [...codecs, textCodec]
  const codec = all.find((c) => c.matches(name)) ?? textCodec
  return (healSource(doc, codec, all) ?? codec).read(doc)
}

/** What makes indexed text stale: a content change (size, mtime, state vector) or a rename (codec). */
export function rowVersion(row: FileRow): string {
  return `${row.updatedAt}:${row.size}:${row.sv ?? ''}:${row.name}`
}
