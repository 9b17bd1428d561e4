/**
 * Writing whole files: `writeFile`, `write` (with its report and stale-write
 * merge), `appendFile`, and `writeFileSync` (system paths only).
 *
 * Every workspace write runs in the mutation queue (fs-context.ts): the
 * target is resolved (symlinks followed) and checked (name, limits) before
 * anything is written; then content first (write-content.ts) and the row
 * last, so a peer never sees a row whose content is still to come. Writes
 * to system paths go to the local layer and never reach the Y.Doc.
 */
import type { FileContent, IFileSystem } from 'just-bash'
import * as Y from 'yjs'
import { decodeTextOrBinary, readBinary } from '../content/binary.js'
import { textCodec } from '../content/text-codec.js'
import { encodeUtf8, getEncoding, utf8Length } from '../encoding.js'
import { eisdir, enosys } from '../errors.js'
import type { FileRow } from '../files-table.js'
import { createFileId, type FileId, ROOT_ID } from '../ids.js'
import { emitMergeEvent } from './change-events.js'
import {
  codecFor,
  contentValueSize,
  type FileContentValue,
  missingCodec,
  noCodec,
  readText,
  recordFileVersion,
} from './content-codecs.js'
import { assertWritable, exclusive, FS_ORIGIN, type FsContext } from './fs-context.js'
import { checkName, checkNewPath, checkSize } from './limit-checks.js'
import { fileAt, isSystemPath, normalizePath, resolveWriteTarget, type WriteTarget } from './locate.js'
import { type StaleWrite, sawCurrentContent } from './merge-stale.js'
import type { WriteOptions, WriteReport } from './stale-write.js'
import {
  addNewContent,
  addUpdate,
  baseStateOf,
  bulkStoresNewContent,
  bulkUpdatesContent,
  pendingContentOf,
  replacePendingContent,
} from './write-batch.js'
import {
  canSeed,
  contentPatch,
  reseedEmpty,
  seedContent,
  toContentValue,
  writeContent,
} from './write-content.js'

type WriteFileOptions = Parameters<IFileSystem['writeFile']>[2]

/** `fs.writeFile`: `write` without the report (system paths go to the local layer). Throws like `write`. */
export async function writeFile(
  ctx: FsContext,
  path: string,
  content: FileContent,
  options?: WriteFileOptions,
): Promise<void> {
  const normalized = normalizePath(path, 'write')
  if (isSystemPath(normalized)) return ctx.local.writeFile(normalized, content, options)
  await queueWrite(ctx, normalized, path, content, { encoding: getEncoding(options) }, newReport(normalized))
}

/** `fs.write`: a whole-file write that merges a stale write and reports what happened (see YjsFileSystem.write). */
export async function write(
  ctx: FsContext,
  path: string,
  content: FileContent,
  options: WriteOptions = {},
): Promise<WriteReport> {
  const normalized = normalizePath(path, 'write')
  if (isSystemPath(normalized)) {
    await ctx.local.writeFile(normalized, content, options.encoding)
    return { ...newReport(normalized), size: (await ctx.local.stat(normalized)).size }
  }
  const report = newReport(normalized)
  await queueWrite(ctx, normalized, path, content, options, report)
  return report
}

function newReport(path: string): WriteReport {
  return { path, size: 0, created: false, merged: false, conflict: false, conflicts: [] }
}

/**
 * Queue the write of a normalised workspace path (not a system path), filling in `report`;
 * resolves once written. Not async itself: a new file's write is one promise of the mutation
 * queue (see `writeAt`).
 */
function queueWrite(
  ctx: FsContext,
  normalized: string,
  path: string,
  content: FileContent,
  options: WriteOptions,
  report: WriteReport,
): Promise<FileId> {
  assertWritable(ctx, 'open', path)
  const value = toContentValue(content, options.encoding ?? 'utf8')
  const stale = { base: options.base, report }
  return exclusive(ctx, () => writeAt(ctx, normalized, path, value, 'write', stale))
}

/**
 * Create or overwrite a file at `normalized` (symlinks followed). A new file whose content
 * is seeded (memory mode) is written synchronously and its id returned as is: no promise.
 */
