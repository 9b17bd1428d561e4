/**
 * Connection status for the status bar: online, offline or syncing (online
 * with documents whose changes the server has not acknowledged yet), from
 * the connection's `onStatus` events.
 */
import type { WorkspaceConnection } from '@yfs/client'

export type ConnectionPhase = 'online' | 'offline' | 'syncing'

/** Live connection status; `destroy()` when done. */
export class ConnectionState {
  online = $state(false)
  /** Documents with changes the server has not acknowledged yet. */
  unacknowledged = $state(0)
  readonly phase: ConnectionPhase = $derived(
    !this.online ? 'offline' : this.unacknowledged > 0 ? 'syncing' : 'online',
  )
  readonly #off: () => void

  constructor(conn: WorkspaceConnection) {
    const apply = ({ online, unacknowledged }: { online: boolean; unacknowledged: number }) => {
      this.online = online
      this.unacknowledged = unacknowledged
    }
    apply(conn.status())
    this.#off = conn.onStatus(apply)
  }

  destroy(): void {
    this.#off()
  }
}
