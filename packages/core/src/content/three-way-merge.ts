/**
 * Three-way merge of unit sequences: `base` is what a writer last saw,
 * `ours` what it writes, `theirs` what is there now. Units are lines for
 * text and blocks for Markdown (a codec's `mergeUnits`); they are compared
 * by string equality, never split.
 *
 * Each side's changes against the base are found as hunks (a jsdiff Myers
 * diff after trimming the common prefix and suffix, so a few local edits in
 * a large file cost little; a run of k units replaced by k units counts as
 * k one-unit edits). Hunks of the two sides that do not overlap all
 * apply. Two hunks overlap when their base ranges share a unit, or when both
 * insert at the same place (the order would be a guess). Hunks that merely
 * touch (an edit of line 5 and an edit of line 6) do not overlap: unlike
 * diff3, both apply. Overlapping deletions delete their union. Where hunks
 * overlap otherwise, the writer's version of the region wins, unless both
 * sides made the same change; each such region is reported
 * with its unit ranges in the result and in `theirs`.
 *
 * Deliberately not here: how units are made, what "winning" keeps in
 * history, or anything about Yjs.
 *
 * @example
 * mergeText('a\nb\nc\n', 'A\nb\nc\n', 'a\nb\nC\n').text // 'A\nb\nC\n'
 */
import { diffArrays } from 'diff'

/** A range of units (or lines): `start` is 0-based for units, 1-based for lines. */
export interface UnitRange {
  start: number
  count: number
}

/** A region both sides changed: the writer's version is in the result, theirs was replaced. */
export interface UnitConflict {
  /** Where the writer's version of the region is in the merged result. */
  ours: UnitRange
  /** Where the replaced version of the region is in `theirs`. */
  theirs: UnitRange
}

export interface UnitMergeResult {
  units: string[]
  conflicts: UnitConflict[]
}

/** A region of lines (1-based, like a unified diff hunk header) both sides changed. */
export interface ConflictRegion {
  /** Lines of the written result that hold the writer's version of the region. */
  lines: UnitRange
  /** Lines of the replaced content (the concurrent version) that the writer's version replaced. */
  theirs: UnitRange
}

export interface TextMergeResult {
  text: string
  conflicts: ConflictRegion[]
}

interface Hunk {
  side: 'ours' | 'theirs'
  /** Replaced base units [oStart, oEnd). */
  oStart: number
  oEnd: number
  /** Replacement units [start, end) of the side. */
  start: number
  end: number
}

// Past this many changed units on one side, the changed middle is taken as one hunk.
const MAX_EDIT_LENGTH = 5_000

/** Changes of `side` against `base` as hunks, in base order. */
function hunksOf(base: readonly string[], side: readonly string[], tag: Hunk['side']): Hunk[] {
  const max = Math.min(base.length, side.length)
  let pre = 0
  while (pre < max && base[pre] === side[pre]) pre++
  if (pre === base.length && pre === side.length) return []
  let suf = 0
  while (
    suf < base.length - pre &&
    suf < side.length - pre &&
    base[base.length - 1 - suf] === side[side.length - 1 - suf]
  )
    suf++
  const oldMid = base.slice(pre, base.length - suf)
  const newMid = side.slice(pre, side.length - suf)
  const whole: Hunk = { side: tag, oStart: pre, oEnd: base.length - suf, start: pre, end: side.length - suf }
  if (oldMid.length === 0 || newMid.length === 0) return [whole]
  const parts = diffArrays(oldMid, newMid, { maxEditLength: MAX_EDIT_LENGTH })
  if (!parts) return [whole]
  const out: Hunk[] = []
  let o = pre
  let s = pre
  let cur: Hunk | undefined
  for (const part of parts) {
    const n = part.count ?? part.value.length
    if (part.added) {
      cur ??= { side: tag, oStart: o, oEnd: o, start: s, end: s }
      cur.end += n
      s += n
    } else if (part.removed) {
      cur ??= { side: tag, oStart: o, oEnd: o, start: s, end: s }
      cur.oEnd += n
      o += n
    } else {
      if (cur) out.push(cur)
      cur = undefined
      o += n
      s += n
    }
  }
  if (cur) out.push(cur)
  return slideDown(
    out.flatMap((h) => pairUp(h, base, side)),
    base,
    side,
  )
}

/**
 * Move every pure deletion and insertion as far down as it can go without
 * changing its meaning (deleting `\n P` from `… \n P \n …` is the same as
 * deleting `P \n`), so both sides' hunks sit in one canonical place: when
 * two sides delete neighbouring blocks, their deletions then touch instead of
 * overlapping on the blank line between them.
 */
function slideDown(hunks: Hunk[], base: readonly string[], side: readonly string[]): Hunk[] {
  for (let i = hunks.length - 1; i >= 0; i--) {
    const h = hunks[i]!
    const next = hunks[i + 1]
    if (h.start === h.end)
      while (h.oEnd < base.length && base[h.oStart] === base[h.oEnd] && (!next || next.oStart > h.oEnd)) {
        h.oStart++
        h.oEnd++
        h.start++
        h.end++
      }
    else if (h.oStart === h.oEnd)
      while (h.end < side.length && side[h.start] === side[h.end] && (!next || next.start > h.end)) {
        h.oStart++
        h.oEnd++
        h.start++
        h.end++
      }
  }
  return hunks
}

/**
 * A hunk that replaces k units by k units is taken as k one-unit
 * replacements (each line edited in place), so an edit of the next line by
 * the other side only touches it instead of overlapping the whole run.
 */
