/**
 * What a just-bash `grep` command line requires of every file it can print a
 * line of, as a search requirement (@yfs/core's `Requirement`): the literal
 * runs its patterns cannot match without, folded, OR-ed over its patterns.
 *
 * The arguments are read the way just-bash 3.4's grep reads them (the same
 * loop: combined short flags, `-e` replaces the pattern, `--` ends options).
 * Soundness first: `undefined` (use no index) for anything this does not
 * model exactly — not recursive, `-v` (a non-matching line is printed),
 * `-f` (patterns from a file), `--help`, unknown options, and patterns whose
 * literal runs it cannot tell (alternation, groups, braces, escapes it does
 * not know, all in any of BRE, ERE or PCRE syntax). A quantifier drops the
 * character before it from the run, whether BRE reads `+` literally or not.
 * Case: runs are folded (core's `foldText`), so `-i` and case-sensitive
 * searches alike are covered by the index's folded trigrams.
 *
 * Not here: running grep (indexed-grep.ts).
 */
import { foldText, type Requirement } from '@yfs/core'

const MIN_RUN = 3

/** Flags of one command line, as just-bash's grep would set them. */
interface GrepPlan {
  patterns: string[]
  fixed: boolean
  recursive: boolean
  invert: boolean
}

/** The command line read like just-bash's grep; undefined when it is one this module does not model. */
function readArgs(args: readonly string[]): GrepPlan | undefined {
  let pattern: string | undefined
  const positional: string[] = []
  let fixed = false
  let recursive = false
  let invert = false
  let options = true
  for (let s = 0; s < args.length; s++) {
    const r = args[s]!
    if (options && r === '--') {
      options = false
      continue
    }
    if (!(options && r.startsWith('-') && r !== '-')) {
      positional.push(r)
      continue
    }
    if (r === '--help' || r.startsWith('--file=')) return undefined
    if (r === '-e' && s + 1 < args.length) {
      pattern = args[++s]!
      continue
    }
    if (/^--(include|exclude|exclude-dir|max-count)=/.test(r) || /^-m\d+$/.test(r) || /^-[ABC]\d+$/.test(r))
      continue
    if ((r === '-m' || r === '-A' || r === '-B' || r === '-C') && s + 1 < args.length) {
      s++
      continue
    }
    const letters = r.startsWith('--') ? [r] : r.slice(1).split('')
    for (const n of letters) {
      if (n === 'f' || n === '--file') return undefined
      if (n === 'v' || n === '--invert-match') invert = true
      else if (n === 'r' || n === 'R' || n === '--recursive') recursive = true
      else if (n === 'F' || n === '--fixed-strings') fixed = true
      else if (
        ![
          'i',
          'n',
          'c',
          'l',
          'L',
          'w',
          'x',
          'E',
          'P',
          'o',
          'h',
          'q',
          '--ignore-case',
          '--line-number',
          '--count',
          '--files-with-matches',
          '--files-without-match',
          '--word-regexp',
          '--line-regexp',
          '--extended-regexp',
          '--perl-regexp',
          '--only-matching',
          '--no-filename',
          '--quiet',
          '--silent',
        ].includes(n)
      )
        return undefined
    }
  }
  if (pattern === undefined) pattern = positional.shift()
  if (pattern === undefined) return undefined
  return { patterns: pattern.split('\n'), fixed, recursive, invert }
}

/** Escapes that match one character class or an empty string and take two characters. */
const TWO_CHAR_BREAKS = new Set(['w', 'W', 's', 'S', 'd', 'D', 'b', 'B', '<', '>'])
/** Escapes that stand for the character itself in BRE, ERE and PCRE alike. */
const LITERAL_ESCAPES = new Set(['.', '[', ']', '*', '^', '$', '\\', '/', '-'])

/** The literal runs of a BRE/ERE/PCRE pattern every match contains; undefined when unsure. */
function regexRuns(pattern: string): string[] | undefined {
  if (/[|(){}]/.test(pattern)) return undefined
  const runs: string[] = []
  let run = ''
  const end = () => {
    if (run.length > 0) runs.push(run)
    run = ''
  }
  const quantifierAt = (i: number) =>
    pattern[i] === '*' ||
    pattern[i] === '+' ||
    pattern[i] === '?' ||
    (pattern[i] === '\\' && (pattern[i + 1] === '+' || pattern[i + 1] === '?'))
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!
    let literal: string | undefined
    let width = 1
    if (c === '\\') {
      const e = pattern[i + 1]
      if (e === undefined) return undefined
      width = 2
      if (LITERAL_ESCAPES.has(e)) literal = e
      else if (TWO_CHAR_BREAKS.has(e) || e === '+' || e === '?') literal = undefined
      else return undefined
    } else if (c === '[') {
      let k = i + 1
      if (pattern[k] === '^') k++
      if (pattern[k] === ']') k++
      while (k < pattern.length && pattern[k] !== ']') {
        if (pattern[k] === '[' && /[:=.]/.test(pattern[k + 1] ?? '')) {
          const close = pattern.indexOf(`${pattern[k + 1]}]`, k + 2)
          if (close < 0) return undefined
          k = close + 2
        } else k++
      }
      if (k >= pattern.length) return undefined
      width = k + 1 - i
    } else if (c !== '.' && c !== '^' && c !== '$' && c !== '*' && c !== '+' && c !== '?') literal = c
    i += width
    if (literal === undefined || quantifierAt(i)) end()
    else run += literal
  }
  end()
  return runs
}

/**
 * The requirement of a just-bash `grep` command line for the index, or undefined when it must
 * run unchanged (see the module comment).
 */
export function grepRequirement(args: readonly string[]): Requirement | undefined {
  const plan = readArgs(args)
  if (!plan?.recursive || plan.invert) return undefined
  const alternatives: Requirement[] = []
  for (const p of plan.patterns) {
    const runs = plan.fixed ? [p] : regexRuns(p)
    const long = (runs ?? []).map(foldText).filter((r) => r.length >= MIN_RUN)
    if (long.length === 0) return undefined
    alternatives.push(long.length === 1 ? long[0]! : { and: long })
  }
  return alternatives.length === 1 ? alternatives[0] : { or: alternatives }
}
