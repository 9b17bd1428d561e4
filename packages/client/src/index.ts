// @yfs/client — connect to a yfs sync server.

export type { BulkChannel, BulkChannelOptions } from './bulk-channel.js'
export { createBulkChannel } from './bulk-channel.js'
export type { BulkMessage } from './bulk-messages.js'
export { BULK_ASK_AGAIN, BULK_VERSION, decodeBulkMessage, encodeBulkMessage } from './bulk-messages.js'
export { ConnectError } from './connect-error.js'
export type {
  ConnectionStatus,
  ConnectWorkspaceOptions,
  DocAwareness,
  WorkspaceConnection,
} from './connect-workspace.js'
export { connectWorkspace, isNotOnDevice, NOT_ON_DEVICE } from './connect-workspace.js'
export { contentDocName, mainDocName } from './doc-names.js'
export type { DocPersistence, PersistDoc } from './persistence.js'
export { whenAcknowledged, whenSynced } from './provider-sync.js'
export type { SearchChannel } from './search-channel.js'
export { createSearchChannel } from './search-channel.js'
export type { SearchFailure, SearchMessage } from './search-messages.js'
export { decodeSearchMessage, encodeSearchMessage, SEARCH_VERSION } from './search-messages.js'
