/**
 * What a whole-file write does when the file changed since the writer last
 * saw it: a three-way merge with base = what the writer saw, ours = what it
 * writes, theirs = what is there now.
 *
 * - theirs equals the base: nothing to merge, ours is written as is.
 * - text: merged unit by unit (lines, or the codec's blocks); edits that do
 *   not overlap all survive, where both changed a region the writer's
 *   version wins (see three-way-merge.ts).
 * - binary on any side, or an empty write (a truncation, `: > f`): no merge,
 *   the writer's content replaces the whole file.
 *
 * Whenever something of theirs is overwritten the caller keeps theirs as a
 * history version first; this module only decides the content.
 */
import type { BufferEncoding } from 'just-bash'
import * as Y from 'yjs'
import type { ContentCodec } from '../content/codec.js'
import { type ConflictRegion, mergeText, type TextMergeResult } from '../content/three-way-merge.js'
import type { FileVersion } from '../history/file-history.js'

/** File content: text, or bytes when binary. */
export interface ContentValue {
  text?: string
  bytes?: Uint8Array
}

export interface StaleWriteResolution {
  /** What to write. */
  value: ContentValue
  /** Theirs differed from the base: concurrent changes were taken into account. */
  merged: boolean
  /** Something of theirs is overwritten (keep it as a version first). */
  overwritten: boolean
  /** Overwritten line regions; empty when the whole file was replaced. */
  conflicts: ConflictRegion[]
}

export function sameContent(a: ContentValue, b: ContentValue): boolean {
  if (a.bytes || b.bytes) {
    if (!a.bytes || !b.bytes || a.bytes.byteLength !== b.bytes.byteLength) return false
    return a.bytes.every((x, i) => x === b.bytes![i])
  }
  return (a.text ?? '') === (b.text ?? '')
}

/** Decide the content of a stale write; `merge` merges texts (lines by default, a codec's own merge). */
export function resolveStaleWrite(
  base: ContentValue,
  ours: ContentValue,
  theirs: ContentValue,
  merge: (base: string, ours: string, theirs: string) => TextMergeResult = mergeText,
): StaleWriteResolution {
  if (sameContent(base, theirs)) return { value: ours, merged: false, overwritten: false, conflicts: [] }
  if (sameContent(ours, theirs)) return { value: ours, merged: true, overwritten: false, conflicts: [] }
  if (base.bytes || ours.bytes || theirs.bytes || ours.text === '')
    return { value: ours, merged: true, overwritten: true, conflicts: [] }
  const r = merge(base.text ?? '', ours.text ?? '', theirs.text ?? '')
  return {
    value: { text: r.text },
    merged: true,
    overwritten: r.conflicts.length > 0,
    conflicts: r.conflicts,
  }
}

/** What `codec` would store for `text` (Markdown re-serialises); identity for the text codec. */
export function normalizeWithCodec(codec: ContentCodec, text: string): string {
  const scratch = new Y.Doc({ guid: 'yfs-normalize', gc: false })
  try {
    codec.write(scratch, text)
    return codec.read(scratch)
  } finally {
    scratch.destroy()
  }
}

/**
 * The base of a write given explicitly (`fs.write(path, content, { base })`),
 * for a writer that keeps its own record of what it last synced (the disk
 * daemon after a restart): the text or bytes, or an encoded Yjs snapshot of
 * the file's content doc (`fs.contentSnapshot(path)`).
 */
export type WriteBase = { text: string } | { bytes: Uint8Array } | { snapshot: Uint8Array }

export interface WriteOptions {
  /** Encoding of a string `content` (default utf8). */
  encoding?: BufferEncoding
  /** Merge against this instead of what this instance last saw. */
  base?: WriteBase
}

/** What a whole-file write did (`fs.write`). */
export interface WriteReport {
  /** The path written (symlinks followed). */
  path: string
  /** Byte size after the write. */
  size: number
  created: boolean
  /** The file had changed since the writer last saw it (or since `base`); those changes were merged in. */
  merged: boolean
  /** Part of a concurrent change was overwritten: the writer's version of a region both changed won. */
  conflict: boolean
  /** Line regions (of the written file and of `replacedVersion`) where the writer's version won; empty when the whole file was replaced (binary content, an empty write). */
  conflicts: ConflictRegion[]
  /** With `conflict`: the version holding the content before this write (`fs.diff(path, id)`, `fs.restore(path, id)`). */
  replacedVersion?: FileVersion
}
