/**
 * The search contract suite's parts: a brute-force search (every line of
 * every file through RE2, no index, no fast paths) that defines the expected
 * result, random corpora and queries for fast-check, and `checkSearch`,
 * which runs one request against an implementation and the brute force and
 * says how they differ. Every `Searcher` (the in-process index, the server's
 * PostgreSQL index) is checked with these.
 */
import fc from 'fast-check'
import { RE2JS } from 're2js'
import type { YjsFileSystem } from '../fs/yjs-file-system.js'
import * as paths from '../path.js'
import { wordPattern } from '../search/query.js'
import { prepareSearch } from '../search/request.js'
import { snippetOf } from '../search/scan.js'
import type { Searcher, SearchHit, SearchRequest, SearchResult } from '../search/types.js'

/** A file as the brute force sees it. */
export interface SearchFile {
  path: string
  text: string
}

/** The expected result of `request` over `files`: each line matched with RE2 on its own. */
export function bruteForceSearch(files: readonly SearchFile[], request: SearchRequest): SearchResult {
  const { query, accepts, limit, offset, perFile } = prepareSearch(request)
  const re = RE2JS.compile(
    query.regex ? query.query : RE2JS.quote(query.query),
    query.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE,
  )
  const word = RE2JS.compile(
    wordPattern(query.regex ? query.query : RE2JS.quote(query.query)),
    query.caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE,
  )
  const first = (s: string): [number, number] | undefined => {
    const m = re.matcher(s)
    return m.find() ? [m.start(), m.end()] : undefined
  }
  const hits: SearchHit[] = []
  for (const { path, text } of files) {
    if (!accepts(path)) continue
    const lines = text.split('\n')
    const hit: SearchHit = {
      path,
      pathMatch: first(path) !== undefined,
      wordMatch: false,
      matchingLines: 0,
      density: 0,
      matches: [],
    }
    lines.forEach((line, k) => {
      const m = first(line)
      if (!m) return
      const [start, end] = m
      hit.matchingLines++
      if (word.test(line)) hit.wordMatch = true
      if (hit.matches.length < perFile)
        hit.matches.push({
          line: k + 1,
          column: start + 1,
          length: end - start,
          ...snippetOf(line, start, end),
        })
    })
    if (hit.matchingLines === 0) continue
    hit.density = hit.matchingLines / lines.length
    hits.push(hit)
  }
  hits.sort(
    (a, b) =>
      Number(b.pathMatch) - Number(a.pathMatch) ||
      Number(b.wordMatch) - Number(a.wordMatch) ||
      b.density - a.density ||
      (a.path < b.path ? -1 : a.path > b.path ? 1 : 0),
  )
  const page = hits.slice(offset, offset + limit)
  const next = offset + page.length
  return { hits: page, total: hits.length, offset, ...(next < hits.length ? { nextOffset: next } : {}) }
}

/** Every active text file of `fs` with its path (what a search may return). */
export async function workspaceTexts(fs: YjsFileSystem): Promise<SearchFile[]> {
  const files: SearchFile[] = []
  for (const row of fs.table.rows()) {
    if (row.type !== 'file' || row.trashedAt !== null) continue
    const path = fs.index.pathOf(row.id)
    if (path === undefined) continue
    const text = await fs.readPlaintext(row.id).catch(() => undefined)
    if (text !== undefined) files.push({ path, text })
  }
  return files
}

/** Run `request` on `searcher` and on the brute force; a description of the first difference, or undefined. */
export async function checkSearch(
  searcher: Searcher,
  files: readonly SearchFile[],
  request: SearchRequest,
): Promise<string | undefined> {
  let expected: SearchResult | string
  let actual: SearchResult | string
  try {
    expected = bruteForceSearch(files, request)
  } catch (error) {
    expected = `error: ${(error as Error).message}`
  }
  try {
    actual = await searcher.search(request)
  } catch (error) {
    actual = `error: ${(error as Error).message}`
  }
  const a = JSON.stringify(actual)
  const e = JSON.stringify(expected)
  if (a === e) return undefined
  return `request ${JSON.stringify(request)}\n  expected ${e.slice(0, 2000)}\n  actual   ${a.slice(0, 2000)}`
}

/** Words of random corpora: ASCII, accents, case-folding oddities (ſ, K, ς, İ), Greek, CJK, emoji. */
export const SEARCH_WORDS = [
  'alpha',
  'Beta',
  'GAMMA',
  'delta',
  'the',
  'then',
  'other',
  'foo_bar',
  'colour',
  'color',
  'x1',
  'café',
  'Straße',
  'ſtop',
  '\u212aelvin',
  'kelvin',
  'ΟΔΟΣ',
  'οδος',
  'İstanbul',
  'istanbul',
  '検索',
  '🙂ok',
  '42',
  'a.b',
  '(x)',
  '[y]',
]

const separator = fc.constantFrom(' ', ' ', ' ', ', ', '.', '\n', '\n', '-', '_', '\t')

