// @yfs/client — connect to a yfs sync server.

export { ConnectError } from './connect-error.js'
export type { ConnectWorkspaceOptions, DocAwareness, WorkspaceConnection } from './connect-workspace.js'
export { connectWorkspace } from './connect-workspace.js'
export { contentDocName, mainDocName } from './doc-names.js'
export { whenAcknowledged, whenSynced } from './provider-sync.js'
