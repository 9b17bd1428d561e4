/**
 * Writing a file's content doc: the text (through the file's codec) or bytes,
 * and a history version, in one Yjs transaction; then the plaintext cache
 * and the last-seen state. The caller updates the row afterwards with
 * `contentPatch` (content first, row last: a peer never sees a row whose
 * content is still to come).
 *
 * New files skip the doc where they can: in memory mode (no provider) the
 * doc is built when first opened (`seedContent`); a server's `storeContent`
 * stores many new docs in one call (`createContents`, for bulk loads), whose
 * updates are encoded directly (new-content-update.ts), without a Y.Doc (a
 * normalising codec's, such as Markdown's, are built in a scratch doc).
 *
 * With a provider each content write remembers the doc's new content version
 * (`writtenSv`) for the row entry that announces it to peers
 * (content-versions.ts).
 */
import type { BufferEncoding, FileContent } from 'just-bash'
import * as Y from 'yjs'
import { clearBinary, decodeTextOrBinary, writeBinary } from '../content/binary.js'
import type { ContentCodec } from '../content/codec.js'
import { contentVersionOf } from '../content/content-versions.js'
import type { ContentSeed } from '../content/doc-pool.js'
import { encodeNewContentDoc } from '../content/new-content-update.js'
import { textCodec } from '../content/text-codec.js'
import { toBytes, utf8Length } from '../encoding.js'
import type { FileRow } from '../files-table.js'
import {
  type FileVersion,
  listStoredVersions,
  recordVersion,
  type StoredVersion,
  type VersionReason,
} from '../history/file-history.js'
import { newVersionId } from '../history/version-list.js'
import type { FileId } from '../ids.js'
import type { ContentChange, EncodedContent } from './batch-state.js'
import {
  codecFor,
  contentValueSize,
  type FileContentValue,
  isEmptyValue,
  missingCodec,
  noCodec,
  readText,
  recordFileVersion,
} from './content-codecs.js'
import { applyState, type ContentState, chainFits, chainState, stateBytes } from './content-state.js'
import { keepDecoded, takeDecoded } from './decoded-states.js'
import { FS_ORIGIN, type FsContext } from './fs-context.js'
import type { LastSeenTracker } from './last-seen.js'
import { mergeStale, type StaleWrite } from './merge-stale.js'

/** Most bytes `crypto.getRandomValues` fills in one call (the Web Crypto limit). */
const MAX_RANDOM_BYTES = 65_536

/** `n` random 32-bit numbers, drawn in calls of at most 64 KiB (writeTree of 100,000 files needs 400 KB). */
export function randomUint32s(n: number): Uint32Array {
  const out = new Uint32Array(n)
  const step = MAX_RANDOM_BYTES / Uint32Array.BYTES_PER_ELEMENT
  for (let i = 0; i < n; i += step) crypto.getRandomValues(out.subarray(i, Math.min(n, i + step)))
  return out
}

/** A caller's content as text, or bytes when it is binary (NUL bytes or invalid UTF-8). */

export function toContentValue(content: FileContent, encoding: BufferEncoding): FileContentValue {
  if (typeof content === 'string' && (encoding === 'utf8' || encoding === 'utf-8') && !content.includes('\0'))
    return { text: content }
  const bytes = toBytes(content, encoding)
  const text = decodeTextOrBinary(bytes)
  return text === undefined ? { bytes } : { text }
}

/** Write text or bytes into a content doc and record a version; returns the byte size. Caller updates the row. */
export async function writeContent(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
  reason: VersionReason = 'write',
  stale?: StaleWrite,
  // A file created here, just now: nothing remote to wait for (see ContentDocPool.acquire).
  fresh = false,
): Promise<number> {
  const handle = await ctx.pool.acquire(id, { fresh })
  try {
    const doc = handle.doc
    if (!value.bytes) {
      // Never write plain text into content another codec owns.
      const missing = missingCodec(ctx, doc, name)
      if (missing !== undefined) throw noCodec(ctx, 'open', id, name, missing)
    }
    // The current text, when the merge read it: the codec then diffs against it without reading it again.
    let current: string | undefined
    if (stale) ({ value, current } = mergeStale(ctx, id, doc, name, value, stale))
    const { size, text, version } = writeIntoDoc(ctx, doc, name, value, reason, current)
    ctx.seen.markSeen(id, codecFor(ctx, name).id)
    // After the transaction: its observer clears the cache entry.
    if (text !== undefined) ctx.index.plaintext.set(id, text, size)
    const sv = ctx.lazyContent ? undefined : contentVersionOf(doc)
    if (sv !== undefined) ctx.writtenSv.set(id, sv)
    // Its newest version, known without opening the doc again while the row announces this state.
    ctx.newestVersions.set(id, { sv, version })
    return size
  } finally {
    handle.release()
  }
}

