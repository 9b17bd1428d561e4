/**
 * A search request checked and completed with its defaults: the compiled
 * query, the path filter, and the page bounds. Every implementation starts
 * here, so they refuse the same inputs with the same errors.
 */
import { pathFilter } from './glob.js'
import { type CompiledQuery, compileQuery } from './query.js'
import {
  MAX_MATCHES_PER_FILE,
  MAX_SEARCH_GLOBS,
  MAX_SEARCH_LIMIT,
  SearchError,
  type SearchRequest,
} from './types.js'

/** A checked request. */
export interface PreparedSearch {
  query: CompiledQuery
  /** Include/exclude globs as one predicate on absolute paths. */
  accepts: (path: string) => boolean
  limit: number
  offset: number
  perFile: number
}

function count(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min)
    throw new SearchError(`${name} must be an integer ≥ ${min}`)
  return Math.min(value, max)
}

function globs(value: unknown, name: string): string[] {
  if (value === undefined) return []
  if (!Array.isArray(value) || !value.every((g) => typeof g === 'string' && g.length > 0 && g.length <= 1000))
    throw new SearchError(`${name} must be a list of globs`)
  if (value.length > MAX_SEARCH_GLOBS) throw new SearchError(`more than ${MAX_SEARCH_GLOBS} ${name} globs`)
  return value
}

/** Check `request` and fill in its defaults; throws `SearchError` (EINVAL). */
export function prepareSearch(request: SearchRequest): PreparedSearch {
  if (typeof request !== 'object' || request === null) throw new SearchError('a search needs a query')
  const query = compileQuery(request.query, request.regex === true, request.caseSensitive === true)
  let accepts: (path: string) => boolean
  try {
    accepts = pathFilter(globs(request.include, 'include'), globs(request.exclude, 'exclude'))
  } catch (error) {
    if (error instanceof SyntaxError) throw new SearchError(`invalid glob: ${error.message}`)
    throw error
  }
  return {
    query,
    accepts,
    // Past the cap a request is answered with the cap: a page is always bounded.
    limit: count(request.limit, 'limit', 20, 1, MAX_SEARCH_LIMIT),
    offset: count(request.offset, 'offset', 0, 0, Number.MAX_SAFE_INTEGER),
    perFile: count(request.matchesPerFile, 'matchesPerFile', 3, 1, MAX_MATCHES_PER_FILE),
  }
}
