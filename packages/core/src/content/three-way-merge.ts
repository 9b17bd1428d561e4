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
 * (A little over 400 lines: the hunk pairing, the region building and the
 * line bookkeeping of the report are one algorithm over one set of ranges;
 * half the file is its types and comments.)
 *
 * @example
 * mergeText('a\nb\nc\n', 'A\nb\nc\n', 'a\nb\nC\n').text // 'A\nb\nC\n'
 */
import { diffArrays } from 'diff'
import { commonPrefixLength, commonSuffixLength } from './common-affix.js'

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

/** A sequence of units read by index: an array, or the lines of a text (never split whole). */
interface Units {
  readonly length: number
  at(i: number): string
  /** Units [from, to) as an array. */
  range(from: number, to: number): string[]
}

class ArrayUnits implements Units {
  constructor(readonly units: readonly string[]) {}
  get length(): number {
    return this.units.length
  }
  at(i: number): string {
    return this.units[i]!
  }
  range(from: number, to: number): string[] {
    return this.units.slice(from, to)
  }
}

/**
 * The lines of a text (as `splitLines` gives them) by their start offsets:
 * one indexOf pass, no line strings until a line is read.
 */
class TextLines implements Units {
  readonly text: string
  /** Start offset of each line, then `text.length`. */
  readonly starts: number[]
  readonly length: number
  constructor(text: string) {
    this.text = text
    const starts = [0]
    for (let end = text.indexOf('\n'); end !== -1 && end + 1 < text.length; end = text.indexOf('\n', end + 1))
      starts.push(end + 1)
    if (text.length === 0) starts.pop()
    starts.push(text.length)
    this.starts = starts
    this.length = starts.length - 1
  }
  at(i: number): string {
    return this.text.slice(this.starts[i]!, this.starts[i + 1]!)
  }
  range(from: number, to: number): string[] {
    const out: string[] = []
    for (let i = from; i < to; i++) out.push(this.at(i))
    return out
  }
  /** Line ends in lines [0, i). */
  newlinesBefore(i: number): number {
    return i === this.length && i > 0 && !this.text.endsWith('\n') ? i - 1 : i
  }
}

// Past this many changed units on one side, the changed middle is taken as one hunk.
const MAX_EDIT_LENGTH = 5_000

/** Units equal at the start and (not overlapping them) at the end of `base` and `side`. */
function commonEnds(base: Units, side: Units): { pre: number; suf: number } {
  if (base instanceof TextLines && side instanceof TextLines) return commonLineEnds(base, side)
  const max = Math.min(base.length, side.length)
  let pre = 0
  while (pre < max && base.at(pre) === side.at(pre)) pre++
  let suf = 0
  while (
    suf < base.length - pre &&
    suf < side.length - pre &&
    base.at(base.length - 1 - suf) === side.at(side.length - 1 - suf)
  )
    suf++
  return { pre, suf }
}

/** `commonEnds` of two texts' lines from their common prefix and suffix of characters. */
function commonLineEnds(base: TextLines, side: TextLines): { pre: number; suf: number } {
  if (base.text === side.text) return { pre: base.length, suf: 0 }
  // Lines that end before the first differing character are equal, and start alike in both.
  const cp = commonPrefixLength(base.text, side.text)
  let lo = 0
  let hi = base.length
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (base.starts[mid]! <= cp) lo = mid
    else hi = mid - 1
  }
  // A last line without a line end equals the other side's only if the texts are equal.
  const pre = lo > 0 && lo === base.length && !base.text.endsWith('\n') ? lo - 1 : lo
  // The last k lines are equal when both tails from a line start are the same string.
  const cs = commonSuffixLength(base.text, side.text)
  const limit = Math.min(base.length, side.length) - pre
  let suf = 0
  while (suf < limit) {
    const tail = base.text.length - base.starts[base.length - 1 - suf]!
    if (tail > cs || side.text.length - side.starts[side.length - 1 - suf]! !== tail) break
    suf++
  }
  return { pre, suf }
}

