/**
 * Hocuspocus runs `onStateless` hooks without awaiting them (its message
 * receiver calls the stateless callback and moves on), so a hook that
 * rejects becomes an unhandled rejection, which ends a Node process by
 * default. Any token holder can send a stateless message, so the server
 * wraps every extension's `onStateless` here: a failure is logged (hook,
 * extension, error message; never the payload) and goes no further.
 *
 * Other hooks are awaited by Hocuspocus, which turns their failures into a
 * refusal or a closed connection, and are left as they are.
 */
import type { Extension, onStatelessPayload } from '@hocuspocus/server'
import type { Logger } from '../logger.js'

/**
 * `extension` with its `onStateless` hook unable to reject. A proxy, not a
 * copy: extensions may be class instances whose other hooks live on the
 * prototype and use `this` (they still run with the extension as `this`).
 */
export function containStatelessHook(extension: Extension, logger: Logger): Extension {
  const hook = extension.onStateless
  if (!hook) return extension
  const onStateless = async (payload: onStatelessPayload) => {
    try {
      await hook.call(extension, payload)
    } catch (error) {
      logger.error('stateless hook failed', {
        extension: extension.extensionName ?? 'unnamed',
        docNameBytes: payload.documentName.length,
        error,
      })
    }
  }
  return new Proxy(extension, {
    get(target, property) {
      if (property === 'onStateless') return onStateless
      const value: unknown = Reflect.get(target, property, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}
