/**
 * A JavaScript RegExp that matches exactly where an RE2 pattern does within
 * one line, for patterns where V8's backtracking engine stays linear, so a
 * whole text can be searched in one native pass instead of line by line
 * through re2js (several times slower per byte). Only patterns without case
 * folding (a case-sensitive query, or one whose pattern has no letters:
 * query.ts).
 *
 * The subset: a sequence of items — a literal, `.`, `\d \D \w \W \s \S`, a
 * class of ASCII items, each with an optional repetition — and the anchors
 * `^ $ \b \B`; no groups or alternation. Backtracking must stay linear (RE2
 * is linear by design; `.*.*x` on a 10,000-character line takes V8 minutes):
 * an item of variable length (`\d+`, `a{2,5}`, `x?`) must be followed by a
 * required item it shares no character with (or end the pattern), so only
 * its longest run can lead to a match; an unbounded one (`\d+`) must also be
 * preceded by a fixed item it shares no character with, by `^`, or by
 * nothing — then, made of word characters only, it gets a lookbehind that
 * starts it at the start of its run (a start inside the run finds the same
 * matches). Anything else gives `undefined`: the caller keeps RE2.
 *
 * The RegExp works on UTF-16 code units, RE2 on code points: they agree on
 * text without surrogates (`hasSurrogates`), and only such text may be
 * searched with it (a pattern with a character beyond U+FFFF is left to RE2;
 * the `u` flag is no way out: V8 then tries positions inside a pair against
 * lookarounds). It never matches a `\n`, so no match spans lines: `.` and
 * negated classes leave `\n` out, `\s` is RE2's `[\t\n\f\r ]` without it (a
 * line holds none), `^`/`$` are "no character but `\n` before/after"
 * (JavaScript's own multiline anchors also stop at `\r`, U+2028, U+2029).
 * Checked against RE2 on random patterns and lines in js-regex.test.ts.
 *
 * Not here: case-insensitive patterns (RE2's and JavaScript's case folding
 * differ at the edges) or match positions for snippets (RE2 finds them).
 */

class Unsupported extends Error {}

// What is escaped (all of it may be).
const SYNTAX = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}', '/'])
const CLASS_SYNTAX = new Set(['\\', ']', '[', '^', '-'])

/** A code point as a JavaScript pattern character (escaped when it means something). */
function literal(cp: number, inClass = false): string {
  if (cp === 10 || cp > 0xffff) throw new Unsupported()
  if (cp < 0x20 || cp > 0x7e) return `\\u${cp.toString(16).padStart(4, '0')}`
  const c = String.fromCharCode(cp)
  return (inClass ? CLASS_SYNTAX : SYNTAX).has(c) ? `\\${c}` : c
}

/** The characters an item may match: ASCII ones, and whether any other. */
interface CharSet {
  ascii: boolean[]
  other: boolean
}

