/**
 * Presence on a content doc: who this person is (awareness field `user`,
 * the `{ name, color, colorLight }` shape y-codemirror.next and
 * y-prosemirror both read) and who else is here.
 *
 * Colours come from other people's awareness states, so they are untrusted
 * strings: `safeColor` keeps `#rgb`/`#rrggbb` and maps anything else to a
 * palette colour, before a colour reaches a style.
 */
import type { DocAwareness } from '@yfs/client'

/** The person at this browser: display name and colour (`#rrggbb`). */
export interface EditorUser {
  name: string
  color: string
}

/** Someone else with this doc open. */
export interface RemoteUser {
  clientId: number
  name: string
  color: string
}

const PALETTE = ['#2563eb', '#db2777', '#059669', '#d97706', '#7c3aed', '#0891b2', '#dc2626', '#4d7c0f']
const HEX = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i

/** `color` when it is a hex colour, else a stable palette colour for `seed`. */
export function safeColor(color: unknown, seed: string | number): string {
  if (typeof color === 'string' && HEX.test(color)) return color
  let hash = 0
  for (const ch of String(seed)) hash = (hash * 31 + ch.charCodeAt(0)) | 0
  return PALETTE[Math.abs(hash) % PALETTE.length]!
}

/** Set this person's `user` field (keeps the other fields, recreates a cleared state). */
export function announceUser(awareness: DocAwareness, user: EditorUser): void {
  const color = safeColor(user.color, user.name)
  const state = awareness.getLocalState() ?? {}
  awareness.setLocalState({ ...state, user: { name: user.name, color, colorLight: `${color}33` } })
}

/** Clear this person's presence on the doc (the editor closed; the doc may stay pooled a while). */
export function leaveAwareness(awareness: DocAwareness): void {
  awareness.setLocalState(null)
}

/** Other people on the doc, with safe colours and names cut to 40 characters. */
export function remoteUsers(awareness: DocAwareness): RemoteUser[] {
  const out: RemoteUser[] = []
  for (const [clientId, state] of awareness.getStates()) {
    if (clientId === awareness.clientID) continue
    const user = (state as { user?: { name?: unknown; color?: unknown } }).user
    if (!user) continue
    const name = typeof user.name === 'string' && user.name.trim() ? user.name.slice(0, 40) : 'Anonymous'
    out.push({ clientId, name, color: safeColor(user.color, clientId) })
  }
  return out.sort((a, b) => a.name.localeCompare(b.name) || a.clientId - b.clientId)
}
