/**
 * Authorizer: token + document name → what the holder may do there.
 *
 * Rules, in order: the name must be ours (`<ws>` or `<ws>/<fileId>`); a
 * token must be given and known; its workspace must be the document's; a
 * content doc additionally needs its id to be a file of the workspace (see
 * WorkspaceFiles). Roles: `write` may change documents, `read` only reads.
 *
 * Token lookups are cached for `tokenCacheMs` (a revoked token keeps working
 * that long on connections being opened; open connections are not cut). The
 * cache is keyed by the token's SHA-256, holds at most `CACHE_LIMIT` entries
 * (the oldest go first) and never sees a token over `maxTokenBytes`: those
 * are refused without a lookup, so no client can fill memory with tokens.
 */
import { createHash } from 'node:crypto'
import { type DocName, parseDocName } from '@yfs/protocol'
import type { DocumentStore, Role } from '../persistence/document-store.js'
import type { WorkspaceFiles } from '../workspace-files.js'
import { AuthError } from './auth-error.js'

export interface Grant {
  workspace: string
  role: Role
  doc: DocName
}

export interface Authorizer {
  /**
   * Check `token` for `documentName`. Throws AuthError. For a content doc a
   * successful call holds the workspace's main doc: call `release(grant)`
   * when the document connection ends.
   */
  authorize(token: string | undefined | null, documentName: string): Promise<Grant>
  release(grant: Grant): void
  /** Cached token lookups (for tests and health). */
  readonly cacheSize: number
}

export interface AuthorizerOptions {
  store: DocumentStore
  files: WorkspaceFiles
  /** Default 5 s; 0 disables the cache. */
  tokenCacheMs?: number
  /** Longer tokens are refused without a lookup. Default 1 KiB. */
  maxTokenBytes?: number
}

/** Most cached token lookups (each ≈ 150 bytes: a 44-character digest and a grant). */
export const CACHE_LIMIT = 10_000

const digest = (token: string) => createHash('sha256').update(token).digest('base64')

export function createAuthorizer(options: AuthorizerOptions): Authorizer {
  const ttl = options.tokenCacheMs ?? 5_000
  const maxTokenBytes = options.maxTokenBytes ?? 1024
  const cache = new Map<string, { grant: { workspace: string; role: Role } | undefined; until: number }>()

  async function resolve(token: string) {
    const now = Date.now()
    const key = digest(token)
    const hit = cache.get(key)
    if (hit && hit.until > now) return hit.grant
    const grant = await options.store.resolveToken(token)
    if (ttl > 0) {
      // Re-inserted keys move to the end: the first key is the oldest.
      cache.delete(key)
      if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!)
      cache.set(key, { grant, until: now + ttl })
    }
    return grant
  }

  return {
    async authorize(token, documentName) {
      const doc = parseDocName(documentName)
      if (!doc) throw new AuthError('invalid document name')
      if (!token) throw new AuthError('missing token')
      if (Buffer.byteLength(token) > maxTokenBytes) throw new AuthError('invalid token')
      const grant = await resolve(token)
      if (!grant) throw new AuthError('invalid token')
      if (grant.workspace !== doc.workspace) throw new AuthError('token not valid for this workspace')
      if (doc.kind === 'content') await options.files.acquireFile(doc.workspace, doc.fileId)
      return { workspace: grant.workspace, role: grant.role, doc }
    },
    release(grant) {
      if (grant.doc.kind === 'content') options.files.release(grant.workspace)
    },
    get cacheSize() {
      return cache.size
    },
  }
}