const setOf = (test: (c: number) => boolean, other: boolean): CharSet => ({
  ascii: Array.from({ length: 128 }, (_, c) => c !== 10 && test(c)),
  other,
})
const isDigit = (c: number) => c >= 48 && c <= 57
const isWord = (c: number) => isDigit(c) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95
const isSpace = (c: number) => c === 9 || c === 12 || c === 13 || c === 32
const ESCAPES: Record<string, { source: string; set: CharSet }> = {
  d: { source: '[0-9]', set: setOf(isDigit, false) },
  w: { source: '[0-9A-Za-z_]', set: setOf(isWord, false) },
  s: { source: '[\\t\\f\\r ]', set: setOf(isSpace, false) },
  D: { source: '[^0-9\\n]', set: setOf((c) => !isDigit(c), true) },
  W: { source: '[^0-9A-Za-z_\\n]', set: setOf((c) => !isWord(c), true) },
  S: { source: '[^\\t\\f\\r \\n]', set: setOf((c) => !isSpace(c), true) },
}
const CLASS_ITEMS: Record<string, { source: string; test: (c: number) => boolean }> = {
  d: { source: '0-9', test: isDigit },
  w: { source: '0-9A-Za-z_', test: isWord },
  s: { source: '\\t\\f\\r ', test: isSpace },
}
const CONTROL: Record<string, number> = { t: 9, f: 12, r: 13, v: 11, a: 7 }
const PUNCTUATION = /^[!-/:-@[-`{-~]$/

function disjoint(a: CharSet, b: CharSet): boolean {
  if (a.other && b.other) return false
  for (let c = 0; c < 128; c++) if (a.ascii[c] && b.ascii[c]) return false
  return true
}

/** One item of the sequence: what it matches and how many times, or an anchor. */
interface Item {
  source: string
  set: CharSet | undefined
  min: number
  max: number
}

/** Most repetitions of a fixed-count item (its cost at every start). */
const MAX_FIXED = 64

class Translator {
  i = 0
  constructor(readonly p: string) {}

  items(): Item[] {
    const items: Item[] = []
    while (this.i < this.p.length) {
      const { source, set } = this.atom()
      const [min, max] = this.repeat()
      if (set === undefined && (min !== 1 || max !== 1)) throw new Unsupported()
      if (min === max && min > MAX_FIXED) throw new Unsupported()
      items.push({ source, set, min, max })
    }
    return items
  }

  repeat(): [number, number] {
    const c = this.p[this.i]
    let range: [number, number]
    if (c === '*' || c === '+' || c === '?') {
      this.i++
      range = c === '*' ? [0, Infinity] : c === '+' ? [1, Infinity] : [0, 1]
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.p.slice(this.i))
      if (!m) throw new Unsupported() // a literal `{` in RE2; not worth the ambiguity
      this.i += m[0].length
      const min = Number(m[1])
      range = [min, m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3])]
    } else return [1, 1]
    if (this.p[this.i] === '?') this.i++ // lazy: the same lines match
    if (/^[*+?{]/.test(this.p.slice(this.i))) throw new Unsupported()
    return range
  }

  atom(): { source: string; set: CharSet | undefined } {
    const c = this.p[this.i]!
    if (c === '[') return this.charClass()
    if (c === '.') {
      this.i++
      return { source: '[^\\n]', set: setOf(() => true, true) }
    }
    if (c === '^') {
      this.i++
      return { source: '(?<![^\\n])', set: undefined }
    }
    if (c === '$') {
      this.i++
      return { source: '(?![^\\n])', set: undefined }
    }
    if ('*+?{}()[]|'.includes(c)) throw new Unsupported()
    if (c === '\\') {
      const e = this.p[this.i + 1]
      if (e === undefined) throw new Unsupported()
      this.i += 2
      if (e === 'b' || e === 'B') return { source: `\\${e}`, set: undefined }
      const perl = ESCAPES[e]
      if (perl) return perl
      const cp = CONTROL[e] ?? (PUNCTUATION.test(e) ? e.charCodeAt(0) : undefined)
      if (cp === undefined) throw new Unsupported()
      return { source: literal(cp), set: setOf((x) => x === cp, false) }
    }
    const cp = this.p.codePointAt(this.i)!
    this.i += cp > 0xffff ? 2 : 1
    return { source: literal(cp), set: setOf((x) => x === cp, cp >= 128) }
  }

  /** `[...]`: ASCII items, ranges and `\d \w \s` (a negated class never matches `\n`). */
  charClass(): { source: string; set: CharSet } {
    this.i++
    let negated = false
    if (this.p[this.i] === '^') {
      negated = true
      this.i++
    }
    let out = ''
    const tests: ((c: number) => boolean)[] = []
    let first = true
    while (this.i < this.p.length && (this.p[this.i] !== ']' || first)) {
      first = false
      const lo = this.classItem()
      if (typeof lo !== 'number') {
        out += lo.source
        tests.push(lo.test)
        continue
      }
      if (this.p[this.i] === '-' && this.p[this.i + 1] !== ']' && this.i + 1 < this.p.length) {
        this.i++
        const hi = this.classItem()
        if (typeof hi !== 'number' || hi < lo) throw new Unsupported()
        out += `${literal(lo, true)}-${literal(hi, true)}`
        tests.push((c) => c >= lo && c <= hi)
      } else {
        out += literal(lo, true)
        tests.push((c) => c === lo)
      }
    }
    if (this.p[this.i] !== ']' || out === '') throw new Unsupported()
    this.i++
    const inClass = (c: number) => tests.some((t) => t(c))
    return negated
      ? { source: `[^${out}\\n]`, set: setOf((c) => !inClass(c), true) }
      : { source: `[${out}]`, set: setOf(inClass, false) }
  }

  /** One class item: an ASCII code point, or a class escape. */
  classItem(): number | { source: string; test: (c: number) => boolean } {
    const c = this.p[this.i]!
    if (c === '[') throw new Unsupported() // POSIX classes ([:alpha:]) and nesting
    if (c === '\\') {
      const e = this.p[this.i + 1]
      if (e === undefined) throw new Unsupported()
      this.i += 2
      const item = CLASS_ITEMS[e]
      if (item) return item
      const cp = CONTROL[e] ?? (PUNCTUATION.test(e) ? e.charCodeAt(0) : undefined)
      if (cp === undefined) throw new Unsupported()
      return cp
    }
    const cp = this.p.codePointAt(this.i)!
    if (cp > 0x7e || cp === 10) throw new Unsupported()
    this.i++
    return cp
  }
}

function quantifier({ min, max }: Item): string {
  if (min === max) return min === 1 ? '' : `{${min}}`
  if (max === Infinity) return min === 0 ? '*' : min === 1 ? '+' : `{${min},}`
  return min === 0 && max === 1 ? '?' : `{${min},${max}}`
}

const WORD = setOf(isWord, false)

/** True when every character of `set` is a word character. */
const wordOnly = (set: CharSet) => !set.other && set.ascii.every((x, c) => !x || WORD.ascii[c])

/**
 * The JavaScript equivalents of RE2 `pattern` (compiled without case folding) within lines
 * of text without surrogates, global and never matching a `\n`: `line` matches where the
 * pattern does, `word` where a match stands as a whole word (query.ts's `wordPattern`);
 * `undefined` when the pattern is outside the subset (see the module comment).
 */
export function jsRegexes(pattern: string): { line: RegExp; word: RegExp } | undefined {
  let items: Item[]
  try {
    items = new Translator(pattern).items()
  } catch {
    return undefined
  }
  let line = ''
  let word = ''
  for (const [k, item] of items.entries()) {
    const source = item.source + quantifier(item)
    word += source
    if (item.min === item.max) {
      line += source
      continue
    }
    // Variable length: only its longest run may lead to a match, and it starts in few places.
    const set = item.set!
    const next = items[k + 1]
    if (next && (next.set === undefined || next.min === 0 || !disjoint(set, next.set))) return undefined
    // Unbounded: each start scans the rest of the run, so starts inside a run must not happen.
    const prev = items[k - 1]
    if (item.max !== Infinity || prev?.source === '(?<![^\\n])') line += source
    else if (prev === undefined) {
      if (!wordOnly(set)) return undefined
      line += `(?<!${item.source})${source}`
    } else if (prev.set === undefined || prev.min !== prev.max || !disjoint(set, prev.set)) return undefined
    else line += source
  }
  try {
    return {
      line: new RegExp(line, 'g'),
      word: new RegExp(`(?<![0-9A-Za-z_])(?:${word})(?![0-9A-Za-z_])`, 'g'),
    }
  } catch {
    return undefined
  }
}

/** True when `text` holds a UTF-16 surrogate (a character beyond U+FFFF, or half of one). */
export const hasSurrogates = (text: string): boolean => /[\ud800-\udfff]/.test(text)
