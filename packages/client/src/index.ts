// @yfs/client — connect to a yfs sync server.

export { ConnectError } from './connect-error.js'
export type {
  ConnectionStatus,
  ConnectWorkspaceOptions,
  DocAwareness,
  WorkspaceConnection,
} from './connect-workspace.js'
export { connectWorkspace } from './connect-workspace.js'
export { contentDocName, mainDocName } from './doc-names.js'
export type { DocPersistence, PersistDoc } from './persistence.js'
export { whenAcknowledged, whenSynced } from './provider-sync.js'
