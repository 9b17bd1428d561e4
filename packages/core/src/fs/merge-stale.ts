/**
 * A stale whole-file write against a content doc: finds the base (what the
 * writer saw: explicit, or this instance's last-seen snapshot), asks
 * stale-write.ts what to write, fills in the write's report, and keeps the
 * current content as a `conflict` version when part of it is overwritten.
 *
 * Runs inside `writeContent`, on the doc it holds, before the write.
 */
import * as Y from 'yjs'
import { readBinary } from '../content/binary.js'
import type { ContentCodec } from '../content/codec.js'
import { textCodec } from '../content/text-codec.js'
import { utf8Length } from '../encoding.js'
import {
  hasUnversionedChanges,
  listStoredVersions,
  readSnapshotContent,
  toFileVersion,
} from '../history/file-history.js'
import type { FileId } from '../ids.js'
import { codecFor, type FileContentValue, readText, recordPendingVersion } from './content-codecs.js'
import type { FsContext } from './fs-context.js'
import {
  type ContentValue,
  normalizeWithCodec,
  resolveStaleWrite,
  sameContent,
  type WriteBase,
  type WriteReport,
} from './stale-write.js'

/** A whole-file write that merges: against `base` (else the last-seen state), reporting into `report`. */
export interface StaleWrite {
  base?: WriteBase
  report: WriteReport
}

/**
 * A whole-file write against what the writer saw (`stale.base`, else this
 * instance's last-seen state): returns what to write (and, when it read it,
 * the current text, so the write need not read it again), fills in the
 * report, and keeps the current content as a version when part of it is
 * overwritten.
 */
export function mergeStale(
  ctx: FsContext,
  id: FileId,
  doc: Y.Doc,
  name: string,
  value: FileContentValue,
  stale: StaleWrite,
): { value: FileContentValue; current?: string } {
  const codec = codecFor(ctx, name)
  const base = baseOf(ctx, id, doc, codec, stale.base)
  if (base === undefined) return { value }
  const bytes = readBinary(doc)
  const theirs: ContentValue = bytes ? { bytes } : { text: readText(ctx, doc, name) }
  // Compare and merge what the codec would store (Markdown re-serialises).
  const ours =
    value.text !== undefined && codec !== textCodec ? { text: normalizeWithCodec(codec, value.text) } : value
  const r = resolveStaleWrite(base ?? { bytes: new Uint8Array() }, ours, theirs, codec.merge?.bind(codec))
  stale.report.merged = r.merged
  stale.report.conflicts = r.conflicts
  if (r.overwritten || base === null) {
    stale.report.conflict = true
    let last = listStoredVersions(doc).at(-1)
    if (!last || hasUnversionedChanges(doc))
      last = recordPendingVersion(
        ctx,
        doc,
        name,
        theirs.bytes?.byteLength ?? utf8Length(theirs.text ?? ''),
        'conflict',
      )
    stale.report.replacedVersion = toFileVersion(last)
  }
  return { value: r.merged ? r.value : value, current: theirs.text }
}

/**
 * True when what this instance last saw of `id` is the doc's content now: a change of its own on
 * top (an append) then leaves it still up to date, and a later whole-file write is no merge.
 */
export function sawCurrentContent(ctx: FsContext, id: FileId, doc: Y.Doc, name: string): boolean {
  const seen = ctx.seen.get(id)
  if (seen === undefined) return false
  if (seen.kind === 'current') return true
  const base = baseOf(ctx, id, doc, codecFor(ctx, name))
  if (!base) return false
  const bytes = readBinary(doc)
  return sameContent(base, bytes ? { bytes } : { text: readText(ctx, doc, name) })
}

/** The base of a stale write: explicit, or the last-seen snapshot; `undefined` when fresh or never seen, `null` when unreadable. */
function baseOf(
  ctx: FsContext,
  id: FileId,
  doc: Y.Doc,
  codec: ContentCodec,
  explicit?: WriteBase,
): ContentValue | null | undefined {
  if (explicit && 'snapshot' in explicit)
    return readSnapshotContent(doc, Y.decodeSnapshot(explicit.snapshot), codec)
  if (explicit) return explicit
  const seen = ctx.seen.get(id)
  if (seen?.kind !== 'snapshot') return undefined
  const seenCodec = ctx.codecs.find((c) => c.id === seen.codec) ?? textCodec
  try {
    return readSnapshotContent(doc, seen.snapshot, seenCodec)
  } catch (error) {
    // A snapshot the doc can no longer rebuild (content dropped elsewhere): the writer wins, theirs is kept as a version.
    if (error instanceof Error) return null
    throw error
  }
}
