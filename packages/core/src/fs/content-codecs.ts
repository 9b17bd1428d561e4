/**
 * A file's content doc seen through the filesystem's codecs: which codec owns
 * a name, the text or size of a doc, history versions stamped with the codec
 * and author, and the ENOSYS for content written by a codec this filesystem
 * lacks (never read as empty text, never overwritten with plain text).
 *
 * Deliberately not here: caching and fetching (read-content.ts) or writing
 * (write-content.ts).
 */
import type * as Y from 'yjs'
import { readBinary } from '../content/binary.js'
import type { ContentCodec } from '../content/codec.js'
import { healSource } from '../content/heal-source.js'
import { textCodec } from '../content/text-codec.js'
import { utf8Length } from '../encoding.js'
import { eio, enosys, type FsError } from '../errors.js'
import {
  ContentDroppedError,
  listStoredVersions,
  readVersionContent,
  recordVersion,
  type StoredVersion,
  type VersionReason,
} from '../history/file-history.js'
import { pendingAuthors } from '../history/pending-authors.js'
import type { FileId } from '../ids.js'
import { FS_ORIGIN, type FsContext } from './fs-context.js'

/** A file's content as the filesystem passes it around: text, or bytes when binary. */
export interface FileContentValue {
  text?: string
  bytes?: Uint8Array
}

/** The bytes `value` takes stored: its bytes, or its text in UTF-8. */
export function contentValueSize(value: { text?: string; bytes?: Uint8Array }): number {
  return value.bytes ? value.bytes.byteLength : utf8Length(value.text ?? '')
}

/** Empty text or no bytes: what `> f` writes before the command's output. */
export function isEmptyValue(value: FileContentValue): boolean {
  return value.bytes ? value.bytes.byteLength === 0 : (value.text ?? '') === ''
}

/** Equal content (bytes compared byte by byte, text exactly). */
export function sameContent(a: FileContentValue, b: FileContentValue): boolean {
  if (a.bytes || b.bytes) {
    if (!a.bytes || !b.bytes || a.bytes.byteLength !== b.bytes.byteLength) return false
    return a.bytes.every((x, i) => x === b.bytes![i])
  }
  return a.text === b.text
}

/** The codec that owns files with this name. */
export function codecFor(ctx: FsContext, name: string): ContentCodec {
  // A loop, not `find` with a closure: two calls per file write.
  for (const codec of ctx.codecs) if (codec.matches(name)) return codec
  return textCodec
}

/** Text of a content doc through the file's codec, healing an interrupted convert-on-switch (heal-source.ts). */
export function readText(ctx: FsContext, doc: Y.Doc, name: string): string {
  const codec = codecFor(ctx, name)
  const other = ctx.codecs.length > 1 ? healSource(doc, codec, ctx.codecs) : undefined
  if (other) {
    codec.write(doc, other.read(doc), FS_ORIGIN)
    return codec.read(doc)
  }
  return codec.read(doc)
}

/** Byte size of a content doc's content. */
export function contentSize(ctx: FsContext, doc: Y.Doc, name: string): number {
  const bytes = readBinary(doc)
  return bytes ? bytes.byteLength : utf8Length(readText(ctx, doc, name))
}

/** Append a history version to a content doc, authored by this filesystem, stamped now. */
export function recordFileVersion(
  ctx: FsContext,
  doc: Y.Doc,
  name: string,
  size: number,
  reason: VersionReason,
  author = ctx.author,
): StoredVersion {
  ctx.recordedOn.add(doc)
  ctx.editedUnversioned.delete(doc.guid as FileId)
  // Newer than what a write here last recorded (a write notes its own after this: write-content.ts).
  ctx.newestVersions.delete(doc.guid as FileId)
  return recordVersion(
    doc,
    { author, reason, size, codec: codecFor(ctx, name).id, name, ts: ctx.clock() },
    FS_ORIGIN,
  )
}

/**
 * Record the changes made since the last version, possibly by others (on demand: history,
 * save, checkpoint, a stale write's kept version), in the name of whoever made them.
 */
export function recordPendingVersion(
  ctx: FsContext,
  doc: Y.Doc,
  name: string,
  size: number,
  reason: VersionReason,
): StoredVersion {
  return recordFileVersion(ctx, doc, name, size, reason, pendingAuthors(doc, ctx.author))
}

/**
 * The id of the codec that last wrote `doc` when this filesystem lacks it and
 * the file's own codec finds no content (a peer created without that codec).
 */
export function missingCodec(ctx: FsContext, doc: Y.Doc, name: string): string | undefined {
  if (codecFor(ctx, name).hasContent(doc)) return undefined
  const last = listStoredVersions(doc).at(-1)
  if (last === undefined || ctx.codecs.some((c) => c.id === last.codec)) return undefined
  // Renamed to another kind since (e.g. `.md` → `.txt`): that file's codec is ours now.
  const ext = (n: string) => /\.[^./]*$/.exec(n)?.[0].toLowerCase() ?? ''
  return ext(last.name) === ext(name) ? last.codec : undefined
}

/** ENOSYS naming the codec this filesystem lacks (and how to add Markdown's). */
export function noCodec(ctx: FsContext, syscall: string, id: FileId, name: string, codec: string): FsError {
  const hint =
    codec === 'markdown' ? ' (createFileSystem({ codecs: [markdownCodec] }) from @yfs/markdown)' : ''
  return enosys(
    syscall,
    ctx.index.pathOf(id) ?? name,
    `content is in the '${codec}' format and this filesystem has no '${codec}' codec${hint}`,
  )
}

/**
 * A version's content; ENOSYS instead of empty text when it was written by a codec we lack,
 * EIO when this replica dropped content the version shows (a compacted state).
 */
export function versionContent(
  ctx: FsContext,
  doc: Y.Doc,
  version: StoredVersion,
  id: FileId,
  name: string,
): FileContentValue {
  let content: FileContentValue
  try {
    content = readVersionContent(doc, version, ctx.codecs)
  } catch (error) {
    if (!(error instanceof ContentDroppedError)) throw error
    throw eio('history', ctx.index.pathOf(id) ?? name, `version '${version.id}': ${error.message}`)
  }
  if (content.text === '' && version.size > 0 && !ctx.codecs.some((c) => c.id === version.codec))
    throw noCodec(ctx, 'open', id, name, version.codec)
  return content
}
