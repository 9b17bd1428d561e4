/**
 * Documents whose provider was closed on a socket that is still open, until the server confirms.
 *
 * A provider that closes sends CLOSE for its document; the server tears its connection for that
 * name down after its message hooks have run, and answers with a CLOSE of its own. A provider for
 * the same name attached in between (the pool evicts a doc and a write opens it again at once)
 * races that tear-down: its token reaches the old connection, its sync step is queued behind a
 * token the server never sees again, and the server's CLOSE arrives at the new provider. The doc
 * then never syncs and the open fails after its timeout. So a re-open waits for the server's
 * CLOSE (or the socket to drop, or `waitMs` as a backstop).
 */
import type { HocuspocusProviderWebsocket } from '@hocuspocus/provider'
import { MessageType } from '@hocuspocus/provider'
import * as decoding from 'lib0/decoding'

export interface ClosingDocs {
  /** A provider for `name` was just closed. */
  add(name: string): void
  /** `name` may be attached again now (its close was never sent, say). */
  settle(name: string): void
  /** Resolves when `name` may be attached again; `undefined` when it may be now. */
  until(name: string): Promise<void> | undefined
  /** Stop listening (resolves every pending wait). */
  destroy(): void
}

interface Pending {
  done: Promise<void>
  resolve: () => void
}

/** Track closing documents on `socket`. */
export function watchClosingDocs(socket: HocuspocusProviderWebsocket, waitMs = 5_000): ClosingDocs {
  const pending = new Map<string, Pending>()
  const settle = (name: string) => {
    const entry = pending.get(name)
    if (!entry) return
    pending.delete(name)
    entry.resolve()
  }
  const settleAll = () => {
    for (const name of [...pending.keys()]) settle(name)
  }
  const onMessage = (event: { data: ArrayBuffer | Uint8Array }) => {
    if (pending.size === 0) return
    const decoder = decoding.createDecoder(
      event.data instanceof Uint8Array ? event.data : new Uint8Array(event.data),
    )
    const name = decoding.readVarString(decoder)
    if (pending.has(name) && decoding.readVarUint(decoder) === MessageType.CLOSE) settle(name)
  }
  socket.on('message', onMessage)
  socket.on('disconnect', settleAll)
  return {
    add(name) {
      if (pending.has(name)) return
      let resolve = () => {}
      const done = new Promise<void>((r) => {
        resolve = r
      })
      const timer = setTimeout(() => settle(name), waitMs)
      ;(timer as { unref?: () => void }).unref?.()
      pending.set(name, {
        done,
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
      })
    },
    settle,
    until: (name) => pending.get(name)?.done,
    destroy() {
      socket.off('message', onMessage)
      socket.off('disconnect', settleAll)
      settleAll()
    },
  }
}
