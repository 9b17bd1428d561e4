/**
 * glob: paths matching picomatch patterns (`**`, braces, `!` negation),
 * .gitignore-aware.
 */
import { type } from 'arktype'
import picomatch from 'picomatch'
import { defineTool } from '../../tool.js'
import { posix, vfs, vfsPath } from '../shared.js'
import { checkRelative, filesUnder } from '../workspace-files.js'

export const globTool = defineTool({
  name: 'glob',
  title: 'Find files by pattern',
  description:
    'Find paths matching glob patterns relative to path (default vfs:///): "**/*.ts", braces "src/*.{ts,tsx}", negation "!node_modules/**". Files ignored by .gitignore files are left out unless respect_gitignore is false.',
  input: type({
    pattern: type('string > 0 | string[] > 0').describe(
      'one pattern or a list; patterns starting with ! exclude',
    ),
    'path?': type(vfsPath).describe('vfs:/// folder the patterns are relative to (default vfs:///)'),
    'respect_gitignore?': type('boolean').describe(
      'leave out paths that .gitignore files ignore (default true)',
    ),
    'include_folders?': type('boolean').describe('list matching folders too (default false: files only)'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs, options }) {
    const base = posix(input.path ?? 'vfs:///')
    const patterns = Array.isArray(input.pattern) ? input.pattern : [input.pattern]
    for (const p of patterns) checkRelative(p, base, 'pattern')
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
