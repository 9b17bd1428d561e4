/**
 * The one place @yfs/client reaches past @hocuspocus/provider's public API
 * (3.4.4, pinned). Each use is here, with why no public call serves, and the
 * learning test beside this file (`hocuspocus-provider.test.ts`) fails naming
 * the member when a Hocuspocus release changes it:
 *
 * - `provider.boundDocumentUpdateHandler`: the provider's `update` listener on
 *   its document. Holding a provider's sync while a local copy loads
 *   (held-sync.ts) takes it off the document and puts it back; the provider has
 *   no pause/resume.
 *   Held updates (held-updates.ts) are sent later through it, as the provider sends
 *   any local update: counted in `unsyncedChanges` until the server acknowledges them.
 * - `provider.startSync`: called by the provider when its socket opens; held
 *   sync shadows it with an own property until the copy has loaded.
 * - `socket.configuration.providerMap`: the socket's providers by document
 *   name. A provider dropped while offline must leave it at once (otherwise its
 *   queued CLOSE reaches the server after the reconnect and closes the next
 *   connection of that name); `detach` only does so while connected.
 */
import type { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider'

/** Stop `provider` forwarding its document's updates to the server. */
export function stopForwardingUpdates(provider: HocuspocusProvider): void {
  provider.document.off('update', provider.boundDocumentUpdateHandler)
}

/** Forward `provider`'s document updates again (after `stopForwardingUpdates`). */
export function resumeForwardingUpdates(provider: HocuspocusProvider): void {
  provider.document.on('update', provider.boundDocumentUpdateHandler)
}

/** Send `update` of `provider`'s document to the server as the provider sends a local change. */
export function sendDocumentUpdate(provider: HocuspocusProvider, update: Uint8Array): void {
  // Any origin but the provider itself: the provider skips updates it applied from the server.
  provider.boundDocumentUpdateHandler(update, null)
}

/**
 * Until the returned function is called, the provider's own `startSync` (run when its socket
 * opens) only notes that it was wanted. The returned function restores it and, with `run`,
 * runs it if it was wanted meanwhile.
 */
export function deferStartSync(provider: HocuspocusProvider): (run: boolean) => void {
  let wanted = false
  // An own property shadowing the prototype's method; deleting it restores the method.
  provider.startSync = () => {
    wanted = true
  }
  return (run) => {
    delete (provider as { startSync?: unknown }).startSync
    if (run && wanted) provider.startSync()
  }
}

/** Take `provider` off `socket`'s providers at once, when it is still the one listed for its name. */
export function forgetProvider(socket: HocuspocusProviderWebsocket, provider: HocuspocusProvider): void {
  const map = socket.configuration.providerMap
  if (map.get(provider.configuration.name) === provider) map.delete(provider.configuration.name)
}
