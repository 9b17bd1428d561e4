/**
 * Scanning one file's text for a compiled query (query.ts): its matching
 * lines, the first few matches, whether a match is a whole word; then the
 * ranking of files and the page of hits with snippets. Every implementation
 * (in-process index, PostgreSQL) ends here, so they rank and page alike.
 *
 * Literals are found with `indexOf` over the text (or its folded form when
 * folding kept every position), and checked with RE2 only where case folding
 * is not plain ASCII lowercasing; regexes run line by line, after a cheap
 * check of the line against the query's requirement.
 *
 * Not here: which files to scan (trigram-index.ts, search-index.ts).
 */

import { foldText } from './fold.js'
import { hasSurrogates } from './js-regex.js'
import type { CompiledQuery } from './query.js'
import { firstMatch } from './query.js'
import { type Requirement, satisfies } from './requirement.js'
import type { SearchHit, SearchMatch } from './types.js'

/** A file's text as the scanner takes it. */
export interface ScanText {
  text: string
  /** `foldText(text)` when it has the same length (positions line up); otherwise undefined. */
  folded?: string
  /** The text is ASCII only. */
  ascii?: boolean
  /** `nonAsciiOffsets(text)`, when known. */
  nonAscii?: Uint32Array
  /** `newlineOffsets(text)`, when known. */
  newlines?: Uint32Array
  /** `hasSurrogates(text)`, when known. */
  surrogates?: boolean
}

/** A matching line found by a scan, with the first match's offsets in the text when known. */
export interface RawMatch {
  /** 0-based line number. */
  line: number
  lineStart: number
  lineEnd: number
  start?: number
  end?: number
}

/** What a scan found in one file. */
export interface FileScan {
  text: string
  matchingLines: number
  wordMatch: boolean
  density: number
  /** The first matching lines (at most `perFile`). */
  matches: RawMatch[]
}

/** A scanned file with its path, ready to rank. */
export interface RankedFile extends FileScan {
  path: string
  pathMatch: boolean
}

const isWordCode = (c: number) =>
  (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95

// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII range
const NON_ASCII_RUN = /[^\x00-\x7f]+/g

/** Offsets of the non-ASCII code units of `text`, ascending. */
export function nonAsciiOffsets(text: string): Uint32Array {
  // Runs found natively (most text is ASCII with a few other characters), not unit by unit.
  const out: number[] = []
  NON_ASCII_RUN.lastIndex = 0
  for (let m = NON_ASCII_RUN.exec(text); m !== null; m = NON_ASCII_RUN.exec(text))
    for (let i = m.index; i < NON_ASCII_RUN.lastIndex; i++) out.push(i)
  return Uint32Array.from(out)
}

/** Offsets of the `\n`s of `text`, ascending. */
export function newlineOffsets(text: string): Uint32Array {
  const out: number[] = []
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) out.push(at)
  return Uint32Array.from(out)
}

/**
 * Scan `doc` for `q`: matching lines (a line matches when the query matches in it), whether
 * a match stands as a whole word (`q.wordRe`), and the first `perFile` matching lines;
 * undefined when no line matches. Match offsets are found here for literals (free) and
 * left to `toHit` for regexes (RE2 finds where several times slower than whether).
 */