export function writeAt(
  ctx: FsContext,
  normalized: string,
  original: string,
  value: FileContentValue,
  syscall: string,
  stale?: StaleWrite,
): FileId | Promise<FileId> {
  const target = resolveWriteTarget(ctx, normalized, syscall, original)
  const newSize = contentValueSize(value)
  if (stale) stale.report.path = target.path
  if (target.id !== undefined) return overwrite(ctx, target.id, value, newSize, syscall, original, stale)
  if (stale) stale.report.created = true
  checkName(ctx, target.name, syscall, original)
  checkNewPath(ctx, target.path, syscall, original)
  checkSize(ctx, newSize, 0, syscall, original)
  const id = createFileId()
  // Content first, row last: a peer never sees a row whose content is still to come.
  // On a connected filesystem with a bulk store the content goes there (with the batch's, in a
  // batch), and the row waits for it (write-batch.ts).
  if (bulkStoresNewContent(ctx))
    return addFileRow(ctx, id, target, addNewContent(ctx, id, target.name, value), stale)
  if (!canSeed(ctx, target.name, value))
    return writeContent(ctx, id, target.name, value, 'write', undefined, true).then((size) =>
      addFileRow(ctx, id, target, size, stale),
    )
  return addFileRow(ctx, id, target, seedContent(ctx, id, target.name, value, 'write', newSize), stale)
}

async function overwrite(
  ctx: FsContext,
  id: FileId,
  value: FileContentValue,
  newSize: number,
  syscall: string,
  original: string,
  stale: StaleWrite | undefined,
): Promise<FileId> {
  const row = ctx.table.get(id)!
  if (row.type === 'folder') throw eisdir('open', original)
  checkSize(ctx, newSize, row.size, syscall, original)
  // A new file of the batch whose content is not sent yet: written again without a doc. In
  // memory mode, a new file created empty and never opened: created with this content instead.
  const size =
    pendingContentOf(ctx, id) !== undefined
      ? replacePendingContent(ctx, id, row.name, value)
      : (reseedEmpty(ctx, id, row.name, value) ??
        (await overwriteInBulk(ctx, id, row.name, value, stale)) ??
        (await writeContent(ctx, id, row.name, value, 'write', stale)))
  ctx.table.update(id, contentPatch(ctx, id, size), FS_ORIGIN)
  if (stale) {
    stale.report.size = size
    emitMergeEvent(ctx, id, stale.report)
  }
  return id
}

/**
 * An overwrite sent as a bulk update, built on the file's known or fetched state (write-batch.ts);
 * `undefined` when it cannot be (its doc is open here, no bulk updates now, no state to build
 * on): the caller writes the doc.
 */
async function overwriteInBulk(
  ctx: FsContext,
  id: FileId,
  name: string,
  value: FileContentValue,
  stale: StaleWrite | undefined,
): Promise<number | undefined> {
  if (!bulkUpdatesContent(ctx, id)) return undefined
  const base = await baseStateOf(ctx, id)
  // Opened meanwhile (a reader, an editor): written there instead.
  if (base === undefined || ctx.pool.peek(id) !== undefined) return undefined
  return addUpdate(ctx, id, name, value, base, stale)
}

/** The row of a new file whose content is written: the last step of its creation. */
function addFileRow(
  ctx: FsContext,
  id: FileId,
  target: WriteTarget,
  size: number,
  stale?: StaleWrite,
): FileId {
  if (stale) stale.report.size = size
  const { updatedAt: now, sv } = contentPatch(ctx, id, size, null)
  const name = target.name
  const parentId = target.parentId === ROOT_ID ? null : target.parentId
  // Literals, not spreads (this runs once per new file); keys in the order rows always had.
  const row: FileRow =
    sv === undefined
      ? { id, name, parentId, type: 'file', size, createdAt: now, updatedAt: now, trashedAt: null }
      : { id, name, parentId, type: 'file', size, sv, createdAt: now, updatedAt: now, trashedAt: null }
  ctx.table.set(row, FS_ORIGIN)
  return id
}

/**
 * `fs.appendFile`: text onto text is a Y.Text insert (concurrent appends both survive); anything
 * else rewrites the whole content; nothing onto an existing file changes nothing (a missing file
 * is created empty). ENOENT, EISDIR, EFBIG, ENOSPC, EACCES.
 */
