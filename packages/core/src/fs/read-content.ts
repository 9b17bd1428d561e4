/**
 * Reading a file's content: the plaintext cache first, then the seed of a new
 * file in memory mode (ContentDocPool.seedOf), then (with a server's
 * `loadContent`) one batched fetch for the file's folder, then the content
 * doc through the pool. (The fetch: fetch-folder.ts.)
 *
 * A whole-file read by a caller (`seen`) is remembered as the base of that
 * caller's next write (last-seen.ts): as the doc now when it is open here, else
 * as the snapshot the cached text was read at. Text found in a content doc is cached;
 * a fetched state is cached only when it holds every change peers announced
 * and its text has the row's size, so the cache never serves older content
 * than the row describes.
 */
import { readBinary } from '../content/binary.js'
import { utf8Length } from '../encoding.js'
import type { FileRow } from '../files-table.js'
import type { FileId } from '../ids.js'
import { codecFor, type FileContentValue, missingCodec, noCodec, readText } from './content-codecs.js'
import { fetchFolder } from './fetch-folder.js'
import type { FsContext } from './fs-context.js'

/** Content of a file; `seen`: a whole-file read by a caller, remembered as the base of its next write. */
export async function readContent(
  ctx: FsContext,
  id: FileId,
  row: FileRow,
  seen = false,
): Promise<FileContentValue> {
  const cached = ctx.index.plaintext.lookupContent(id, row.size)
  // A caller's read from the cache is seen as the state the text (or bytes) was read at
  // (markCachedSeen); content whose state is unknown is read from the doc instead.
  if (cached !== undefined && (!seen || markCachedSeen(ctx, id, row))) return cached
  // Written here and not opened since (memory mode): the pool's seed holds the text, unless
  // the file was renamed to another codec's name since (its doc converts on open).
  const seed = ctx.pool.seedOf(id)
  if (seed?.text !== undefined && seed.codecId === codecFor(ctx, row.name).id) {
    const size = utf8Length(seed.text)
    if (size === row.size) {
      ctx.index.plaintext.set(id, seed.text, size)
      if (seen) ctx.seen.markSeen(id, seed.codecId)
      return { text: seed.text }
    }
  }
  if (ctx.loadContent && ctx.pool.peek(id) === undefined) {
    await fetchFolder(ctx, id)
    const fetched = ctx.index.plaintext.lookupContent(id, row.size)
    if (fetched !== undefined && (!seen || markCachedSeen(ctx, id, row))) return fetched
  }
  const handle = await ctx.pool.acquire(id)
  try {
    if (seen) ctx.seen.markSeen(id, codecFor(ctx, row.name).id)
    const bytes = readBinary(handle.doc)
    if (bytes) {
      // Kept past the doc as text is (its close stamps the entry, or drops it).
      ctx.index.plaintext.setBytes(id, bytes)
      return { bytes }
    }
    const missing = missingCodec(ctx, handle.doc, row.name)
    if (missing !== undefined && row.size > 0) throw noCodec(ctx, 'open', id, row.name, missing)
    const text = readText(ctx, handle.doc, row.name)
    ctx.index.plaintext.set(id, text, utf8Length(text))
    return { text }
  } finally {
    handle.release()
  }
}

/**
 * A caller read `id` from the plaintext cache: remember what it saw (last-seen.ts). An open
 * doc (or memory mode, where no one changes a doc without opening it here) follows later
 * changes itself ("current"); a doc that is not open is seen at the snapshot the text was
 * read at, since a peer's edit arriving before the doc opens again is never seen happen
 * here. False when that snapshot is unknown: the caller reads the doc instead.
 */
function markCachedSeen(ctx: FsContext, id: FileId, row: FileRow): boolean {
  const codec = codecFor(ctx, row.name).id
  if (ctx.lazyContent || ctx.pool.peek(id) !== undefined) {
    ctx.seen.markSeen(id, codec)
    return true
  }
  const at = ctx.index.plaintext.snapshotOf(id)
  if (at === undefined) return false
  ctx.seen.markSeenAt(id, codec, at)
  return true
}

/**
 * The text of file `id` as a person reads it (Markdown text for `.md` files), for indexing:
 * `undefined` for binary files and ids that are not files. Not a read by a caller: it is no
 * base for a later write (last-seen.ts). Throws like `readContent` (ENOSYS: codec missing).
 */
export async function readPlaintext(ctx: FsContext, id: FileId): Promise<string | undefined> {
  const row = ctx.table.get(id)
  if (row?.type !== 'file') return undefined
  return (await readContent(ctx, id, row)).text
}

/** Content of a node for a diff: a symlink's target, or a file's content. */
export async function readNode(ctx: FsContext, row: FileRow): Promise<FileContentValue> {
  if (row.type === 'symlink') return { text: row.target ?? '' }
  return readContent(ctx, row.id, row)
}
