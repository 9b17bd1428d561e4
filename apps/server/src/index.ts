// @yfs/server — the yfs sync server.

export { contentDocName, mainDocName, parseDocName } from '@yfs/protocol'
export type { ServerConfig } from './config.js'
export type { Logger, LogLevel } from './logger.js'
export { createLogger, silentLogger } from './logger.js'
export type { CompactResult, DocumentStore, Role, TokenGrant } from './persistence/document-store.js'
export { isValidWorkspaceId, ROLES, StoreError, workspaceIdProblem } from './persistence/document-store.js'
export type { PostgresStoreOptions } from './persistence/postgres-store.js'
export { createPostgresStore } from './persistence/postgres-store.js'
export type { SqliteStoreOptions } from './persistence/sqlite-store.js'
export { createSqliteStore } from './persistence/sqlite-store.js'
export type { ServerStats, YfsServer } from './server.js'
export { createServer } from './server.js'