/** Changes of `side` against `base` as hunks, in base order. */
function hunksOf(base: Units, side: Units, tag: Hunk['side']): Hunk[] {
  const { pre, suf } = commonEnds(base, side)
  if (pre === base.length && pre === side.length) return []
  const whole: Hunk = { side: tag, oStart: pre, oEnd: base.length - suf, start: pre, end: side.length - suf }
  if (whole.oStart === whole.oEnd || whole.start === whole.end) return [whole]
  const oldMid = base.range(pre, base.length - suf)
  const newMid = side.range(pre, side.length - suf)
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
function slideDown(hunks: Hunk[], base: Units, side: Units): Hunk[] {
  for (let i = hunks.length - 1; i >= 0; i--) {
    const h = hunks[i]!
    const next = hunks[i + 1]
    if (h.start === h.end)
      while (
        h.oEnd < base.length &&
        base.at(h.oStart) === base.at(h.oEnd) &&
        (!next || next.oStart > h.oEnd)
      ) {
        h.oStart++
        h.oEnd++
        h.start++
        h.end++
      }
    else if (h.oStart === h.oEnd)
      while (h.end < side.length && side.at(h.start) === side.at(h.end) && (!next || next.start > h.end)) {
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
function pairUp(h: Hunk, base: Units, side: Units): Hunk[] {
  const n = h.oEnd - h.oStart
  if (n < 2 || h.end - h.start !== n) return [h]
  const out: Hunk[] = []
  for (let i = 0; i < n; i++)
    if (base.at(h.oStart + i) !== side.at(h.start + i))
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
function versionOf(base: Units, side: Units, hunks: readonly Hunk[], oStart: number, oEnd: number): string[] {
  const out: string[] = []
  let pos = oStart
  for (const h of hunks) {
    for (let i = pos; i < h.oStart; i++) out.push(base.at(i))
    for (let i = h.start; i < h.end; i++) out.push(side.at(i))
    pos = h.oEnd
  }
  for (let i = pos; i < oEnd; i++) out.push(base.at(i))
  return out
}

/** Where merged units go: runs of base units are copied whole. */
interface Sink {
  /** Units written so far. */
  readonly count: number
  /** Append base units [from, to). */
  copy(from: number, to: number): void
  push(units: readonly string[]): void
}

class ArraySink implements Sink {
  readonly units: string[] = []
  constructor(readonly base: Units) {}
  get count(): number {
    return this.units.length
  }
  copy(from: number, to: number): void {
    for (let k = from; k < to; k++) this.units.push(this.base.at(k))
  }
  push(units: readonly string[]): void {
    for (const u of units) this.units.push(u)
  }
}

/** Collects the merged text as slices of the base text and lines, counting line ends. */
class TextSink implements Sink {
  readonly #pieces: string[] = []
  count = 0
  /** Line ends written so far. */
  newlines = 0
  constructor(readonly base: TextLines) {}
  copy(from: number, to: number): void {
    if (from >= to) return
    this.#pieces.push(this.base.text.slice(this.base.starts[from]!, this.base.starts[to]!))
    this.count += to - from
    this.newlines += this.base.newlinesBefore(to) - this.base.newlinesBefore(from)
  }
  push(units: readonly string[]): void {
    for (const u of units) {
      this.#pieces.push(u)
      if (u.endsWith('\n')) this.newlines++
    }
    this.count += units.length
  }
  text(): string {
    return this.#pieces.join('')
  }
}

/** Merge into `sink`; `onConflict` is called before the writer's version of each conflict region is written. */
function mergeInto(
  base: Units,
  ours: Units,
  theirs: Units,
  sink: Sink,
  onConflict: (conflict: UnitConflict, ourVersion: readonly string[]) => void,
): void {
  const hunks = [...hunksOf(base, ours, 'ours'), ...hunksOf(base, theirs, 'theirs')]
  // Base order; at one position an insertion goes before a replacement that starts there.
  hunks.sort((x, y) => x.oStart - y.oStart || Number(isInsert(y)) - Number(isInsert(x)))
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
    sink.copy(pos, region.oStart)
    const mine = group.filter((h) => h.side === 'ours')
    const other = group.filter((h) => h.side === 'theirs')
    const theirStart = region.oStart + theirShift
    const theirVersion = versionOf(base, theirs, other, region.oStart, region.oEnd)
    theirShift += theirVersion.length - (region.oEnd - region.oStart)
    if (group.every((h) => h.start === h.end) && other.length > 0 && mine.length > 0) {
      // Both only deleted (e.g. neighbouring blocks and the blank line between them): delete the union.
      for (let k = region.oStart; k < region.oEnd; k++)
        if (!group.some((h) => h.oStart <= k && k < h.oEnd)) sink.copy(k, k + 1)
    } else if (other.length === 0 || mine.length === 0) {
      sink.push(other.length === 0 ? versionOf(base, ours, mine, region.oStart, region.oEnd) : theirVersion)
    } else {
      const ourVersion = versionOf(base, ours, mine, region.oStart, region.oEnd)
      const same =
        ourVersion.length === theirVersion.length && ourVersion.every((u, k) => u === theirVersion[k])
      if (!same)
        onConflict(
          {
            ours: { start: sink.count, count: ourVersion.length },
            theirs: { start: theirStart, count: theirVersion.length },
          },
          ourVersion,
        )
      sink.push(ourVersion)
    }
    pos = region.oEnd
  }
  sink.copy(pos, base.length)
}

/** Merge unit sequences; see the module header for the rules. */
export function mergeUnits(
  base: readonly string[],
  ours: readonly string[],
  theirs: readonly string[],
): UnitMergeResult {
  const baseUnits = new ArrayUnits(base)
  const sink = new ArraySink(baseUnits)
  const conflicts: UnitConflict[] = []
  mergeInto(baseUnits, new ArrayUnits(ours), new ArrayUnits(theirs), sink, (c) => conflicts.push(c))
  return { units: sink.units, conflicts }
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
  if (split === splitLines) return mergeLines(base, ours, theirs)
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

/**
 * `mergeText` by lines without splitting the texts: the common prefix and
 * suffix of each side are found on the characters, only the changed middles
 * become line arrays, and unchanged runs are copied as slices of the base.
 * Same result as merging `splitLines` of each text.
 */
function mergeLines(base: string, ours: string, theirs: string): TextMergeResult {
  const baseLines = new TextLines(base)
  const theirLines = new TextLines(theirs)
  const sink = new TextSink(baseLines)
  const conflicts: ConflictRegion[] = []
  mergeInto(baseLines, new TextLines(ours), theirLines, sink, (c, ourVersion) => {
    const last = ourVersion[ourVersion.length - 1]
    const ourNewlines = ourVersion.reduce((n, u) => n + (u.endsWith('\n') ? 1 : 0), 0)
    conflicts.push({
      lines: {
        start: 1 + sink.newlines,
        count: ourNewlines + (last !== undefined && !last.endsWith('\n') ? 1 : 0),
      },
      theirs: { start: 1 + theirLines.newlinesBefore(c.theirs.start), count: c.theirs.count },
    })
  })
  return { text: sink.text(), conflicts }
}
