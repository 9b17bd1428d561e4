/**
 * The search contract: what a caller asks (`SearchRequest`) and gets back
 * (`SearchResult`), and the interface every implementation offers
 * (`Searcher`: the in-process trigram index, the server's PostgreSQL index
 * through a connected client). One contract suite runs against all of them.
 *
 * Semantics (identical everywhere; query.ts and scan.ts implement them):
 * - a query is a literal (default) or an RE2 regex; both match within one
 *   line (lines split at `\n`); case-insensitive by default (RE2's simple
 *   case folding, `(?i)`);
 * - a hit is a file with at least one matching line; `matchingLines` counts
 *   them, `matches` holds the first few (line, column, snippet);
 * - ranking: files whose path matches the query first, then files where a
 *   match is a whole word, then density (matching lines / lines), then path;
 * - only active text files of the workspace: never trashed files, binary
 *   files, `/tmp` scratch or system paths.
 */

/** A search. */
export interface SearchRequest {
  /** The text to find (literal), or an RE2 regex with `regex: true`. One line, at most 1,000 characters. */
  query: string
  /** RE2 syntax (https://github.com/google/re2/wiki/Syntax). Default false: a literal. */
  regex?: boolean
  /** Default false. */
  caseSensitive?: boolean
  /** Globs a file's path must match one of (when given). `/`-less globs match a name at any depth. */
  include?: readonly string[]
  /** Globs of paths to leave out. */
  exclude?: readonly string[]
  /** Hits per page: default 20, at most `MAX_SEARCH_LIMIT` (200). */
  limit?: number
  /** Hits to skip (paging): default 0. */
  offset?: number
  /** Matches listed per hit: default 3, at most 20. */
  matchesPerFile?: number
}

/** One matching line of a hit. */
export interface SearchMatch {
  /** 1-based line number. */
  line: number
  /** 1-based column of the match start, in UTF-16 code units. */
  column: number
  /** Length of the match in UTF-16 code units (0 for an empty regex match). */
  length: number
  /** The line, or a window of it around the match (`…` marks a cut). */
  snippet: string
  /** Where the match is in `snippet`: [start, end) offsets. */
  mark: [number, number]
}

/** A file that matches. */
export interface SearchHit {
  /** Absolute path (`/docs/a.md`). */
  path: string
  /** The query matches the path itself. */
  pathMatch: boolean
  /**
   * Some match stands as a whole word: no word character (`[0-9A-Za-z_]`) right before or
   * after it (`wordPattern`).
   */
  wordMatch: boolean
  /** Lines that match. */
  matchingLines: number
  /** `matchingLines` / lines of the file. */
  density: number
  /** The first matching lines (at most `matchesPerFile`). */
  matches: SearchMatch[]
}

/** One page of ranked hits. */
export interface SearchResult {
  hits: SearchHit[]
  /** Files that match in all. */
  total: number
  offset: number
  /** The `offset` of the next page; absent on the last page. */
  nextOffset?: number
}

/** Something that answers searches (the in-process index, a server). */
export interface Searcher {
  /** One page of ranked hits. Throws `SearchError` (EINVAL) for an invalid query or option. */
  search(request: SearchRequest): Promise<SearchResult>
}

/** Largest `limit`. */
export const MAX_SEARCH_LIMIT = 200
/** Longest query (characters). */
export const MAX_QUERY_LENGTH = 1000
/** Most matches per hit. */
export const MAX_MATCHES_PER_FILE = 20
/** Most include or exclude globs. */
export const MAX_SEARCH_GLOBS = 32

/** An invalid query or option; `position` is the 0-based offset in the query a regex error is at. */
export class SearchError extends Error {
  readonly code = 'EINVAL'
  readonly position: number | undefined
  constructor(message: string, position?: number) {
    super(message)
    this.name = 'SearchError'
    this.position = position
  }
}

/** True for a `SearchError`. */
export function isSearchError(error: unknown): error is SearchError {
  return error instanceof SearchError
}
