/** Search tools: glob (picomatch, .gitignore-aware) and grep (substring or regex, with context). */
import type { YjsFileSystem } from '@yfs/core'
import { type } from 'arktype'
import ignore, { type Ignore } from 'ignore'
import picomatch from 'picomatch'
import { ToolError } from '../errors.js'
import { defineTool } from '../tool.js'
import { posix, readTextOrBinary, vfs, vfsPath } from './shared.js'

const SYSTEM = /^\/(bin|usr|dev|proc)(\/|$)/

/** Workspace file paths below `base` (system paths excluded), honouring .gitignore files unless told not to. */
async function filesUnder(fs: YjsFileSystem, base: string, gitignore: boolean): Promise<string[]> {
  const all = fs.index
    .allPaths()
    .filter((p) => !SYSTEM.test(p) && (base === '/' || p === base || p.startsWith(`${base}/`)))
  if (!gitignore) return all
  // Each .gitignore applies to the paths below its folder.
  const rules: [string, Ignore][] = []
  for (const p of all) {
    if (!p.endsWith('/.gitignore')) continue
    const dir = p.slice(0, -'/.gitignore'.length) || '/'
    rules.push([dir, ignore().add(await fs.readFile(p))])
  }
  if (rules.length === 0) return all
  return all.filter((p) =>
    rules.every(([dir, ig]) => {
      if (dir !== '/' && !p.startsWith(`${dir}/`)) return true
      const rel = p.slice(dir === '/' ? 1 : dir.length + 1)
      return rel === '' || !ig.ignores(rel)
    }),
  )
}

export const globTool = defineTool({
  name: 'glob',
  title: 'Find files by pattern',
  description:
    'Find paths matching glob patterns relative to path (default vfs:///): "**/*.ts", braces "src/*.{ts,tsx}", negation "!node_modules/**". Files ignored by .gitignore files are left out unless respect_gitignore is false.',
  input: type({
    pattern: type('string > 0 | string[] > 0').describe(
      'one pattern or a list; patterns starting with ! exclude',
    ),
    'path?': type(vfsPath).describe('folder the patterns are relative to'),
    'respect_gitignore?': 'boolean',
    'include_folders?': 'boolean',
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs, options }) {
    const base = posix(input.path ?? 'vfs:///')
    const patterns = Array.isArray(input.pattern) ? input.pattern : [input.pattern]
    const positive = patterns.filter((p) => !p.startsWith('!'))
    const negative = patterns.filter((p) => p.startsWith('!')).map((p) => p.slice(1))
    if (positive.length === 0) positive.push('**')
    const isMatch = picomatch(positive, { dot: true })
    const isExcluded = negative.length > 0 ? picomatch(negative, { dot: true }) : () => false
    const matches: string[] = []
    for (const p of await filesUnder(fs, base, input.respect_gitignore ?? true)) {
      const rel = p.slice(base === '/' ? 1 : base.length + 1)
      if (!rel || !isMatch(rel) || isExcluded(rel)) continue
      if (!input.include_folders && (await fs.lstat(p)).isDirectory) continue
      matches.push(vfs(p))
    }
    const cut = matches.length > options.maxResults
    const shown = matches.slice(0, options.maxResults)
    return {
      structured: { matches: shown, count: matches.length, truncated: cut },
      text: `${shown.join('\n') || '(no matches)'}${cut ? `\n… [${matches.length - shown.length} more matches not shown]` : ''}`,
    }
  },
})

export const grepTool = defineTool({
  name: 'grep',
  title: 'Search file contents',
  description:
    'Search text files for a substring (default) or a regular expression (regex: true). Options: case_sensitive (default true), include glob on file paths ("**/*.ts"), context_before/context_after lines, count_only, max_results. Binary files are skipped.',
  input: type({
    pattern: type('string > 0').describe('substring, or a JavaScript regular expression with regex: true'),
    'path?': type(vfsPath).describe('file or folder to search (default vfs:///)'),
    'regex?': 'boolean',
    'case_sensitive?': 'boolean',
    'include?': type('string > 0').describe('glob the file path (relative to path) must match'),
    'context_before?': 'number.integer >= 0',
    'context_after?': 'number.integer >= 0',
    'count_only?': 'boolean',
    'max_results?': 'number.integer >= 1',
    'respect_gitignore?': 'boolean',
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs, options }) {
    const base = posix(input.path ?? 'vfs:///')
    const flags = input.case_sensitive === false ? 'i' : ''
    let re: RegExp
    try {
      re = new RegExp(
        input.regex ? input.pattern : input.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
        flags,
      )
    } catch (error) {
      throw new ToolError('EINVAL', `invalid regular expression: ${(error as Error).message}`)
    }
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
        if (!re.test(lines[i]!)) continue
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