export function scanText(q: CompiledQuery, doc: ScanText, perFile: number): FileScan | undefined {
  const { text } = doc
  const newlines = doc.newlines ?? newlineOffsets(text)
  if (q.literal === undefined && q.jsRe !== undefined && !(doc.surrogates ?? hasSurrogates(text)))
    return scanWithJs(q, text, newlines, perFile)
  const matches: RawMatch[] = []
  let matchingLines = 0
  let wordMatch = false
  // Line j (0-based) spans [j ? newlines[j-1] + 1 : 0, j < newlines.length ? newlines[j] : text.length).
  let j = 0
  const lineOf = (pos: number) => {
    while (j < newlines.length && newlines[j]! < pos) j++
    return j
  }
  const startOf = (line: number) => (line === 0 ? 0 : newlines[line - 1]! + 1)
  const endOf = (line: number) => (line < newlines.length ? newlines[line]! : text.length)
  const found = (line: number, start?: number, end?: number) => {
    matchingLines++
    if (matches.length < perFile) {
      const m: RawMatch = { line, lineStart: startOf(line), lineEnd: endOf(line) }
      if (start !== undefined) {
        m.start = start
        m.end = end
      }
      matches.push(m)
    }
  }
  if (q.literal !== undefined && (q.caseSensitive || doc.folded !== undefined)) {
    // A literal: `indexOf` over the text or its folded form, one hit per line. Folded hits on
    // lines with non-ASCII characters (or of a non-ASCII literal) are checked with RE2, whose
    // case folding is the contract; on ASCII text folding is lowercasing, exactly.
    const exact = q.caseSensitive
    const needle = exact ? q.literal : q.foldedLiteral!
    const hay = exact ? text : doc.folded!
    const direct = exact || (q.asciiLiteral && needle.length === q.literal.length)
    const others =
      exact || (q.asciiLiteral && doc.ascii) ? undefined : (doc.nonAscii ?? nonAsciiOffsets(text))
    let k = 0
    for (let pos = hay.indexOf(needle); pos >= 0; ) {
      const line = lineOf(pos)
      const lineStart = startOf(line)
      const lineEnd = endOf(line)
      if (others !== undefined) while (k < others.length && others[k]! < lineStart) k++
      if (direct && (others === undefined || !(k < others.length && others[k]! < lineEnd))) {
        found(line, pos, pos + needle.length)
        // Whole word: some occurrence in the line with no word character on either side.
        for (let at = pos; !wordMatch && at >= 0 && at < lineEnd; at = hay.indexOf(needle, at + 1)) {
          const after = at + needle.length
          wordMatch =
            after <= lineEnd &&
            (at === lineStart || !isWordCode(text.charCodeAt(at - 1))) &&
            (after === lineEnd || !isWordCode(text.charCodeAt(after)))
        }
      } else {
        const lineText = text.slice(lineStart, lineEnd)
        const m = firstMatch(q, lineText)
        if (m) {
          found(line, lineStart + m[0], lineStart + m[1])
          if (!wordMatch) wordMatch = q.wordRe.test(lineText)
        }
      }
      if (lineEnd >= text.length) break
      pos = hay.indexOf(needle, lineEnd + 1)
    }
  } else {
    // Line by line with RE2. With a requirement, only lines holding one of its seed strings
    // (found with `indexOf` in the folded text) run; a line without a seed cannot match.
    const { folded } = doc
    const req = q.requirement
    const run = (line: number) => {
      const lineStart = startOf(line)
      const lineEnd = endOf(line)
      if (req !== true && folded !== undefined && !satisfies(folded.slice(lineStart, lineEnd), req)) return
      const lineText = text.slice(lineStart, lineEnd)
      if (!q.re.test(lineText)) return
      found(line)
      if (!wordMatch) wordMatch = q.wordRe.test(lineText)
    }
    const seeds = folded === undefined ? undefined : seedStrings(req)
    if (seeds === undefined) for (let line = 0; line <= newlines.length; line++) run(line)
    else {
      const lines = new Set<number>()
      for (const seed of seeds) {
        j = 0
        for (let pos = folded!.indexOf(seed); pos >= 0; ) {
          const line = lineOf(pos)
          lines.add(line)
          if (line >= newlines.length) break
          pos = folded!.indexOf(seed, newlines[line]! + 1)
        }
      }
      for (const line of [...lines].sort((a, b) => a - b)) run(line)
    }
  }
  if (matchingLines === 0) return undefined
  return { text, matchingLines, wordMatch, density: matchingLines / (newlines.length + 1), matches }
}

/**
 * `scanText` for a regex JavaScript runs alike (js-regex.ts), on text without surrogates: one
 * native pass over the text, the next search from the line after each match (no closures: it
 * runs on every file of a regex without trigrams).
 */
