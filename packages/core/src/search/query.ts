/**
 * Compiling a search query: checks it (one line, at most `MAX_QUERY_LENGTH`
 * characters, a regex that RE2 accepts — the error names the position), and
 * returns how to find its first match in a line plus its requirement
 * (requirement.ts) for picking candidate files.
 *
 * Literals are matched as RE2 would match the quoted literal: exactly, or
 * under RE2's simple case folding when case-insensitive. Regexes run on RE2
 * (re2js): linear time, no backreferences or lookaround.
 *
 * Not here: scanning a whole file (scan.ts) or picking files (trigram-index.ts).
 */
import { RE2JS, RE2JSException, RE2JSSyntaxException } from 're2js'
import { foldText } from './fold.js'
import { jsRegexes } from './js-regex.js'
import { regexRequirement } from './regex-requirement.js'
import { oneOfStrings, type Requirement } from './requirement.js'
import { MAX_QUERY_LENGTH, SearchError } from './types.js'

/** A query ready to run. */
export interface CompiledQuery {
  readonly query: string
  readonly regex: boolean
  readonly caseSensitive: boolean
  /** The RE2 program (a quoted literal for literal queries). */
  readonly re: RE2JS
  /** Matches where a match of the query stands as a whole word (see `wordPattern`). */
  readonly wordRe: RE2JS
  /** Literal queries: the literal, and its folded form. */
  readonly literal: string | undefined
  readonly foldedLiteral: string | undefined
  /** The literal is ASCII: lowercase comparison equals RE2 case folding on ASCII text. */
  readonly asciiLiteral: boolean
  /** What any matching line contains (folded). */
  readonly requirement: Requirement
  /**
   * Regexes RE2 runs without case folding, when js-regex.ts can translate them: `re` and
   * `wordRe` as JavaScript RegExps over whole texts without surrogates (never across lines).
   */
  readonly jsRe: RegExp | undefined
  readonly jsWordRe: RegExp | undefined
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ASCII range check
const ASCII = /^[\x00-\x7f]*$/

/** True when `text` is ASCII only. */
export const isAscii = (text: string): boolean => ASCII.test(text)

/**
 * True unless `pattern` is an RE2 pattern without cased characters or classes, whose escapes
 * are all `\d \D \s \S \b \B` or escaped punctuation: case folding cannot change what such
 * a pattern matches. (A class is never trusted: `[!-Z]` holds A–Z but not a–z.)
 */
function hasLetters(pattern: string): boolean {
  if (pattern === '') return true
  const rest = pattern.replace(/\\[dDsSbB]|\\[^A-Za-z0-9]/g, '')
  if (/[\\[]/.test(rest)) return true
  for (const ch of rest)
    if (ch.toLowerCase() !== ch || ch.toUpperCase() !== ch || foldText(ch) !== ch) return true
  return false
}

/** Compile a query; throws `SearchError` for an empty, multi-line, too long or invalid one. */
export function compileQuery(query: string, regex = false, caseSensitive = false): CompiledQuery {
  if (typeof query !== 'string' || query.length === 0) throw new SearchError('query is empty')
  if (query.length > MAX_QUERY_LENGTH)
    throw new SearchError(`query longer than ${MAX_QUERY_LENGTH} characters`)
  const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.exec(query)
  if (lone) throw new SearchError('query contains half of a UTF-16 surrogate pair', lone.index)
  if (!regex && query.includes('\n'))
    throw new SearchError('query must be one line (matches never span lines)', query.indexOf('\n'))
  // RE2 with case folding runs several times slower; a pattern with no letters (`\d{4}-\d+`)
  // matches the same text either way.
  const flags = caseSensitive || !hasLetters(regex ? query : '') ? 0 : RE2JS.CASE_INSENSITIVE
  let re: RE2JS
  let wordRe: RE2JS
  try {
    const pattern = regex ? query : RE2JS.quote(query)
    re = RE2JS.compile(pattern, flags)
    wordRe = RE2JS.compile(wordPattern(pattern), flags)
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error
    throw regexError(query, error)
  }
  const literal = regex ? undefined : query
  const js = regex && flags === 0 ? jsRegexes(query) : undefined
  const foldedLiteral = literal === undefined ? undefined : foldText(literal)
  return {
    query,
    regex,
    caseSensitive,
    re,
    wordRe,
    literal,
    foldedLiteral,
    asciiLiteral: literal !== undefined && isAscii(literal),
    requirement: foldedLiteral !== undefined ? oneOfStrings([foldedLiteral]) : regexRequirement(query),
    jsRe: js?.line,
    jsWordRe: js?.word,
  }
}

/**
 * A match of `pattern` with no word character (`[0-9A-Za-z_]`, never case-folded) right
 * before or after it: what makes a hit's `wordMatch`.
 */
export function wordPattern(pattern: string): string {
  return `(?-i:^|[^0-9A-Za-z_])(?:${pattern})(?-i:[^0-9A-Za-z_]|$)`
}

/** Offsets of the unmatched `(` (last) and `)` (first) of a pattern, skipping escapes and classes. */
function unmatchedParens(pattern: string): { open: number | undefined; close: number | undefined } {
  const open: number[] = []
  let close: number | undefined
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]
    if (c === '\\') {
      if (pattern[i + 1] === 'Q') {
        const end = pattern.indexOf('\\E', i + 2)
        i = end < 0 ? pattern.length : end + 1
      } else i++
    } else if (c === '[') {
      i += pattern[i + 1] === '^' ? 2 : 1
      while (i < pattern.length && (pattern[i] !== ']' || pattern[i - 1] === '[' || pattern[i - 1] === '^')) {
        if (pattern[i] === '\\') i++
        i++
      }
    } else if (c === '(') open.push(i)
    else if (c === ')' && open.pop() === undefined && close === undefined) close = i
  }
  return { open: open.at(-1), close }
}

/** A clear error for a regex RE2 refuses: what is wrong and at which offset. */
function regexError(query: string, error: RE2JSException): SearchError {
  if (error instanceof RE2JSSyntaxException) {
    const fragment = error.input ?? ''
    let position: number | undefined
    if (error.error.startsWith('missing closing )')) position = unmatchedParens(query).open
    else if (error.error.startsWith('unexpected )')) position = unmatchedParens(query).close
    else if (error.error.startsWith('trailing backslash')) position = query.length - 1
    else if (fragment !== '' && query.includes(fragment)) position = query.indexOf(fragment)
    const where = position === undefined ? '' : ` at position ${position}`
    const shown = fragment === '' ? '' : ` (${JSON.stringify(fragment.slice(0, 40))})`
    return new SearchError(
      `invalid regular expression: ${error.error}${where}${shown}. Regexes are RE2: no backreferences or lookaround.`,
      position,
    )
  }
  return new SearchError(`invalid regular expression: ${error.message}`)
}

/** First match of `q` in `line`: [start, end), or undefined. */
export function firstMatch(q: CompiledQuery, line: string): [number, number] | undefined {
  if (q.literal !== undefined && q.caseSensitive) {
    const at = line.indexOf(q.literal)
    return at < 0 ? undefined : [at, at + q.literal.length]
  }
  if (q.literal !== undefined && q.asciiLiteral && isAscii(line)) {
    const at = line.toLowerCase().indexOf(q.foldedLiteral!)
    return at < 0 ? undefined : [at, at + q.literal.length]
  }
  const m = q.re.matcher(line)
  return m.find() ? [m.start(), m.end()] : undefined
}
