/**
 * Sign-in state: which workspace and token this tab uses.
 *
 * A link like `/#workspace=demo&token=…` (what `pnpm start` prints) signs in
 * and is then removed from the address bar, so the token does not stay in
 * the history, bookmarks or screenshots. The pair is kept in sessionStorage
 * (this tab only, gone when it closes), never in localStorage, and never
 * logged.
 */

/** A workspace and the token that opens it. */
export interface Credentials {
  workspace: string
  token: string
}

const STORAGE_KEY = 'yfs.signIn'

/** Parse `#workspace=…&token=…`; `undefined` when either is missing. */
export function parseFragment(hash: string): Credentials | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ''))
  const workspace = params.get('workspace')?.trim()
  const token = params.get('token')?.trim()
  return workspace && token ? { workspace, token } : undefined
}

/**
 * The credentials of this tab: from the URL fragment (stored, then removed
 * from the address bar) or from an earlier sign-in in this tab.
 */
export function readCredentials(): Credentials | undefined {
  const fromUrl = parseFragment(window.location.hash)
  if (fromUrl) {
    storeCredentials(fromUrl)
    const { pathname, search } = window.location
    window.history.replaceState(window.history.state, '', `${pathname}${search}`)
    return fromUrl
  }
  const stored = sessionStorage.getItem(STORAGE_KEY)
  if (!stored) return undefined
  try {
    const value = JSON.parse(stored) as Partial<Credentials>
    return typeof value.workspace === 'string' && typeof value.token === 'string'
      ? { workspace: value.workspace, token: value.token }
      : undefined
  } catch {
    // Not ours or damaged: the person signs in again.
    sessionStorage.removeItem(STORAGE_KEY)
    return undefined
  }
}

/** Remember credentials for this tab. */
export function storeCredentials(credentials: Credentials): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credentials))
}

/** Sign out of this tab. */
export function forgetCredentials(): void {
  sessionStorage.removeItem(STORAGE_KEY)
}
