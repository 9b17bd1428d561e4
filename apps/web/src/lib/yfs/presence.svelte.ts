/**
 * Presence on the main doc: who is in the workspace and which file each
 * person is viewing, through the main doc's awareness (y-protocols). Every
 * client publishes `{ user: { name, color }, viewing: fileId | null }`; the
 * tree shows the others next to the files they view.
 *
 * Files are named by id, not path, so a rename by someone else does not
 * break who-views-what. Remote states are untrusted input: only well-formed
 * string fields are used, and names are rendered as text.
 */
import type { DocAwareness } from '@yfs/client'
import type { FileId } from '@yfs/core'
import type { User } from './user.js'

/** Another person in the workspace. */
export interface Peer {
  clientId: number
  name: string
  color: string
  viewing: FileId | undefined
}

const COLOR = /^#[0-9a-f]{6}$/i

function readPeer(clientId: number, state: Record<string, unknown>): Peer | undefined {
  const user = state.user as { name?: unknown; color?: unknown } | undefined
  if (typeof user?.name !== 'string' || user.name.trim() === '') return undefined
  return {
    clientId,
    name: user.name.slice(0, 40),
    color: typeof user.color === 'string' && COLOR.test(user.color) ? user.color : '#475569',
    viewing: typeof state.viewing === 'string' ? (state.viewing as FileId) : undefined,
  }
}

/** Live presence of a workspace; `destroy()` when done. */
export class Presence {
  /** Everyone else, in order of arrival. */
  peers: Peer[] = $state.raw([])
  /** Others viewing each file. */
  viewers: ReadonlyMap<FileId, Peer[]> = $state.raw(new Map())
  readonly #awareness: DocAwareness
  readonly #onChange = () => this.#update()

  constructor(awareness: DocAwareness, user: User) {
    this.#awareness = awareness
    awareness.setLocalStateField('user', { name: user.name, color: user.color })
    awareness.setLocalStateField('viewing', null)
    awareness.on('change', this.#onChange)
    this.#update()
  }

  /** Tell the others which file this person is viewing (`undefined`: none). */
  setViewing(id: FileId | undefined): void {
    this.#awareness.setLocalStateField('viewing', id ?? null)
  }

  #update(): void {
    const peers: Peer[] = []
    const viewers = new Map<FileId, Peer[]>()
    for (const [clientId, state] of this.#awareness.getStates()) {
      if (clientId === this.#awareness.clientID) continue
      const peer = readPeer(clientId, state)
      if (!peer) continue
      peers.push(peer)
      if (peer.viewing !== undefined) {
        const list = viewers.get(peer.viewing) ?? []
        list.push(peer)
        viewers.set(peer.viewing, list)
      }
    }
    this.peers = peers
    this.viewers = viewers
  }

  destroy(): void {
    this.#awareness.off('change', this.#onChange)
    this.#awareness.setLocalState(null)
  }
}
