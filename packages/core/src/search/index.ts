/** Search: the in-process trigram index and the contract every implementation shares (types.ts). */

export { docPlaintext, rowVersion } from './doc-text.js'
export { foldText } from './fold.js'
export { globMatcher, pathFilter } from './glob.js'
export type { CompiledQuery } from './query.js'
export { compileQuery, firstMatch, wordPattern } from './query.js'
export { regexRequirement } from './regex-requirement.js'
export type { PreparedSearch } from './request.js'
export { prepareSearch } from './request.js'
export type { Requirement } from './requirement.js'
export { requiredStrings, satisfies } from './requirement.js'
export type { FileScan, RankedFile, RawMatch, ScanText } from './scan.js'
export {
  compareRanked,
  newlineOffsets,
  nonAsciiOffsets,
  rankedFile,
  scanText,
  snippetOf,
  toHit,
} from './scan.js'
export type { SearchIndexStats } from './search-index.js'
export { SearchIndex, searchIndexOf } from './search-index.js'
export { TextIndex } from './text-index.js'
export { TrigramIndex, trigramKeys } from './trigram-index.js'
export type { Searcher, SearchHit, SearchMatch, SearchRequest, SearchResult } from './types.js'
export {
  isSearchError,
  MAX_MATCHES_PER_FILE,
  MAX_QUERY_LENGTH,
  MAX_SEARCH_GLOBS,
  MAX_SEARCH_LIMIT,
  SearchError,
} from './types.js'