function pairUp(h: Hunk, base: readonly string[], side: readonly string[]): Hunk[] {
  const n = h.oEnd - h.oStart
  if (n < 2 || h.end - h.start !== n) return [h]
  const out: Hunk[] = []
  for (let i = 0; i < n; i++)
    if (base[h.oStart + i] !== side[h.start + i])
      out.push({
        side: h.side,
        oStart: h.oStart + i,
        oEnd: h.oStart + i + 1,
        start: h.start + i,
        end: h.start + i + 1,
      })
  return out
}

const isInsert = (h: { oStart: number; oEnd: number }) => h.oStart === h.oEnd

function overlaps(region: { oStart: number; oEnd: number }, h: Hunk): boolean {
  if (isInsert(region) && isInsert(h)) return region.oStart === h.oStart
  return h.oStart < region.oEnd && region.oStart < h.oEnd
}

/** The units of `side`'s version of base[oStart, oEnd), given that side's hunks inside the region. */
function versionOf(
  base: readonly string[],
  side: readonly string[],
  hunks: readonly Hunk[],
  oStart: number,
  oEnd: number,
): string[] {
  const out: string[] = []
  let pos = oStart
  for (const h of hunks) {
    for (let i = pos; i < h.oStart; i++) out.push(base[i]!)
    for (let i = h.start; i < h.end; i++) out.push(side[i]!)
    pos = h.oEnd
  }
  for (let i = pos; i < oEnd; i++) out.push(base[i]!)
  return out
}

/** Merge unit sequences; see the module header for the rules. */
export function mergeUnits(
  base: readonly string[],
  ours: readonly string[],
  theirs: readonly string[],
): UnitMergeResult {
  const hunks = [...hunksOf(base, ours, 'ours'), ...hunksOf(base, theirs, 'theirs')]
  // Base order; at one position an insertion goes before a replacement that starts there.
  hunks.sort((x, y) => x.oStart - y.oStart || Number(isInsert(y)) - Number(isInsert(x)))
  const units: string[] = []
  const conflicts: UnitConflict[] = []
  let pos = 0
  // theirs index = base index + theirShift for base positions after the theirs hunks seen so far.
  let theirShift = 0
  for (let i = 0; i < hunks.length; ) {
    const group = [hunks[i]!]
    const region = { oStart: hunks[i]!.oStart, oEnd: hunks[i]!.oEnd }
    for (i++; i < hunks.length && overlaps(region, hunks[i]!); i++) {
      group.push(hunks[i]!)
      region.oEnd = Math.max(region.oEnd, hunks[i]!.oEnd)
    }
    for (let k = pos; k < region.oStart; k++) units.push(base[k]!)
    const mine = group.filter((h) => h.side === 'ours')
    const other = group.filter((h) => h.side === 'theirs')
    const theirStart = region.oStart + theirShift
    const theirVersion = versionOf(base, theirs, other, region.oStart, region.oEnd)
    theirShift += theirVersion.length - (region.oEnd - region.oStart)
    if (group.every((h) => h.start === h.end) && other.length > 0 && mine.length > 0) {
      // Both only deleted (e.g. neighbouring blocks and the blank line between them): delete the union.
      for (let k = region.oStart; k < region.oEnd; k++)
        if (!group.some((h) => h.oStart <= k && k < h.oEnd)) units.push(base[k]!)
    } else if (other.length === 0 || mine.length === 0) {
      units.push(
        ...(other.length === 0 ? versionOf(base, ours, mine, region.oStart, region.oEnd) : theirVersion),
      )
    } else {
      const ourVersion = versionOf(base, ours, mine, region.oStart, region.oEnd)
      const same =
        ourVersion.length === theirVersion.length && ourVersion.every((u, k) => u === theirVersion[k])
      if (!same)
        conflicts.push({
          ours: { start: units.length, count: ourVersion.length },
          theirs: { start: theirStart, count: theirVersion.length },
        })
      units.push(...ourVersion)
    }
    pos = region.oEnd
  }
  for (let k = pos; k < base.length; k++) units.push(base[k]!)
  return { units, conflicts }
}

/** Lines of a text, each with its line end; `join('')` gives the text back. */
export function splitLines(text: string): string[] {
  // An indexOf loop: several times faster than split(/(?<=\n)/) on megabyte texts.
  const out: string[] = []
  let start = 0
  for (let end = text.indexOf('\n'); end !== -1; end = text.indexOf('\n', start)) {
    out.push(text.slice(start, end + 1))
    start = end + 1
  }
  if (start < text.length) out.push(text.slice(start))
  return out
}

function countLines(units: readonly string[], from: number, to: number): number {
  let n = 0
  for (let i = from; i < to; i++) for (const ch of units[i]!) if (ch === '\n') n++
  return n
}

/** The 1-based line range that units [start, start + count) cover. */
function lineRange(units: readonly string[], range: UnitRange): UnitRange {
  const start = 1 + countLines(units, 0, range.start)
  const end = range.start + range.count
  let count = countLines(units, range.start, end)
  // A last unit without a line end is one more (partial) line.
  if (range.count > 0 && !units[end - 1]!.endsWith('\n')) count++
  return { start, count }
}

/**
 * Merge texts split into units by `split` (lines by default); conflict
 * regions come back as line ranges of the result and of `theirs`.
 */
export function mergeText(
  base: string,
  ours: string,
  theirs: string,
  split: (text: string) => string[] = splitLines,
): TextMergeResult {
  const theirUnits = split(theirs)
  const merged = mergeUnits(split(base), split(ours), theirUnits)
  return {
    text: merged.units.join(''),
    conflicts: merged.conflicts.map((c) => ({
      lines: lineRange(merged.units, c.ours),
      theirs: lineRange(theirUnits, c.theirs),
    })),
  }
}
