/**
 * grep: substring or RE2 regex search over text files, with context lines,
 * an include glob, counts and a result cap.
 */
import { type } from 'arktype'
import picomatch from 'picomatch'
import { RE2JS, RE2JSException } from 're2js'
import { ToolError } from '../../errors.js'
import { defineTool } from '../../tool.js'
import { posix, readTextOrBinary, vfs, vfsPath } from '../shared.js'
import { checkRelative, filesUnder } from '../workspace-files.js'

/**
 * A line predicate. Regexes run on RE2 (re2js, as just-bash's own grep does):
 * matching is linear in the line length, so no pattern can stall the server
 * (a JavaScript RegExp like `(a+)+$` can take minutes on one line). Throws
 * EINVAL for syntax RE2 lacks (backreferences, lookaround).
 */
function lineMatcher(pattern: string, regex: boolean, caseSensitive: boolean): (line: string) => boolean {
  if (!regex) {
    if (caseSensitive) return (line) => line.includes(pattern)
    const needle = pattern.toLowerCase()
    return (line) => line.toLowerCase().includes(needle)
  }
  try {
    const re = RE2JS.compile(RE2JS.translateRegExp(pattern), caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE)
    return (line) => re.test(line)
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error
    throw new ToolError(
      'EINVAL',
      `invalid regular expression /${pattern}/: ${error.message}`,
      undefined,
      'grep regexes are RE2 (linear time): classes, groups, alternation and quantifiers work; backreferences and lookaround do not.',
    )
  }
}

/**
 * True when a pattern reads like a regular expression: an escape (`\d`, `\.`), a
 * quantifier after a character (`l+`, `.*`, `s?`), a class, a group, an
 * alternation, a `{n,m}` or anchors. Agents used to ripgrep send regexes by
 * default; a substring search then silently finds nothing.
 */
export function looksLikeRegex(pattern: string): boolean {
  return /\\[\w.\\()[\]{}|+*?^$]|[\w.)\]][+*?]|\[[^\]]+\]|\([^)]*\)|\||\{\d+(,\d*)?\}|^\^|\$$/.test(pattern)
}

export const grepTool = defineTool({
  name: 'grep',
  title: 'Search file contents',
  description:
    'Search text files for a substring (default, taken literally: set regex: true for hel+o, \\bfoo, a.*b) or a regular expression (regex: true; RE2 syntax, no backreferences or lookaround). Options: case_sensitive (default true), include glob on file paths ("**/*.ts"), context_before/context_after lines, count_only, max_results. Binary files are skipped.',
  input: type({
    pattern: type('string > 0').describe('substring, or a regular expression (RE2 syntax) with regex: true'),
    'path?': type(vfsPath).describe('vfs:/// file or folder to search (default vfs:///)'),
    'regex?': type('boolean').describe(
      'treat pattern as an RE2 regular expression (default false: substring)',
    ),
    'case_sensitive?': type('boolean').describe('default true'),
    'include?': type('string > 0').describe('glob the file path (relative to path) must match'),
    'context_before?': type('number.integer >= 0').describe('lines to show before each match'),
    'context_after?': type('number.integer >= 0').describe('lines to show after each match'),
    'count_only?': type('boolean').describe('return match counts per file instead of lines'),
    'max_results?': type('number.integer >= 1').describe(
      'most matching lines to return (capped by the server)',
    ),
    'respect_gitignore?': type('boolean').describe('skip files that .gitignore files ignore (default true)'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs, options }) {
    const base = posix(input.path ?? 'vfs:///')
    const matchLine = lineMatcher(input.pattern, input.regex ?? false, input.case_sensitive ?? true)
    if (input.include) checkRelative(input.include, base, 'include')
    const include = input.include ? picomatch(input.include, { dot: true }) : undefined
    const max = Math.min(input.max_results ?? options.maxResults, options.maxResults)
    const before = input.context_before ?? 0
    const after = input.context_after ?? 0
    const baseStat = await fs.stat(base)
    const files = baseStat.isDirectory ? await filesUnder(fs, base, input.respect_gitignore ?? true) : [base]
    const matches: { path: string; line: number; text: string; before?: string[]; after?: string[] }[] = []
    const counts: Record<string, number> = {}
    let total = 0
    for (const file of files) {
      const rel =
        file === base ? file.slice(file.lastIndexOf('/') + 1) : file.slice(base === '/' ? 1 : base.length + 1)
      if (include && !include(rel)) continue
      const st = await fs.lstat(file)
      if (!st.isFile) continue
      const { text } = await readTextOrBinary(fs, file)
      if (text === undefined) continue
      const lines = text.split('\n')
      for (let i = 0; i < lines.length; i++) {
        if (!matchLine(lines[i]!)) continue
        total++
        counts[vfs(file)] = (counts[vfs(file)] ?? 0) + 1
        if (input.count_only || matches.length >= max) continue
        matches.push({
          path: vfs(file),
          line: i + 1,
          text: lines[i]!,
          ...(before ? { before: lines.slice(Math.max(0, i - before), i) } : {}),
          ...(after ? { after: lines.slice(i + 1, i + 1 + after) } : {}),
        })
      }
    }
    // A substring search that found nothing but reads like a regex: say so, with the call that runs it.
    const hint =
      total === 0 && !input.regex && looksLikeRegex(input.pattern)
        ? `the pattern looks like a regular expression but was searched as a plain substring (the default); to run it as a regex: grep ${JSON.stringify({ ...input, regex: true })}`
        : undefined
    if (hint) {
      const structured = input.count_only
        ? { count: 0, files: {}, hint }
        : { matches, count: 0, truncated: false, hint }
      return { structured, text: `(no matches)\nhint: ${hint}` }
    }
    if (input.count_only) {
      return {
        structured: { count: total, files: counts },
        text: `${
          Object.entries(counts)
            .map(([p, n]) => `${p}:${n}`)
            .join('\n') || '(no matches)'
        }\ntotal: ${total}`,
      }
    }
    const cut = total > matches.length
    const text = matches
      .map((m) =>
        [
          ...(m.before ?? []).map((l, k) => `${m.path}-${m.line - (m.before!.length - k)}-${l}`),
          `${m.path}:${m.line}:${m.text}`,
          ...(m.after ?? []).map((l, k) => `${m.path}-${m.line + k + 1}-${l}`),
        ].join('\n'),
      )
      .join(before || after ? '\n--\n' : '\n')
    return {
      structured: { matches, count: total, truncated: cut },
      text: `${text || '(no matches)'}${cut ? `\n… [${total - matches.length} more matches not shown; narrow the search or raise max_results]` : ''}`,
    }
  },
})