/** A random text of corpus words. */
export const searchTextArbitrary: fc.Arbitrary<string> = fc
  .array(fc.tuple(fc.constantFrom(...SEARCH_WORDS), separator), { maxLength: 40 })
  .map((parts) => parts.map(([w, s]) => w + s).join(''))

/** `undefined` three times out of four, else a value of `arb`. */
const rarely = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb })

/** A random request over the corpus vocabulary: literals, regexes, case, globs, paging. */
export const searchRequestArbitrary: fc.Arbitrary<SearchRequest> = fc
  .record({
    literal: fc.oneof(
      fc.constantFrom(...SEARCH_WORDS),
      fc.constantFrom(...SEARCH_WORDS).map((w) => w.slice(1, 4) || w),
      fc.constantFrom(...SEARCH_WORDS).map((w) => w.toUpperCase()),
      fc
        .tuple(fc.constantFrom(...SEARCH_WORDS), fc.constantFrom(...SEARCH_WORDS))
        .map(([a, b]) => `${a} ${b}`),
    ),
    regexTemplate: fc.constantFrom(
      (w: string) => `${RE2JS.quote(w)}`,
      (w: string) => `\\b${RE2JS.quote(w)}\\b`,
      (w: string) => `^${RE2JS.quote(w)}`,
      (w: string) => `${RE2JS.quote(w)}$`,
      (w: string) => `(?:${RE2JS.quote(w)}|then)`,
      (w: string) => `${RE2JS.quote(w)}.*the`,
      () => 'colou?r',
      () => 'col(o|ou)r',
      () => '[Aa]lph[a-z]',
      () => 'fo+_ba[rz]',
      () => '\\d+',
      () => 'x\\d',
      () => '.',
      () => 'th(e|en)\\s+\\w+',
      () => '(?i)straSSe|stra\\x{df}e',
      () => 'ſtop|\\QΟΔΟΣ\\E',
    ),
    regex: fc.boolean(),
    caseSensitive: fc.boolean(),
    include: rarely(fc.constantFrom(['*.md'], ['/a/**'], ['**/*.txt', 'b/*'])),
    exclude: rarely(fc.constantFrom(['a/**'], ['*.txt'])),
    limit: rarely(fc.integer({ min: 1, max: 5 })),
    offset: rarely(fc.integer({ min: 0, max: 4 })),
  })
  .map((r) => ({
    query: r.regex ? r.regexTemplate(r.literal) : r.literal,
    ...(r.regex ? { regex: true } : {}),
    ...(r.caseSensitive ? { caseSensitive: true } : {}),
    ...(r.include ? { include: r.include } : {}),
    ...(r.exclude ? { exclude: r.exclude } : {}),
    ...(r.limit !== undefined ? { limit: r.limit } : {}),
    ...(r.offset !== undefined ? { offset: r.offset } : {}),
  }))

/** Paths of random corpora (folders a, b, a/c; names that collide). */
export const searchPathArbitrary: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom('/', '/a/', '/b/', '/a/c/'),
    fc.constantFrom('x.md', 'y.txt', 'alpha.md', 'the', 'z.txt'),
  )
  .map(([folder, name]) => folder + name)

/** A random change to a workspace for search contract runs. */
export type SearchOp =
  | { kind: 'write'; path: string; text: string }
  | { kind: 'binary'; path: string }
  | { kind: 'mv'; from: string; to: string }
  | { kind: 'rm'; path: string }
  | { kind: 'restore'; pick: number }

/** Random `SearchOp`s: writes, binary writes, moves of files and folders, rm, restore from the trash. */
export const searchOpArbitrary: fc.Arbitrary<SearchOp> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('write' as const),
      path: searchPathArbitrary,
      text: searchTextArbitrary,
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('binary' as const), path: searchPathArbitrary }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('mv' as const),
      from: fc.oneof(searchPathArbitrary, fc.constantFrom('/a', '/b', '/a/c')),
      to: fc.oneof(searchPathArbitrary, fc.constantFrom('/b/a', '/a/b', '/c')),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('rm' as const),
      path: fc.oneof(searchPathArbitrary, fc.constantFrom('/a', '/b')),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('restore' as const), pick: fc.nat() }) },
)

/** Apply `op` to `fs`; an op invalid for the current tree is skipped. */
export async function applySearchOp(fs: YjsFileSystem, op: SearchOp): Promise<void> {
  try {
    if (op.kind === 'write' || op.kind === 'binary') {
      await fs.mkdir(paths.dirname(op.path), { recursive: true })
      await fs.writeFile(op.path, op.kind === 'write' ? op.text : new Uint8Array([0, 1, 2, 0, 255]))
    } else if (op.kind === 'mv') await fs.mv(op.from, op.to)
    else if (op.kind === 'rm') await fs.rm(op.path, { recursive: true })
    else {
      const entries = fs.trash.list()
      if (entries.length > 0) fs.trash.restore(entries[op.pick % entries.length]!.id)
    }
  } catch {
    // Invalid for the current tree (missing source, a file where a folder is): skipped.
  }
}