/**
 * Write text or bytes into `doc` with a history version, in one transaction (the edit and its
 * version travel as one update). Returns the byte size and the text a reader gets back
 * (normalised by the codec; `undefined` for bytes). `current`: the doc's text when the caller
 * read it (the codec then diffs against it).
 */
export function writeIntoDoc(
  ctx: FsContext,
  doc: Y.Doc,
  name: string,
  value: FileContentValue,
  reason: VersionReason,
  current?: string,
): { size: number; text: string | undefined; version: StoredVersion } {
  let size = 0
  let text: string | undefined
  let version!: StoredVersion
  doc.transact(() => {
    if (value.bytes) {
      writeBinary(doc, value.bytes)
      size = value.bytes.byteLength
    } else {
      clearBinary(doc)
      const codec = codecFor(ctx, name)
      codec.write(doc, value.text ?? '', FS_ORIGIN, current)
      // Codecs may normalise (Markdown): cache what a reader will get back.
      text = codec === textCodec ? (value.text ?? '') : readText(ctx, doc, name)
      size = utf8Length(text)
    }
    version = recordFileVersion(ctx, doc, name, size, reason)
  }, FS_ORIGIN)
  return { size, text, version }
}

/**
 * The row fields of a content change: size, mtime and (with a provider) the content version.
 * The mtime moves forward even within the millisecond of the file's last change, so a rewrite
 * of the same size still reads as a change (stat, `write` events).
 */
export function contentPatch(
  ctx: FsContext,
  id: FileId,
  size: number,
  // The file's current mtime when the caller knows it; `null` for a new file.
  last: number | null = ctx.table.get(id)?.updatedAt ?? null,
): Pick<FileRow, 'size' | 'updatedAt' | 'sv'> {
  const now = ctx.clock()
  const patch: Pick<FileRow, 'size' | 'updatedAt' | 'sv'> = {
    size,
    updatedAt: last !== null && last >= now ? last + 1 : now,
  }
  if (ctx.lazyContent) return patch
  const doc = ctx.pool.peek(id)
  const sv = doc ? contentVersionOf(doc) : ctx.writtenSv.get(id)
  ctx.writtenSv.delete(id)
  if (sv !== undefined) {
    patch.sv = sv
    // Our own announcements count too: if this one loses to a concurrent one, the row no longer
    // covers it, and an instance holding both changes announces them (content-lifecycle.ts).
    ctx.announced.add(id, sv)
  }
  return patch
}

/** A row copied from a staging run or a checkpoint, with the version of content written here. */
export function withWrittenSv(ctx: FsContext, row: FileRow): FileRow {
  const sv = ctx.writtenSv.get(row.id)
  if (sv === undefined) return row
  ctx.writtenSv.delete(row.id)
  return { ...row, sv }
}

/** Memory mode, and text-codec or binary content (normalising codecs such as Markdown are written at once: the cache needs their output). */
export function canSeed(ctx: FsContext, name: string, value: FileContentValue): boolean {
  return ctx.lazyContent && (value.bytes !== undefined || codecFor(ctx, name) === textCodec)
}

/**
 * Memory mode: a new file's content and first version, built when its doc is first
 * opened (see ContentDocPool.seed). Until then readers get the text from the seed
 * (read-content.ts), so it is not cached a second time here, and the file's last-seen
 * state is marked when the doc is built. Returns the byte size.
 */
export function seedContent(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
  reason: VersionReason,
  size = contentValueSize(value),
): number {
  ctx.pool.seed(id, newSeed(ctx, id, name, value, reason, size))
  return size
}

/** The seed of a new file's content and first version, stamped now. */
function newSeed(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
  reason: VersionReason,
  size: number,
): NewContent {
  // A copy: the caller may reuse its buffer before the doc is built.
  const bytes = value.bytes && new Uint8Array(value.bytes) // not .slice(): a Buffer slice is a view
  const text = bytes ? undefined : (value.text ?? '')
  return new NewContent(
    id,
    codecFor(ctx, name),
    name,
    text,
    bytes,
    size,
    reason,
    ctx.author,
    ctx.clock(),
    ctx.seen,
  )
}

/**
 * Memory mode: a new file created empty whose doc nobody built yet, written now (the shell's
 * `> f`, then the command's output): its seed becomes the new content, so the file is created
 * with it in one version, as a held truncation of an existing file makes one write
 * (held-truncations.ts). Returns the size; `undefined` for any other file (the caller writes
 * its doc).
 */
export function reseedEmpty(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
): number | undefined {
  const seed = ctx.pool.seedOf(id)
  if (!(seed instanceof NewContent) || !canSeed(ctx, name, value) || !isEmptyValue(seed)) return undefined
  // Renamed to another codec's name since: its doc converts on open.
  if (seed.codecId !== codecFor(ctx, name).id) return undefined
  const size = contentValueSize(value)
  ctx.pool.replaceSeed(id, newSeed(ctx, id, name, value, 'write', size))
  return size
}

