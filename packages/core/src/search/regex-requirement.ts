/**
 * The requirement (requirement.ts) of an RE2 regex: the substrings any match
 * must contain, found by walking the pattern's syntax — literals and small
 * character classes give exact strings, concatenation multiplies them,
 * alternation unions them, `?` adds the empty string, `*` and wide classes
 * give up on exactness (Russ Cox's trigram-index construction, simplified:
 * no prefix/suffix sets).
 *
 * Soundness over precision: the pattern has already compiled with RE2, and
 * anything this walk does not understand makes the whole requirement `true`
 * (every file is a candidate). Case flags are ignored: strings are folded
 * (fold.ts), which covers every case mode.
 *
 * Not here: validating the regex (query.ts compiles it with RE2 first).
 */
import { foldText } from './fold.js'
import { allOf, anyOf, oneOfStrings, type Requirement } from './requirement.js'

/**
 * What a node can match: it satisfies `req`, and ends with one of `exact` (when known);
 * `whole`: `exact` is the whole match, not only its end.
 */
interface Info {
  req: Requirement
  exact: Set<string> | undefined
  whole: boolean
}

const MAX_EXACT = 16

class Unsupported extends Error {}

const anything = (): Info => ({ req: true, exact: undefined, whole: false })
const exactly = (...strings: string[]): Info => ({ req: true, exact: new Set(strings), whole: true })

/** What a node requires once its trailing strings are no longer tracked. */
function settle(info: Info): Requirement {
  if (!info.exact) return info.req
  return allOf([info.req, oneOfStrings([...info.exact].map(foldText))])
}

function concat(a: Info, b: Info): Info {
  if (!b.whole) return { req: allOf([settle(a), b.req]), exact: b.exact, whole: false }
  if (a.exact && b.exact && a.exact.size * b.exact.size <= MAX_EXACT) {
    const exact = new Set<string>()
    for (const x of a.exact) for (const y of b.exact) exact.add(x + y)
    return { req: allOf([a.req, b.req]), exact, whole: a.whole }
  }
  return { req: allOf([settle(a), b.req]), exact: b.exact, whole: false }
}

function alternate(a: Info, b: Info): Info {
  if (a.whole && b.whole && a.exact && b.exact && a.exact.size + b.exact.size <= MAX_EXACT)
    return { req: anyOf([a.req, b.req]), exact: new Set([...a.exact, ...b.exact]), whole: true }
  return { req: anyOf([settle(a), settle(b)]), exact: undefined, whole: false }
}

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9'
const isOctal = (c: string | undefined) => c !== undefined && c >= '0' && c <= '7'
const isHex = (c: string | undefined) => c !== undefined && /^[0-9A-Fa-f]$/.test(c)

const SIMPLE_ESCAPES: Record<string, string> = { a: '\x07', f: '\f', t: '\t', n: '\n', r: '\r', v: '\v' }
const CLASS_ESCAPES = new Set(['d', 'D', 's', 'S', 'w', 'W'])
const EMPTY_ESCAPES = new Set(['b', 'B', 'A', 'z'])

class Walker {
  i = 0
  constructor(readonly p: string) {}

  peek(k = 0): string | undefined {
    return this.p[this.i + k]
  }

  /** alternation := concat ('|' concat)* */
  alternation(): Info {
    let info = this.concatenation()
    while (this.peek() === '|') {
      this.i++
      info = alternate(info, this.concatenation())
    }
    return info
  }

  concatenation(): Info {
    let info: Info = exactly('')
    while (this.i < this.p.length && this.peek() !== '|' && this.peek() !== ')') {
      for (const part of this.repeated(this.atom())) info = concat(info, part)
    }
    return info
  }

  /**
   * An atom and its quantifiers, as parts to concatenate: `x+` is `x` then "ends with x"
   * (so `abc+def` still requires `abc` and `cdef`).
   */
  repeated(atom: Info): Info[] {
    let parts = [atom]
    for (;;) {
      const c = this.peek()
      let min: number
      if (c === '*' || c === '+' || c === '?') {
        this.i++
        min = c === '+' ? 1 : 0
      } else if (c === '{') {
        const m = /^\{(\d+)(,\d*)?\}/.exec(this.p.slice(this.i))
        if (!m) return parts
        this.i += m[0].length
        min = Number(m[1])
      } else return parts
      if (this.peek() === '?') this.i++
      const info = parts.reduce(concat)
      if (c === '?')
        parts = [
          info.whole && info.exact && info.exact.size < MAX_EXACT ? exactly(...info.exact, '') : anything(),
        ]
      else if (min === 0) parts = [anything()]
      else parts = [info, { req: true, exact: info.exact, whole: false }]
    }
  }

  atom(): Info {
    const c = this.p[this.i++]!
    switch (c) {
      case '(':
        return this.group()
      case '[':
        return this.charClass()
      case '.':
        return anything()
      case '^':
      case '$':
        return exactly('')
      case '\\':
        return this.escape()
      default:
        return exactly(this.literalFrom(c))
    }
  }

