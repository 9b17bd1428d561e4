// @yfs/client — connect to a yfs sync server.

// Doc names for those who wire their own providers (the messages themselves live in @yfs/protocol).
export { contentDocName, mainDocName } from '@yfs/protocol'
export type { BulkChannel, BulkChannelOptions, HeadedState } from './bulk-channel.js'
export { createBulkChannel } from './bulk-channel.js'
export { ConnectError } from './connect-error.js'
export type {
  ConnectionStatus,
  ConnectWorkspaceOptions,
  DocAwareness,
  WorkspaceConnection,
} from './connect-workspace.js'
export { connectWorkspace, isNotOnDevice, NOT_ON_DEVICE } from './connect-workspace.js'
export type { DocPersistence, PersistDoc } from './persistence.js'
export { whenAcknowledged, whenSynced } from './provider-sync.js'
export type { SearchChannel } from './search-channel.js'
export { createSearchChannel } from './search-channel.js'
