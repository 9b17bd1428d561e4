// @yfs/core — the collaborative filesystem on Yjs.

export type {
  ActivityEntry,
  ActivityFileChange,
  ActivityFilter,
  ActivityLog,
  ActivityRetention,
} from './activity/activity-log.js'
// Activity log
export {
  ACTIVITY_CONFIG_KEY,
  ACTIVITY_KEY,
  attachActivityLog,
  DEFAULT_ACTIVITY_RETENTION,
  flushQueuedActivity,
  MAX_QUEUED,
} from './activity/activity-log.js'
export { BINARY_KEY, decodeTextOrBinary } from './content/binary.js'
export type { ContentCodec } from './content/codec.js'
export type {
  ConnectContentDoc,
  ContentConnection,
  ContentDocHandle,
  ContentDocPoolOptions,
} from './content/doc-pool.js'
// Content
export { ContentDocPool } from './content/doc-pool.js'
export { DEFAULT_PLAINTEXT_CACHE_BYTES, PlaintextCache } from './content/plaintext-cache.js'
export { TEXT_KEY, textCodec } from './content/text-codec.js'
export { applyTextDiff } from './content/text-diff.js'
export type { ConflictRegion, TextMergeResult, UnitRange } from './content/three-way-merge.js'
export { mergeText, mergeUnits, splitLines } from './content/three-way-merge.js'
export { utf8Length } from './encoding.js'
export type { ErrnoCode } from './errors.js'
// Errors
export { FsError, isFsError } from './errors.js'
export type { FileRow, FileRowChange, FilesTable, FileType } from './files-table.js'
// Files table
export {
  createFilesTable,
  FILES_TABLE_KEY,
  isValidRow,
  rowEntryKey,
  rowProblems,
  storedRowProblem,
} from './files-table.js'
export type { HeadedState } from './fs/batch-state.js'
export type { BulkEntry, BulkLoadResult } from './fs/bulk-load.js'
export type { CommandScope } from './fs/command-scope.js'
export { openCommandScope } from './fs/command-scope.js'
export type { FsEvent, FsEventHandler, FsEventType } from './fs/events.js'
export { isLocalPath, SYSTEM_ROOTS, TMP_PATH } from './fs/local-layer.js'
export { validateName } from './fs/names.js'
export type { WriteBase, WriteOptions, WriteReport } from './fs/stale-write.js'
export type { RowMetadata, SyncPort } from './fs/sync-port.js'
// The port of a mirror (the disk sync daemon)
export { createSyncPort } from './fs/sync-port.js'
export type { FsOp, TransactionError, TransactionResult } from './fs/transaction.js'
export type {
  CheckpointDiff,
  CheckpointInfo,
  CreateFileSystemOptions,
  TrashEntry,
} from './fs/yjs-file-system.js'
// Filesystem
export {
  CHECKPOINTS_KEY,
  createFileSystem,
  FS_ORIGIN,
  YjsFileSystem,
} from './fs/yjs-file-system.js'
export type { FileVersion, VersionReason } from './history/file-history.js'
// History
export { compactContentState, VERSIONS_KEY } from './history/file-history.js'
export type { HostRunner } from './host-context.js'
export { captureHostContext } from './host-context.js'
export type { FileId } from './ids.js'
// Ids and paths
export { asFileId, createFileId, FILE_ID_LENGTH, ROOT_ID } from './ids.js'
// Yjs internals read in one place (see internals/yjs.ts)
export { docIsEmpty } from './internals/yjs.js'
export type { FileSystemLimits } from './limits.js'
// Limits and encodings
export { DEFAULT_LIMITS } from './limits.js'
export type { LwwChange, LwwCodec, LwwEntry, LwwMap, StoredEntry } from './lww-map.js'
export { attachLwwMap } from './lww-map.js'
// Name rules
export { isValidName, MAX_NAME_BYTES, nameProblem, safeName } from './names.js'
export * as paths from './path.js'
export type { FileSystemIndex, IndexSnapshot } from './path-index.js'
// Runtime index
export { createFileSystemIndex } from './path-index.js'
// Search
export type {
  CompiledQuery,
  FileScan,
  PreparedSearch,
  RankedFile,
  RawMatch,
  Requirement,
  ScanText,
  Searcher,
  SearchHit,
  SearchIndexStats,
  SearchMatch,
  SearchRequest,
  SearchResult,
} from './search/index.js'
export {
  compareRanked,
  compileQuery,
  docPlaintext,
  firstMatch,
  foldText,
  globMatcher,
  isSearchError,
  MAX_MATCHES_PER_FILE,
  MAX_QUERY_LENGTH,
  MAX_SEARCH_GLOBS,
  MAX_SEARCH_LIMIT,
  newlineOffsets,
  nonAsciiOffsets,
  pathFilter,
  prepareSearch,
  rankedFile,
  regexRequirement,
  requiredStrings,
  rowVersion,
  SearchError,
  SearchIndex,
  satisfies,
  scanText,
  searchIndexOf,
  snippetOf,
  TextIndex,
  TrigramIndex,
  toHit,
  trigramKeys,
  wordPattern,
} from './search/index.js'
export { disambiguateNames, suffixedName } from './sibling-names.js'