  /** A literal starting with `c`: a surrogate pair stays one character. */
  literalFrom(c: string): string {
    const code = c.charCodeAt(0)
    if (code >= 0xd800 && code <= 0xdbff && this.i < this.p.length) return c + this.p[this.i++]
    return c
  }

  group(): Info {
    if (this.peek() === '?') {
      this.i++
      if (this.peek() === 'P' || this.peek() === '<') {
        const end = this.p.indexOf('>', this.i)
        if (end < 0) throw new Unsupported()
        this.i = end + 1
      } else {
        // Flags: (?i) applies to the rest of the group; (?i:...) is a group.
        const m = /^[-imsU]*/.exec(this.p.slice(this.i))!
        this.i += m[0].length
        if (this.peek() === ')') {
          this.i++
          return exactly('')
        }
        if (this.peek() !== ':') throw new Unsupported()
        this.i++
      }
    }
    const info = this.alternation()
    if (this.peek() !== ')') throw new Unsupported()
    this.i++
    return info
  }

  escape(): Info {
    const c = this.p[this.i++]
    if (c === undefined) throw new Unsupported()
    if (CLASS_ESCAPES.has(c)) return anything()
    if (EMPTY_ESCAPES.has(c)) return exactly('')
    if (c === 'p' || c === 'P') {
      if (this.peek() === '{') {
        const end = this.p.indexOf('}', this.i)
        if (end < 0) throw new Unsupported()
        this.i = end + 1
      } else this.i++
      return anything()
    }
    if (c === 'Q') {
      const end = this.p.indexOf('\\E', this.i)
      const text = this.p.slice(this.i, end < 0 ? undefined : end)
      this.i = end < 0 ? this.p.length : end + 2
      return exactly(text)
    }
    return exactly(this.escapedChar(c))
  }

  /** The character of an escape (after the backslash, `c` read): `\x41`, `\x{263a}`, `\101`, `\n`, `\.`. */
  escapedChar(c: string): string {
    if (SIMPLE_ESCAPES[c] !== undefined) return SIMPLE_ESCAPES[c]
    if (c === 'x') {
      if (this.peek() === '{') {
        const end = this.p.indexOf('}', this.i)
        if (end < 0) throw new Unsupported()
        const code = Number.parseInt(this.p.slice(this.i + 1, end), 16)
        this.i = end + 1
        return String.fromCodePoint(code)
      }
      if (!isHex(this.peek()) || !isHex(this.peek(1))) throw new Unsupported()
      const code = Number.parseInt(this.p.slice(this.i, this.i + 2), 16)
      this.i += 2
      return String.fromCharCode(code)
    }
    if (isOctal(c)) {
      let digits = c
      while (digits.length < 3 && isOctal(this.peek())) digits += this.p[this.i++]
      return String.fromCharCode(Number.parseInt(digits, 8))
    }
    if (isDigit(c) || /[A-Za-z]/.test(c)) throw new Unsupported()
    return this.literalFrom(c)
  }

  /** `[...]` after the `[`: a small set of characters, or anything. */
  charClass(): Info {
    let negated = false
    if (this.peek() === '^') {
      negated = true
      this.i++
    }
    const chars = new Set<string>()
    let wide = false
    let first = true
    for (;;) {
      const c = this.p[this.i++]
      if (c === undefined) throw new Unsupported()
      if (c === ']' && !first) break
      first = false
      if (c === '[' && this.peek() === ':') {
        const end = this.p.indexOf(':]', this.i)
        if (end < 0) throw new Unsupported()
        this.i = end + 2
        wide = true
        continue
      }
      let lo: string
      if (c === '\\') {
        const e = this.p[this.i++]
        if (e === undefined) throw new Unsupported()
        if (CLASS_ESCAPES.has(e) || e === 'p' || e === 'P') {
          if ((e === 'p' || e === 'P') && this.peek() === '{') {
            const end = this.p.indexOf('}', this.i)
            if (end < 0) throw new Unsupported()
            this.i = end + 1
          } else if (e === 'p' || e === 'P') this.i++
          wide = true
          continue
        }
        lo = this.escapedChar(e)
      } else lo = this.literalFrom(c)
      if (this.peek() === '-' && this.peek(1) !== ']' && this.peek(1) !== undefined) {
        this.i++
        let hi = this.p[this.i++]!
        if (hi === '\\') hi = this.escapedChar(this.p[this.i++]!)
        else hi = this.literalFrom(hi)
        const from = lo.codePointAt(0)!
        const to = hi.codePointAt(0)!
        if (to - from >= MAX_EXACT) wide = true
        else for (let k = from; k <= to; k++) chars.add(String.fromCodePoint(k))
        continue
      }
      chars.add(lo)
    }
    if (negated || wide || chars.size > MAX_EXACT || chars.size === 0) return anything()
    return exactly(...chars)
  }
}

/** The requirement of an RE2 pattern that compiles; `true` when the walk cannot tell. */
export function regexRequirement(pattern: string): Requirement {
  try {
    const walker = new Walker(pattern)
    const info = walker.alternation()
    if (walker.i !== pattern.length) return true
    return settle(info)
  } catch (error) {
    if (error instanceof Unsupported || error instanceof RangeError) return true
    throw error
  }
}
