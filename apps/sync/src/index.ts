// @yfs/sync — the disk sync daemon: a workspace mirrored to a real folder, both ways.

export { createSyncCommand, type LocalServer, type ServeStore } from './command.js'
export { DEFAULT_IGNORES, STATE_DIR } from './ignore-rules.js'
export { conflictName, mergeText } from './merge.js'
export type { DiskNode, ReconcileInput, StateNode, SyncOp, WorkspaceNode } from './reconcile.js'
export { reconcile } from './reconcile.js'
export type { SyncAction, SyncDirection, SyncEvent, SyncEventHandler } from './sync-events.js'
export type { FolderSync, SyncFolderOptions } from './sync-folder.js'
export { syncFolder } from './sync-folder.js'
