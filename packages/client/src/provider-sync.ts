/**
 * Waiting on a HocuspocusProvider: for the first sync (the server's state
 * has arrived) and for acknowledgement (the server stored every local
 * change: `unsyncedChanges === 0`). Both reject with ConnectError when the
 * server refuses the document, and after `timeoutMs`.
 */
import type { HocuspocusProvider } from '@hocuspocus/provider'
import { ConnectError } from './connect-error.js'

function waitForProvider(
  provider: HocuspocusProvider,
  done: () => boolean,
  timeoutMs: number,
): Promise<void> {
  const name = provider.configuration.name
  if (done()) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!done()) return
      cleanup()
      resolve()
    }
    const refused = ({ reason }: { reason: string }) => {
      cleanup()
      reject(new ConnectError(reason, name))
    }
    const timer = setTimeout(() => {
      cleanup()
      reject(new ConnectError('timeout', name))
    }, timeoutMs)
    const cleanup = () => {
      clearTimeout(timer)
      provider.off('synced', check)
      provider.off('unsyncedChanges', check)
      provider.off('authenticationFailed', refused)
    }
    provider.on('synced', check)
    provider.on('unsyncedChanges', check)
    provider.on('authenticationFailed', refused)
  })
}

/** Resolves once the server's state of the document has been received. */
export function whenSynced(provider: HocuspocusProvider, timeoutMs: number): Promise<void> {
  return waitForProvider(provider, () => provider.isSynced, timeoutMs)
}

/** Resolves once the server has acknowledged (stored) every local change. */
export function whenAcknowledged(provider: HocuspocusProvider, timeoutMs: number): Promise<void> {
  return waitForProvider(provider, () => provider.isSynced && provider.unsyncedChanges === 0, timeoutMs)
}
