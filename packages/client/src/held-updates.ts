/**
 * Content docs' updates held during a write batch (core `holdContentUpdates`).
 *
 * A write to a content doc open here goes to the server through the doc's provider. Outside a
 * batch each change is sent at once, as the provider does. In a batch (a shell command, a tool
 * call, `fs.batch`) the changes of each doc wait and go as one update (`Y.mergeUpdates`): when the
 * batch ends, before its rows (core releases this hold first: content first, rows last), and at
 * the latest `maxHoldMs` after the first (a long command still shows its progress, ahead of the
 * rows' own steps of 100 ms). A loop of 300 appends to an open file was 300 messages for the
 * server to check, apply and store.
 *
 * Invariants: a held update is sent before its provider is let go (`release`: a closing doc
 * counts it as unacknowledged and keeps a copy) and on `send()` (the connection's `flush`);
 * nothing held waits longer than `maxHoldMs`; updates the provider applied from the server are
 * never sent back.
 */
import type { HocuspocusProvider } from '@hocuspocus/provider'
import type { HostRunner } from '@yfs/core'
import * as Y from 'yjs'
import { sendDocumentUpdate, stopForwardingUpdates } from './internals/hocuspocus-provider.js'

export interface HeldUpdates {
  /** Hold local updates of every attached doc until the returned function is called (holds nest). */
  hold(): () => void
  /** Send `provider`'s local updates through this from now on, instead of the provider's own listener. */
  attach(provider: HocuspocusProvider): void
  /** Send what `provider` has held and stop handling it (before it closes). */
  release(provider: HocuspocusProvider): void
  /** Send everything held now. */
  send(): void
  destroy(): void
}

/**
 * Held updates of content docs; `maxHoldMs` caps how long one waits. `host` runs the timer and
 * the sends outside a just-bash script's context (@yfs/core's host-context.ts): writes come from scripts.
 */
export function createHeldUpdates(host: HostRunner, maxHoldMs = 50): HeldUpdates {
  let holds = 0
  const attached = new Map<HocuspocusProvider, (update: Uint8Array, origin: unknown) => void>()
  const held = new Map<HocuspocusProvider, Uint8Array[]>()
  let timer: ReturnType<typeof setTimeout> | undefined

  const sendOne = (provider: HocuspocusProvider) => {
    const updates = held.get(provider)
    if (!updates) return
    held.delete(provider)
    const update = updates.length === 1 ? updates[0]! : Y.mergeUpdates(updates)
    host(() => sendDocumentUpdate(provider, update))
  }
  const send = () => {
    if (timer !== undefined) host(() => clearTimeout(timer))
    timer = undefined
    for (const provider of [...held.keys()]) sendOne(provider)
  }

  return {
    hold() {
      holds++
      let released = false
      return () => {
        if (released) return
        released = true
        if (--holds === 0) send()
      }
    },
    attach(provider) {
      if (attached.has(provider)) return
      stopForwardingUpdates(provider)
      const onUpdate = (update: Uint8Array, origin: unknown) => {
        if (origin === provider) return
        // Nothing is held while no batch holds: the last release sent it all.
        if (holds === 0) return host(() => sendDocumentUpdate(provider, update))
        const list = held.get(provider)
        if (list) list.push(update)
        else held.set(provider, [update])
        timer ??= host(() => setTimeout(send, maxHoldMs))
      }
      provider.document.on('update', onUpdate)
      attached.set(provider, onUpdate)
    },
    release(provider) {
      const onUpdate = attached.get(provider)
      if (!onUpdate) return
      sendOne(provider)
      provider.document.off('update', onUpdate)
      attached.delete(provider)
    },
    send,
    destroy() {
      send()
      for (const provider of [...attached.keys()]) this.release(provider)
    },
  }
}