/**
 * A new file's content and first version, stamped when written: text-codec or binary
 * content only. One object per new file (no closure), as many files are written at once.
 */
class NewContent implements ContentSeed {
  #versionId: string | undefined

  // Chosen when first asked (`seededVersion`, or the doc being built), then kept: most seeded
  // files of a batch are never asked before their doc is built, if ever.
  get versionId(): string {
    this.#versionId ??= newVersionId()
    return this.#versionId
  }

  constructor(
    readonly id: FileId,
    readonly codec: ContentCodec,
    readonly name: string,
    readonly text: string | undefined,
    readonly bytes: Uint8Array | undefined,
    readonly size: number,
    readonly reason: VersionReason,
    readonly author: string,
    readonly ts: number,
    readonly seen: LastSeenTracker,
  ) {}

  get codecId(): string {
    return this.codec.id
  }

  build(doc: Y.Doc): void {
    const { codec, name, text, bytes, size, reason, author, ts } = this
    doc.transact(() => {
      if (bytes) writeBinary(doc, bytes)
      else codec.write(doc, text ?? '', FS_ORIGIN)
      recordVersion(doc, { id: this.versionId, author, reason, size, codec: codec.id, name, ts }, FS_ORIGIN)
    }, FS_ORIGIN)
    // What this instance wrote is what it last saw, from the doc's first state on: marked
    // now, before anyone else can change the doc (a seeded file reads as written, see
    // read-content.ts, and a write to it builds the doc first).
    this.seen.markSeen(this.id, codec.id)
  }
}

/**
 * Memory mode: the first version of a new file whose doc nobody built yet (its seed), as the
 * doc will list it; `undefined` for any other file. Such a file has no other version.
 */
export function seededVersion(ctx: FsContext, id: FileId): FileVersion | undefined {
  const seed = ctx.pool.seedOf(id)
  if (!(seed instanceof NewContent)) return undefined
  const { versionId, author, reason, size, codec, name, ts, bytes } = seed
  return { id: versionId, author, reason, size, codec: codec.id, name, ts, binary: bytes !== undefined }
}

/**
 * A new file's first state (content and first version) as one update, without a Y.Doc where
 * the codec allows (text-codec or binary content, encoded directly as a fresh doc of client
 * `clientID`); a normalising codec's (Markdown's) is built in a scratch doc.
 */
export function encodeNewContent(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
  clientID: number,
): EncodedContent {
  if (!value.bytes && codecFor(ctx, name) !== textCodec) {
    // As new Markdown files always were: seen as current, its versions read from its doc.
    return { ...writeInScratchDoc(ctx, id, name, value), at: undefined, version: undefined }
  }
  const size = contentValueSize(value)
  const { update, sv, version, clock } = encodeNewContentDoc({
    clientID,
    ...(value.bytes ? { bytes: value.bytes } : { text: value.text ?? '' }),
    version: {
      id: newVersionId(),
      author: ctx.author,
      reason: 'write',
      size,
      codec: codecFor(ctx, name).id,
      name,
      ts: ctx.clock(),
    },
  })
  // Encoded straight as a fresh doc: its state vector is all of it (no deletions).
  const at = Y.createSnapshot(Y.createDeleteSet(), new Map([[clientID, clock]]))
  return {
    id,
    update,
    sv,
    text: value.text,
    ...(value.bytes ? { bytes: value.bytes } : {}),
    size,
    at,
    version,
  }
}

/**
 * What this instance knows of a new file whose content it stored without opening its doc: its
 * content version (for the row), what it last saw (a later write after a peer's edit is merged,
 * not a blind replace) and its text (cached).
 */
export function markStored(ctx: FsContext, name: string, content: EncodedContent): void {
  const codec = codecFor(ctx, name).id
  ctx.writtenSv.set(content.id, content.sv)
  if (content.at === undefined) ctx.seen.markSeen(content.id, codec)
  else ctx.seen.markSeenAt(content.id, codec, content.at)
  if (content.text !== undefined) ctx.index.plaintext.set(content.id, content.text, content.size, content.at)
  else if (content.bytes !== undefined) ctx.index.plaintext.setBytes(content.id, content.bytes, content.at)
  // Unknown now: what was cached before must go, or a read of the same size would still get it.
  else ctx.index.plaintext.delete(content.id)
  // Its newest version, known without opening the doc while the row still announces this state.
  if (content.version) ctx.newestVersions.set(content.id, { sv: content.sv, version: content.version })
  else ctx.newestVersions.delete(content.id)
}

