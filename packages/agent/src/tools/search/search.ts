/**
 * search: ranked search of the workspace's text files through the search
 * index (in-process, or the server's PostgreSQL index for a connected
 * client: `ToolContext.searcher`). Read-only; results are paged.
 */
import { isSearchError, MAX_SEARCH_LIMIT, type SearchHit } from '@yfs/core'
import { type } from 'arktype'
import { ToolError } from '../../errors.js'
import { defineTool } from '../../tool.js'
import { posix, vfs, vfsPath } from '../shared.js'

/** An exclude glob: relative to the root; a `vfs:///` or `/` prefix is the root. */
const globOf = (glob: string) => glob.replace(/^vfs:\/\/\//, '').replace(/^\/+/, '')

/** The include globs of a `path` argument (a vfs:/// URL): a folder without wildcards means all below it. */
function pathGlobs(url: string): string[] {
  const glob = posix(url).replace(/^\/+/, '')
  if (glob === '') return []
  return /[*?[{]/.test(glob) ? [glob] : [glob, `${glob}/**`]
}

/** The snippet with its match marked «…». */
const marked = (snippet: string, [start, end]: [number, number]) =>
  `${snippet.slice(0, start)}«${snippet.slice(start, end)}»${snippet.slice(end)}`

function hitText(hit: SearchHit): string {
  const lines = hit.matches.map((m) => `  ${m.line}:${m.column}: ${marked(m.snippet, m.mark)}`)
  const more =
    hit.matchingLines > hit.matches.length ? `\n  … ${hit.matchingLines - hit.matches.length} more lines` : ''
  return `${vfs(hit.path)} (${hit.matchingLines} matching line${hit.matchingLines === 1 ? '' : 's'})\n${lines.join('\n')}${more}`
}

export const searchTool = defineTool({
  name: 'search',
  title: 'Search the workspace (ranked, indexed)',
  description:
    'Indexed full-text search over every text file of the workspace (Markdown as its text), ranked: files whose path matches first, then whole-word matches, then files where matches are densest. Each hit gives the path, the number of matching lines and the first matches with line, column and a snippet with the match marked «like this». A query is a literal (default) or an RE2 regex (regex: true; no backreferences or lookaround); matches never span lines; case-insensitive unless case_sensitive: true. path: a vfs:/// folder or glob the file path must match (vfs:///docs, vfs:///docs/**/*.md; vfs:///*.md matches names at any depth). Paged: limit (default 20, at most 200) and offset (next_offset in the result). Faster than grep on large workspaces; use grep for context lines or exact per-line output.',
  input: type({
    query: type('string > 0').describe(
      'literal text, or an RE2 regex with regex: true (one line, ≤ 1,000 characters)',
    ),
    'regex?': type('boolean').describe('treat query as an RE2 regular expression (default false: literal)'),
    'case_sensitive?': type('boolean').describe('default false'),
    'path?': type(vfsPath).describe(
      'vfs:/// folder or glob to search: vfs:///notes, vfs:///notes/**/*.md, vfs:///*.md (a name pattern matches at any depth); default every file',
    ),
    'exclude?': type('string > 0').describe('glob of file paths to leave out, e.g. "archive/**" or "*.log"'),
    'limit?': type('number.integer >= 1').describe(
      `files per page (default 20, at most ${MAX_SEARCH_LIMIT})`,
    ),
    'offset?': type('number.integer >= 0').describe('files to skip: next_offset of the previous page'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { searcher }) {
    let result: Awaited<ReturnType<typeof searcher.search>>
    try {
      result = await searcher.search({
        query: input.query,
        regex: input.regex ?? false,
        caseSensitive: input.case_sensitive ?? false,
        ...(input.path && pathGlobs(input.path).length > 0 ? { include: pathGlobs(input.path) } : {}),
        ...(input.exclude ? { exclude: [globOf(input.exclude)] } : {}),
        limit: Math.min(input.limit ?? 20, MAX_SEARCH_LIMIT),
        offset: input.offset ?? 0,
      })
    } catch (error) {
      if (isSearchError(error)) throw new ToolError('EINVAL', error.message)
      throw error
    }
    const hits = result.hits.map((h) => ({ ...h, path: vfs(h.path) }))
    const structured = {
      hits,
      total: result.total,
      offset: result.offset,
      ...(result.nextOffset !== undefined ? { next_offset: result.nextOffset } : {}),
    }
    if (result.total === 0) return { structured, text: '(no matches)' }
    const shown = `${result.offset + 1}–${result.offset + result.hits.length}`
    const next =
      result.nextOffset !== undefined ? `\n… more files: call again with offset: ${result.nextOffset}` : ''
    return {
      structured,
      text: `${result.total} file${result.total === 1 ? '' : 's'} match (showing ${shown})\n${result.hits.map(hitText).join('\n')}${next}`,
    }
  },
})
