/**
 * Server configuration: what `createServer` needs, with defaults. The CLI
 * (`main.ts`) builds one from flags and environment; embedders (the web
 * app, tests) pass one directly.
 */
import type { Extension } from '@hocuspocus/server'
import type { Logger } from './logger.js'
import type { DocumentStore } from './persistence/document-store.js'
import type { ServerLimits } from './protocol/limits.js'

export interface ServerConfig {
  /** Where documents, workspaces and tokens live. The server does not close it. */
  store: DocumentStore
  /** Bearer token for the admin API (create workspaces and tokens). No admin API without it. */
  adminToken?: string
  /** Redis URL (`redis://host:port`) to share live edits with other server processes. */
  redisUrl?: string
  /** Redis key prefix (separate deployments on one Redis). Default `yfs`. */
  redisPrefix?: string
  /**
   * With Redis: a changed document's sync step 1 at most this often (ms), which heals a change
   * another process missed while Redis was unreachable (extensions/redis.ts). Default 10 s.
   */
  redisResyncMs?: number
  /** Largest WebSocket message accepted (bytes); bigger ones close the socket (1009). Default 16 MiB. */
  maxMessageBytes?: number
  /** Most documents one Hocuspocus socket may open. Default 100 000. */
  maxDocsPerConnection?: number
  /** How long to wait for a new file's row before refusing its content doc (ms). Default 10 s. */
  fileWaitMs?: number
  /** Compact a document's log after this many appends. Default 256. */
  compactEvery?: number
  /** How long token lookups are cached (ms). Default 5 s. */
  tokenCacheMs?: number
  /** Ping interval; a socket that misses a pong is closed (ms). Default 30 s. */
  pingTimeoutMs?: number
  /** Structured logger. Default: JSON lines on stdout at `info`. */
  logger?: Logger
  /** Folder of the built web app served at `/` (`apps/web/dist`); without it `/` answers 503 with how to build it. */
  appDir?: string
  /** Instance name in logs and health output. */
  name?: string
  /** More Hocuspocus extensions (embedders, tests), after yfs's own; their `onStateless` failures are contained. */
  extensions?: Extension[]
  /** Bounds on what one client may send (protocol/limits.ts); each defaults to `DEFAULT_LIMITS`. */
  limits?: Partial<ServerLimits>
  /** Close MCP sessions (`/mcp`) with no request for this long (ms). Default 30 minutes. */
  mcpIdleTimeoutMs?: number
  /**
   * PostgreSQL search: characters of text kept in memory indexes across workspaces (least
   * recently searched out first); 0 answers every search from PostgreSQL alone. Default 64 M.
   */
  searchMemoryChars?: number
  /** The URL people and agents use to reach this server (behind a proxy, or by a LAN name): `/mcp` accepts it as Host and Origin. */
  publicUrl?: string
  /** More web origins allowed to call `/mcp` (besides loopback on the listening port and `publicUrl`). */
  allowedOrigins?: string[]
}

export const DEFAULTS = {
  maxMessageBytes: 16 * 1024 * 1024,
  maxDocsPerConnection: 100_000,
  fileWaitMs: 10_000,
  compactEvery: 256,
  tokenCacheMs: 5_000,
  pingTimeoutMs: 30_000,
  redisPrefix: 'yfs',
} as const
