/**
 * What one client may send before the server refuses it: every bound the
 * socket guards and the bulk extension apply, with their defaults. Each is a
 * memory or CPU budget for input the server cannot trust (any token holder,
 * or nobody: frames arrive before authentication).
 *
 * The defaults leave room for every legitimate client we ship: tokens are
 * ~40 characters, document names ≤ 193 bytes, a presence state is a name, a
 * colour and a cursor (< 1 KiB), a client opens one provider per document,
 * and @yfs/client asks for ≤ 250 ids per bulk load; a search request is a
 * query of ≤ 1,000 characters and a few globs.
 */

export interface ServerLimits {
  /** Longest token in an auth frame or y-websocket URL (bytes). Default 1 KiB. */
  maxTokenBytes: number
  /** Longest document name (bytes). Default 256. */
  maxDocNameBytes: number
  /** A socket with no authenticated document this long after it opened is closed (ms). Default 15 s. */
  authTimeoutMs: number
  /** Frames a socket may send for documents that are not authenticated yet (summed over them). Default 1,000. */
  maxEarlyFrames: number
  /** Bytes a socket may send for documents that are not authenticated yet. Default 4 MiB. */
  maxEarlyBytes: number
  /** Documents whose authentication was refused before the socket is closed. Default 100. */
  maxRefusedDocs: number
  /** Largest presence (awareness) state of one client, as JSON (bytes). Default 64 KiB. */
  maxAwarenessStateBytes: number
  /** Deepest nesting of arrays and objects in a presence state. Default 32. */
  maxAwarenessDepth: number
  /** Presence client ids one socket may set on one document. Default 8. */
  maxAwarenessClients: number
  /** Ids in one bulk `load` request (duplicates are refused). Default 1,000. */
  maxBulkIds: number
  /** Content bytes in one bulk `loaded` reply; ids past it are answered "ask again". Default 8 MiB. */
  maxBulkReplyBytes: number
  /** Bytes of one search request message (the query itself is at most 1,000 characters). Default 64 KiB. */
  maxSearchRequestBytes: number
  /** Bytes of one search reply; hits past it are left to the next page. Default 1 MiB. */
  maxSearchReplyBytes: number
  /** Searches one connection may have running at once; more are answered `EBUSY`. Default 2. */
  maxSearchesInFlight: number
}

export const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze({
  maxTokenBytes: 1024,
  maxDocNameBytes: 256,
  authTimeoutMs: 15_000,
  maxEarlyFrames: 1000,
  maxEarlyBytes: 4 * 1024 * 1024,
  maxRefusedDocs: 100,
  maxAwarenessStateBytes: 64 * 1024,
  maxAwarenessDepth: 32,
  maxAwarenessClients: 8,
  maxBulkIds: 1000,
  maxBulkReplyBytes: 8 * 1024 * 1024,
  maxSearchRequestBytes: 64 * 1024,
  maxSearchReplyBytes: 1024 * 1024,
  maxSearchesInFlight: 2,
})

/** `DEFAULT_LIMITS` with `overrides` applied. */
export function resolveLimits(overrides: Partial<ServerLimits> = {}): ServerLimits {
  return { ...DEFAULT_LIMITS, ...overrides }
}