function scanWithJs(
  q: CompiledQuery,
  text: string,
  newlines: Uint32Array,
  perFile: number,
): FileScan | undefined {
  const re = q.jsRe!
  const word = q.jsWordRe!
  const matches: RawMatch[] = []
  let matchingLines = 0
  let wordMatch = false
  re.lastIndex = 0
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    const line = firstAtOrAfter(newlines, m.index)
    const lineStart = line === 0 ? 0 : newlines[line - 1]! + 1
    const lineEnd = line < newlines.length ? newlines[line]! : text.length
    matchingLines++
    if (matches.length < perFile) matches.push({ line, lineStart, lineEnd })
    if (!wordMatch) {
      word.lastIndex = 0
      wordMatch = word.test(text.slice(lineStart, lineEnd))
    }
    if (line >= newlines.length) break
    re.lastIndex = lineEnd + 1
  }
  if (matchingLines === 0) return undefined
  return { text, matchingLines, wordMatch, density: matchingLines / (newlines.length + 1), matches }
}

/**
 * True when some line of `doc` matches `q`: `scanText(q, doc, …) !== undefined`, found the
 * same way but stopping at the first matching line (and without closures: search runs it on
 * every candidate a page does not need in full, to count them).
 */
export function hasMatch(q: CompiledQuery, doc: ScanText): boolean {
  const { text } = doc
  const newlines = doc.newlines ?? newlineOffsets(text)
  if (q.literal !== undefined && (q.caseSensitive || doc.folded !== undefined)) {
    const exact = q.caseSensitive
    const needle = exact ? q.literal : q.foldedLiteral!
    const hay = exact ? text : doc.folded!
    const direct = exact || (q.asciiLiteral && needle.length === q.literal.length)
    const others =
      exact || (q.asciiLiteral && doc.ascii) ? undefined : (doc.nonAscii ?? nonAsciiOffsets(text))
    for (let pos = hay.indexOf(needle); pos >= 0; ) {
      const line = firstAtOrAfter(newlines, pos)
      const lineStart = line === 0 ? 0 : newlines[line - 1]! + 1
      const lineEnd = line < newlines.length ? newlines[line]! : text.length
      if (direct) {
        if (others === undefined) return true
        // No other character in the occurrence itself: ASCII letters equal under lowercasing
        // are equal under RE2's folding, so it is a match (scanText's test, per line, is
        // stricter because it also places the match and judges whole words).
        const k = firstAtOrAfter(others, pos)
        if (!(k < others.length && others[k]! < pos + needle.length)) return true
      }
      if (firstMatch(q, text.slice(lineStart, lineEnd))) return true
      if (lineEnd >= text.length) break
      pos = hay.indexOf(needle, lineEnd + 1)
    }
    return false
  }
  if (q.jsRe !== undefined && !(doc.surrogates ?? hasSurrogates(text))) {
    q.jsRe.lastIndex = 0
    return q.jsRe.test(text)
  }
  const { folded } = doc
  const req = q.requirement
  const test = (line: number): boolean => {
    const lineStart = line === 0 ? 0 : newlines[line - 1]! + 1
    const lineEnd = line < newlines.length ? newlines[line]! : text.length
    if (req !== true && folded !== undefined && !satisfies(folded.slice(lineStart, lineEnd), req))
      return false
    return q.re.test(text.slice(lineStart, lineEnd))
  }
  const seeds = folded === undefined ? undefined : seedStrings(req)
  if (seeds === undefined) {
    for (let line = 0; line <= newlines.length; line++) if (test(line)) return true
    return false
  }
  // Lines holding a seed, in order: one seed's are found in order, several are merged.
  const lines: number[] = []
  for (const seed of seeds) {
    for (let pos = folded!.indexOf(seed); pos >= 0; ) {
      const line = firstAtOrAfter(newlines, pos)
      if (seeds.length === 1) {
        if (test(line)) return true
      } else lines.push(line)
      if (line >= newlines.length) break
      pos = folded!.indexOf(seed, newlines[line]! + 1)
    }
  }
  if (seeds.length === 1) return false
  for (const line of [...new Set(lines)].sort((a, b) => a - b)) if (test(line)) return true
  return false
}

