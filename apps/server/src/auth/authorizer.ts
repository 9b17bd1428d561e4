/**
 * Authorizer: token + document name → what the holder may do there.
 *
 * Rules, in order: the name must be ours (`<ws>` or `<ws>/<fileId>`); a
 * token must be given and known; its workspace must be the document's; a
 * content doc additionally needs its id to be a file of the workspace (see
 * WorkspaceFiles). Roles: `write` may change documents, `read` only reads.
 *
 * Token lookups are cached for `tokenCacheMs` (a revoked token keeps working
 * that long on connections being opened; open connections are not cut).
 */
import { type DocName, parseDocName } from '../doc-names.js'
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
}

export interface AuthorizerOptions {
  store: DocumentStore
  files: WorkspaceFiles
  /** Default 5 s; 0 disables the cache. */
  tokenCacheMs?: number
}

const CACHE_LIMIT = 10_000

export function createAuthorizer(options: AuthorizerOptions): Authorizer {
  const ttl = options.tokenCacheMs ?? 5_000
  const cache = new Map<string, { grant: { workspace: string; role: Role } | undefined; until: number }>()

  async function resolve(token: string) {
    const now = Date.now()
    const hit = cache.get(token)
    if (hit && hit.until > now) return hit.grant
    const grant = await options.store.resolveToken(token)
    if (ttl > 0) {
      if (cache.size >= CACHE_LIMIT) cache.clear()
      cache.set(token, { grant, until: now + ttl })
    }
    return grant
  }

  return {
    async authorize(token, documentName) {
      const doc = parseDocName(documentName)
      if (!doc) throw new AuthError('invalid document name')
      if (!token) throw new AuthError('missing token')
      const grant = await resolve(token)
      if (!grant) throw new AuthError('invalid token')
      if (grant.workspace !== doc.workspace) throw new AuthError('token not valid for this workspace')
      if (doc.kind === 'content') await options.files.acquireFile(doc.workspace, doc.fileId)
      return { workspace: grant.workspace, role: grant.role, doc }
    },
    release(grant) {
      if (grant.doc.kind === 'content') options.files.release(grant.workspace)
    },
  }
}