export async function appendFile(
  ctx: FsContext,
  path: string,
  content: FileContent,
  options?: WriteFileOptions,
): Promise<void> {
  const normalized = normalizePath(path, 'append')
  if (isSystemPath(normalized)) return ctx.local.appendFile(normalized, content, options)
  assertWritable(ctx, 'open', path)
  const value = toContentValue(content, getEncoding(options))
  return exclusive(ctx, async () => {
    const target = resolveWriteTarget(ctx, normalized, 'append', path)
    if (target.id === undefined) {
      await writeAt(ctx, normalized, path, value, 'append')
      return
    }
    const row = ctx.table.get(target.id)!
    if (row.type === 'folder') throw eisdir('write', path)
    const addSize = contentValueSize(value)
    // Nothing to add (a shell opens `>> f` with an empty append): the file is as it was, with no
    // version of its unchanged content and no change event, as an empty write(2) changes nothing.
    if (addSize === 0) return
    checkSize(ctx, row.size + addSize, row.size, 'append', path)
    const pending = pendingContentOf(ctx, target.id)
    if (pending !== undefined) {
      // A new file of the batch whose content is not sent yet: the whole new content, without a doc.
      const size = replacePendingContent(ctx, target.id, row.name, concatContent(pending, value))
      ctx.table.update(target.id, contentPatch(ctx, target.id, size), FS_ORIGIN)
      return
    }
    const handle = await ctx.pool.acquire(target.id)
    let size: number
    try {
      const doc = handle.doc
      const existingBytes = readBinary(doc)
      const codec = codecFor(ctx, row.name)
      const missing = existingBytes ? undefined : missingCodec(ctx, doc, row.name)
      if (missing !== undefined) throw noCodec(ctx, 'open', target.id, row.name, missing)
      if (!existingBytes && value.text !== undefined && codec === textCodec) {
        // A true append: concurrent appends from two peers both survive. The text and its version
        // in one transaction, as `writeIntoDoc` writes: one update for peers and the server.
        const ytext = doc.getText('text')
        // An append reads nothing: what this instance last saw stays. But when it saw the file as
        // it is (its own last write, say), it still does with its own text added, so a later
        // whole-file write of it replaces rather than merges against the state before the append.
        const upToDate = sawCurrentContent(ctx, target.id, doc, row.name)
        let text = ''
        size = 0
        doc.transact(() => {
          ytext.insert(ytext.length, value.text!)
          text = ytext.toString()
          size = utf8Length(text)
          recordFileVersion(ctx, doc, row.name, size, 'write')
        }, FS_ORIGIN)
        if (upToDate) ctx.seen.markSeen(target.id, codec.id)
        ctx.index.plaintext.set(target.id, text, size)
      } else {
        const before = existingBytes ?? encodeUtf8(readText(ctx, doc, row.name))
        const add = value.bytes ?? encodeUtf8(value.text ?? '')
        const all = new Uint8Array(before.byteLength + add.byteLength)
        all.set(before)
        all.set(add, before.byteLength)
        handle.release()
        const text = decodeTextOrBinary(all)
        size = await writeContent(ctx, target.id, row.name, text === undefined ? { bytes: all } : { text })
      }
    } finally {
      handle.release()
    }
    ctx.table.update(target.id, contentPatch(ctx, target.id, size), FS_ORIGIN)
  })
}

/** `a` then `b`: text when both are text, else bytes (text again when they decode as text). */
function concatContent(a: FileContentValue, b: FileContentValue): FileContentValue {
  if (a.text !== undefined && b.text !== undefined) return { text: a.text + b.text }
  const before = a.bytes ?? encodeUtf8(a.text ?? '')
  const add = b.bytes ?? encodeUtf8(b.text ?? '')
  const all = new Uint8Array(before.byteLength + add.byteLength)
  all.set(before)
  all.set(add, before.byteLength)
  const text = decodeTextOrBinary(all)
  return text === undefined ? { bytes: all } : { text }
}

/** Synchronous write used by just-bash only for system paths (command stubs, /dev, /proc). */
export function writeFileSync(ctx: FsContext, path: string, content: FileContent): void {
  const normalized = normalizePath(path, 'write')
  if (!isSystemPath(normalized)) throw enosys('write', path, 'synchronous writes are only for system paths')
  ctx.local.writeFileSync(normalized, content)
}

/** Encoded Yjs snapshot of a file's content doc now: a `base` for a later `write` (`{ snapshot }`). */
export async function contentSnapshot(ctx: FsContext, path: string): Promise<Uint8Array> {
  const row = fileAt(ctx, path, 'open')
  const handle = await ctx.pool.acquire(row.id)
  try {
    return Y.encodeSnapshot(Y.snapshot(handle.doc))
  } finally {
    handle.release()
  }
}
