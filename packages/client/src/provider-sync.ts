/**
 * Waiting on a HocuspocusProvider: for the first sync (the server's state
 * has arrived) and for acknowledgement (the server stored every local
 * change: `unsyncedChanges === 0`). Both reject with ConnectError when the
 * server refuses the document, and after `timeoutMs`.
 */
import type { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider'
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
    // Destroyed (closed or taken over): nothing will come; don't hold a timer for the full timeout.
    const destroyed = () => {
      cleanup()
      reject(new ConnectError('closed', name))
    }
    const cleanup = () => {
      clearTimeout(timer)
      provider.off('synced', check)
      provider.off('unsyncedChanges', check)
      provider.off('authenticationFailed', refused)
      provider.off('destroy', destroyed)
    }
    provider.on('synced', check)
    provider.on('unsyncedChanges', check)
    provider.on('authenticationFailed', refused)
    provider.on('destroy', destroyed)
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

/**
 * Resolves `true` once the provider has synced, `false` when the server is
 * unreachable (the socket disconnects before the sync, or `offlineMs` pass).
 * Rejects with ConnectError when the server refuses the document.
 */
export function whenSyncedOrOffline(
  provider: HocuspocusProvider,
  socket: HocuspocusProviderWebsocket,
  offlineMs: number,
): Promise<boolean> {
  return whenOrOffline(provider, socket, offlineMs, 'synced', () => provider.isSynced)
}

/**
 * Resolves `true` once the server has accepted the token for the document
 * (its scope is then known: `authorizedScope`), `false` when the server is
 * unreachable. Rejects with ConnectError when the server refuses it.
 */
export function whenAcceptedOrOffline(
  provider: HocuspocusProvider,
  socket: HocuspocusProviderWebsocket,
  offlineMs: number,
): Promise<boolean> {
  return whenOrOffline(provider, socket, offlineMs, 'authenticated', () => provider.isAuthenticated)
}

function whenOrOffline(
  provider: HocuspocusProvider,
  socket: HocuspocusProviderWebsocket,
  offlineMs: number,
  event: 'synced' | 'authenticated',
  done: () => boolean,
): Promise<boolean> {
  if (done()) return Promise.resolve(true)
  return new Promise((resolve, reject) => {
    const finish = (synced: boolean) => {
      cleanup()
      resolve(synced)
    }
    const onSynced = () => finish(true)
    const onDisconnect = () => finish(false)
    const refused = ({ reason }: { reason: string }) => {
      cleanup()
      reject(new ConnectError(reason, provider.configuration.name))
    }
    const timer = setTimeout(() => finish(false), offlineMs)
    const cleanup = () => {
      clearTimeout(timer)
      provider.off(event, onSynced)
      provider.off('authenticationFailed', refused)
      socket.off('disconnect', onDisconnect)
    }
    provider.on(event, onSynced)
    provider.on('authenticationFailed', refused)
    socket.on('disconnect', onDisconnect)
  })
}

/**
 * `work`, or a rejection with `Error(message)` after `timeoutMs`, whichever
 * comes first. The timer is cleared as soon as `work` settles, so a finished
 * wait keeps no timer (which would hold a process open for `timeoutMs`).
 */
export function withTimeout<T>(work: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), timeoutMs)
  })
  return Promise.race([work, expired]).finally(() => clearTimeout(timer))
}
