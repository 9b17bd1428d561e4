// @yfs/server — the yfs sync server (the `yfs` command that runs it is apps/cli).

export { contentDocName, mainDocName, parseDocName } from '@yfs/protocol'
export type { ServerConfig } from './config.js'
export type { Logger, LogLevel } from './logger.js'
export { createLogger, silentLogger } from './logger.js'
export type { Backup, BackupDocument, BackupHeader, BackupProgress } from './persistence/backup.js'
export {
  BACKUP_FORMAT,
  BACKUP_VERSION,
  BackupError,
  decodeBackup,
  encodeBackup,
  toBackupDocuments,
  toStoredDocuments,
} from './persistence/backup.js'
export type { DataLock, LockMode, LockOptions } from './persistence/data-lock.js'
export { DataFolderBusy, LOCK_FILE, lockDataFolder } from './persistence/data-lock.js'
export type { CompactResult, DocumentStore, Role, TokenGrant } from './persistence/document-store.js'
export { isValidWorkspaceId, ROLES, StoreError, workspaceIdProblem } from './persistence/document-store.js'
export type { PostgresStoreOptions } from './persistence/postgres-store.js'
export { createPostgresStore } from './persistence/postgres-store.js'
export type { SqliteStoreOptions } from './persistence/sqlite-store.js'
export { createSqliteStore } from './persistence/sqlite-store.js'
export {
  createUpdateMerger,
  type UpdateMerger,
  type UpdateMergerOptions,
} from './persistence/update-merger.js'
export { containUnhandledRejections } from './process-guards.js'
export type { ServerStats, YfsServer } from './server.js'
export { createServer } from './server.js'
