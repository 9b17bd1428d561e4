/**
 * `yfs search <query>`: a ranked search of a server workspace, answered by
 * the server's index (PostgreSQL) or, on a SQLite server, by an in-process
 * index on this client (it loads the workspace's texts first). Prints hits
 * for a person (path, line:column and the snippet with the match «marked»),
 * or the result as JSON with `--json`. Exit code 0 with hits, 1 without, 2
 * on an error (like grep).
 */
import { isSearchError, type SearchResult } from '@yfs/core'
import { Command, InvalidArgumentError, Option } from 'commander'
import { type Palette, paletteFor } from './colors.js'
import { openWorkspaceOrExit, workspaceOptions } from './workspace-flags.js'

function integer(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer')
  return n
}

const collect = (value: string, previous: string[] = []) => [...previous, value]

/** The lines a person reads for `result`. */
export function formatSearchResult(result: SearchResult, palette: Palette = paletteFor({}, {})): string {
  if (result.total === 0) return '(no matches)\n'
  const lines: string[] = []
  // With colours the match is bold red; without, it stands between « and ».
  const mark = palette.enabled
    ? (text: string) => palette.bold(palette.red(text))
    : (text: string) => `«${text}»`
  for (const hit of result.hits) {
    lines.push(
      `${palette.cyan(hit.path)} (${hit.matchingLines} matching line${hit.matchingLines === 1 ? '' : 's'})`,
    )
    for (const m of hit.matches) {
      const [a, b] = m.mark
      lines.push(
        `  ${m.line}:${m.column}: ${m.snippet.slice(0, a)}${mark(m.snippet.slice(a, b))}${m.snippet.slice(b)}`,
      )
    }
  }
  const shown = `${result.offset + 1}–${result.offset + result.hits.length} of ${result.total} files`
  lines.push(result.nextOffset !== undefined ? `${shown}; next page: --offset ${result.nextOffset}` : shown)
  return `${lines.join('\n')}\n`
}

export function createSearchCommand(): Command {
  return workspaceOptions(
    new Command('search')
      .description('search a workspace (ranked, indexed), on a server or in a data folder')
      .argument('<query>', 'text to find (or an RE2 regex with --regex)'),
  )
    .option('-e, --regex', 'the query is an RE2 regular expression')
    .option('-s, --case-sensitive', 'match case (default: ignore case)')
    .option('--path <glob>', 'only files whose path matches (repeatable): "docs/**", "*.md"', collect)
    .option('--exclude <glob>', 'leave out files whose path matches (repeatable)', collect)
    .addOption(new Option('--limit <n>', 'files per page (at most 200)').default(20).argParser(integer))
    .addOption(new Option('--offset <n>', 'files to skip (paging)').default(0).argParser(integer))
    .addHelpText(
      'after',
      `
Examples:
  yfs search --server ws://127.0.0.1:4321 --workspace demo --token $T "quarterly plan"
  yfs search --data ./.yfs --workspace demo "quarterly plan"     # no server running (a read token is enough on a server)
  yfs search -e 'TODO\\(\\w+\\)' --path 'src/**' --json --server ... --workspace ... --token ...`,
    )
    .action(async (query: string, flags) => {
      const ws = await openWorkspaceOrExit('search', flags, 'read')
      if (!ws) return
      try {
        const result = await ws.searcher.search({
          query,
          regex: flags.regex === true,
          caseSensitive: flags.caseSensitive === true,
          ...(flags.path ? { include: flags.path } : {}),
          ...(flags.exclude ? { exclude: flags.exclude } : {}),
          limit: flags.limit,
          offset: flags.offset,
        })
        process.stdout.write(
          flags.json ? `${JSON.stringify(result)}\n` : formatSearchResult(result, paletteFor(process.stdout)),
        )
        process.exitCode = result.total > 0 ? 0 : 1
      } catch (error) {
        process.stderr.write(
          `yfs search: ${isSearchError(error) ? error.message : (error as Error).message}\n`,
        )
        process.exitCode = 2
      } finally {
        await ws.close()
      }
    })
}
