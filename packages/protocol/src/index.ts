// @yfs/protocol — what travels between @yfs/client and the sync server, in one place both import.

export type { BulkHeads, BulkMessage } from './bulk-messages.js'
export {
  BULK_ASK_AGAIN,
  BULK_UNCHANGED,
  BULK_UPDATES_OFF,
  BULK_VERSION,
  BULK_VERSION_PACKED,
  decodeBulkMessage,
  encodeBulkMessage,
  isPackedBulkMessage,
} from './bulk-messages.js'
export type { DocName } from './doc-names.js'
export { contentDocName, mainDocName, parseDocName } from './doc-names.js'
export type { SearchFailure, SearchMessage } from './search-messages.js'
export { decodeSearchMessage, encodeSearchMessage, SEARCH_VERSION } from './search-messages.js'
export { isValidWorkspaceId, workspaceIdProblem } from './workspace-ids.js'
