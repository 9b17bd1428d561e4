/**
 * Auth extension: runs the Authorizer in `onAuthenticate`, makes read-token
 * connections read-only (Hocuspocus then answers their updates with
 * "not synced" and never applies them), and releases the workspace hold of
 * content docs in `onDisconnect`. Refusals are logged at debug level with
 * their reason and the name's length: the socket guard logs the first
 * refusal of each socket at warn level, so a client cannot flood the log.
 */
import type { Extension, onAuthenticatePayload, onDisconnectPayload } from '@hocuspocus/server'
import { AuthError } from '../auth/auth-error.js'
import type { Authorizer, Grant } from '../auth/authorizer.js'
import type { Logger } from '../logger.js'

/** What auth puts in a connection's Hocuspocus context. */
export interface YfsContext {
  grant?: Grant
}

export function createAuthExtension(authorizer: Authorizer, logger: Logger): Extension {
  return {
    extensionName: 'yfs-auth',
    async onAuthenticate({ token, documentName, connectionConfig, socketId }: onAuthenticatePayload) {
      let grant: Grant
      try {
        grant = await authorizer.authorize(token, documentName)
      } catch (error) {
        const reason = error instanceof AuthError ? error.reason : 'internal error'
        logger.debug('auth refused', {
          hook: 'onAuthenticate',
          docNameBytes: documentName.length,
          socketId,
          reason,
        })
        if (!(error instanceof AuthError))
          logger.error('auth failed', { hook: 'onAuthenticate', docNameBytes: documentName.length, error })
        // Hocuspocus sends `reason` to the client, and writes a hook error's message to stderr:
        // no message, so a client cannot fill stderr with refusals (the guard logs them once).
        throw Object.assign(new Error(), { reason })
      }
      connectionConfig.readOnly = grant.role === 'read'
      return { grant } satisfies YfsContext
    },
    async onDisconnect({ context }: onDisconnectPayload) {
      const grant = (context as YfsContext).grant
      if (grant) authorizer.release(grant)
    },
  }
}