/** The first index of ascending `offsets` whose offset is ≥ `at` (`offsets.length` when none). */
function firstAtOrAfter(offsets: Uint32Array, at: number): number {
  let lo = 0
  let hi = offsets.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (offsets[mid]! < at) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Strings one of which every line satisfying `req` contains; undefined when there are none. */
function seedStrings(req: Requirement): string[] | undefined {
  if (req === true) return undefined
  if (typeof req === 'string') return [req]
  if ('or' in req) {
    const all: string[] = []
    for (const r of req.or) {
      const seeds = seedStrings(r)
      if (seeds === undefined) return undefined
      all.push(...seeds)
    }
    return all
  }
  // And: the child whose shortest seed is longest (rarest, as a guess).
  let best: string[] | undefined
  let bestLength = -1
  for (const r of req.and) {
    const seeds = seedStrings(r)
    if (seeds === undefined) continue
    const shortest = Math.min(...seeds.map((x) => x.length))
    if (shortest > bestLength) {
      best = seeds
      bestLength = shortest
    }
  }
  return best
}

/** What files are ranked by. */
export type RankKey = Pick<RankedFile, 'pathMatch' | 'wordMatch' | 'density' | 'path'>

/** Ranking order: path matches, then whole-word matches, then density, then path. */
export function compareRanked(a: RankKey, b: RankKey): number {
  if (a.pathMatch !== b.pathMatch) return a.pathMatch ? -1 : 1
  if (a.wordMatch !== b.wordMatch) return a.wordMatch ? -1 : 1
  if (a.density !== b.density) return b.density - a.density
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0
}

/** True when `q` matches `path` itself (`foldedPath`: `foldText(path)`, when known). */
export function pathMatches(q: CompiledQuery, path: string, foldedPath?: string): boolean {
  // A path of one line that lacks what any matching line holds cannot match (no RE2 run).
  if (
    q.requirement !== true &&
    !path.includes('\n') &&
    !satisfies(foldedPath ?? foldText(path), q.requirement)
  )
    return false
  // A regex JavaScript runs alike (js-regex.ts), on a path it may take: no RE2 run either.
  if (q.jsRe !== undefined && !path.includes('\n') && !hasSurrogates(path)) {
    q.jsRe.lastIndex = 0
    return q.jsRe.test(path)
  }
  return firstMatch(q, path) !== undefined
}

/** A scan of `path` ranked for `q` (the query matched against the path too, unless given). */
export function rankedFile(
  q: CompiledQuery,
  path: string,
  scan: FileScan,
  pathMatch = pathMatches(q, path),
): RankedFile {
  const { text, matchingLines, wordMatch, density, matches } = scan
  return { text, matchingLines, wordMatch, density, matches, path, pathMatch }
}

const SNIPPET_BEFORE = 60
const SNIPPET_AFTER = 100

/** The line of a match, or a window of it, with the match's place in it. */
export function snippetOf(
  line: string,
  start: number,
  end: number,
): { snippet: string; mark: [number, number] } {
  if (line.length <= SNIPPET_BEFORE + SNIPPET_AFTER) return { snippet: line, mark: [start, end] }
  const from = Math.max(0, start - SNIPPET_BEFORE)
  const to = Math.min(line.length, Math.max(end, start + SNIPPET_AFTER))
  const head = from > 0 ? '…' : ''
  const tail = to < line.length ? '…' : ''
  return {
    snippet: head + line.slice(from, to) + tail,
    mark: [start - from + head.length, end - from + head.length],
  }
}

/** The hit a caller sees for a ranked file (match offsets found now where the scan left them). */
export function toHit(q: CompiledQuery, file: RankedFile): SearchHit {
  const matches: SearchMatch[] = file.matches.map((m) => {
    const line = file.text.slice(m.lineStart, m.lineEnd)
    let start = m.start === undefined ? undefined : m.start - m.lineStart
    let end = m.end === undefined ? undefined : m.end - m.lineStart
    if (start === undefined) [start, end] = firstMatch(q, line) ?? [0, 0]
    return { line: m.line + 1, column: start + 1, length: end! - start, ...snippetOf(line, start, end!) }
  })
  return {
    path: file.path,
    pathMatch: file.pathMatch,
    wordMatch: file.wordMatch,
    matchingLines: file.matchingLines,
    density: file.density,
    matches,
  }
}
