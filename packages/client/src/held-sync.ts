/**
 * Holding a provider's sync while its document's local copy loads.
 *
 * A stored workspace opens faster when its provider is attached before the
 * local copy (IndexedDB) has loaded: the token check, a round trip to the
 * server, then runs while the copy loads instead of after it. Two things
 * must wait for the load, though:
 * - the sync step: sent before the load, it would carry an empty state
 *   vector and ask the server for the whole document again;
 * - forwarding the document's updates: the load's own transactions would go
 *   to the server as one large update of what it already has.
 * `holdSync` defers both until the returned `release()` is called; the sync
 * step then runs as it would have (a full handshake, so offline edits in the
 * local copy still reach the server).
 */
import type { HocuspocusProvider } from '@hocuspocus/provider'
import {
  deferStartSync,
  resumeForwardingUpdates,
  stopForwardingUpdates,
} from './internals/hocuspocus-provider.js'

/** Defer `provider`'s sync step and update forwarding until `release()`; returns `release`. */
export function holdSync(provider: HocuspocusProvider): () => void {
  let held = true
  stopForwardingUpdates(provider)
  const restoreStartSync = deferStartSync(provider)
  return () => {
    if (!held) return
    held = false
    if (!provider.isAttached) return restoreStartSync(false)
    resumeForwardingUpdates(provider)
    restoreStartSync(true)
  }
}