/** New files' content for a bulk load: seeds in memory mode, batched stores with a server, else one by one. */
export async function createContents(
  ctx: FsContext,
  files: { id: FileId; name: string; value: FileContentValue; size: number }[],
): Promise<number[]> {
  const sizes: number[] = []
  const encoded: { name: string; content: EncodedContent }[] = []
  let clientIds: Uint32Array | undefined
  for (const { id, name, value, size: planned } of files) {
    if (canSeed(ctx, name, value)) {
      sizes.push(seedContent(ctx, id, name, value, 'write', planned))
      continue
    }
    if (!ctx.storeContent) {
      sizes.push(await writeContent(ctx, id, name, value, 'write', undefined, true))
      continue
    }
    clientIds ??= randomUint32s(files.length)
    const content = encodeNewContent(ctx, id, name, value, clientIds[encoded.length]!)
    encoded.push({ name, content })
    ctx.writtenSv.set(id, content.sv)
    sizes.push(content.size)
  }
  if (encoded.length > 0)
    await ctx.storeContent!(
      encoded.map(({ content }) => ({ id: content.id, update: stateBytes(content.update) })),
    )
  // Only once stored: a failed store leaves nothing cached for files that do not exist.
  for (const { name, content } of encoded) markStored(ctx, name, content)
  return sizes
}

/**
 * A file's state after writing `value` into a scratch doc holding `base` (none: a new file), as
 * `writeContent` would leave it in a doc (a stale write merged, the codec's content and a
 * version, one transaction): its whole update, content version, text, size, snapshot and newest
 * version. For a new file of a normalising codec (Markdown, whose output the cache needs), for a
 * batch's new file written again before it was sent, and for an overwrite sent as a bulk update
 * (write-batch.ts). Throws like `writeContent` (ENOSYS: the content is another codec's).
 *
 * With `since` (an encoded state vector, or `'base'` for the state vector of `base`), the result
 * also holds the change the write makes from that state on (`change`): what an overwrite sends.
 * Encoded from the doc, it costs what the write added and the delete set; taken from the whole
 * update later (`Y.diffUpdate`, `Y.encodeStateVectorFromUpdate`) it cost two more decodes of the
 * file's whole state, history included: a third of an overwrite's time once a file has a few
 * dozen versions. Its whole state is then `base` chained with what the write added
 * (content-state.ts), not the doc encoded again, which is every version of its history.
 */
export function writeInScratchDoc(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
  base: ContentState,
  stale: StaleWrite | undefined,
  since: Uint8Array | 'base',
): EncodedContent & { change: ContentChange }
export function writeInScratchDoc(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
  base?: ContentState,
  stale?: StaleWrite,
): EncodedContent
export function writeInScratchDoc(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
  base?: ContentState,
  stale?: StaleWrite,
  since?: Uint8Array | 'base',
): EncodedContent & { change?: ContentChange } {
  const decoded = base && takeDecoded(ctx, id, base)
  const doc = decoded ?? new Y.Doc({ guid: id, gc: false })
  let kept = false
  try {
    if (base && !decoded) applyState(doc, base)
    // The doc holds exactly `base` here (decoded now, or the kept doc decoded from it).
    const baseSv = base && since !== undefined ? Y.encodeStateVector(doc) : undefined
    const from = since === 'base' ? baseSv : since
    if (base && !value.bytes) {
      const missing = missingCodec(ctx, doc, name)
      if (missing !== undefined) throw noCodec(ctx, 'open', id, name, missing)
    }
    let current: string | undefined
    if (stale) ({ value, current } = mergeStale(ctx, id, doc, name, value, stale))
    const { size, text } = writeIntoDoc(ctx, doc, name, value, 'write', current)
    const change = from && Y.encodeStateAsUpdate(doc, from)
    // With a change asked for (an overwrite), `base` and what the write added on it while the
    // chain fits; else the whole state (a new file's, sent whole).
    const update =
      base && baseSv && change && chainFits(id, base)
        ? chainState(base, from === baseSv ? change : Y.encodeStateAsUpdate(doc, baseSv))
        : Y.encodeStateAsUpdate(doc)
    const written: EncodedContent & { change?: ContentChange } = {
      id,
      update,
      sv: contentVersionOf(doc),
      text,
      ...(text === undefined && value.bytes ? { bytes: value.bytes } : {}),
      size,
      at: Y.snapshot(doc),
      version: listStoredVersions(doc).at(-1),
    }
    if (from && change) written.change = { since: from, update: change }
    // The next write on this state (`>>` again before the batch sends it, a file written twice
    // in a batch) takes the doc instead of decoding the state again: O(n²) over an append loop.
    keepDecoded(ctx, id, update, doc)
    kept = true
    return written
  } finally {
    if (!kept) doc.destroy()
  }
}
