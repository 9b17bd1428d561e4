/**
 * The browser's connection to the workspace: `connectWorkspace` from
 * @yfs/client on the page's own origin, with
 * - the Markdown codec (so `.md` files are rich text, as for every peer),
 *   loaded as a lazy chunk while the workspace opens,
 * - every document persisted in IndexedDB (y-indexeddb), so the app opens
 *   from this device when the server is down and keeps offline edits,
 * - presence on content docs (remote cursors in the editors),
 * - the socket following the browser's network state (closed while
 *   `navigator.onLine` is false, reconnected at once when it comes back,
 *   instead of waiting out the provider's back-off).
 *
 * Errors come back as readable messages (connectErrorMessage); the token is
 * never put into one.
 */
import { ConnectError, connectWorkspace, type PersistDoc, type WorkspaceConnection } from '@yfs/client'
import { IndexeddbPersistence } from 'y-indexeddb'
import * as Y from 'yjs'
import { pauseStoring, resumeStoring, storeWholeState } from './internals/y-indexeddb.js'
import type { Credentials } from './sign-in.js'
import { authorOf, type User } from './user.js'

/** The sync server's WebSocket URL: the page's own origin (`yfs serve` serves both). */
export function serverUrl(location: Location = window.location): string {
  return `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}`
}

/**
 * y-indexeddb for every document, one database per server and document name.
 *
 * y-indexeddb listens for the document's updates from the start, and any
 * `update` listener makes Yjs re-encode every transaction, including the one
 * that applies the stored state (which the store then ignores as its own): for
 * a 5,000-file workspace that is tens of ms of a warm start. So its listener
 * is attached once the stored state is in. A change made meanwhile (a server
 * update that arrived first) is then stored as the document's whole state.
 */
export const indexedDbPersistence: PersistDoc = (name, doc) => {
  const store = new IndexeddbPersistence(`yfs:${window.location.host}:${name}`, doc)
  pauseStoring(store, doc)
  let changedMeanwhile = false
  const watch = (tr: Y.Transaction) => {
    if (tr.origin !== store) changedMeanwhile = true
  }
  doc.on('afterTransaction', watch)
  const whenLoaded = store.whenSynced.then(() => {
    doc.off('afterTransaction', watch)
    if (resumeStoring(store, doc) && changedMeanwhile) storeWholeState(store, Y.encodeStateAsUpdate(doc))
  })
  return {
    whenLoaded,
    destroy: () => {
      doc.off('afterTransaction', watch)
      return store.destroy()
    },
    // y-indexeddb's key–value store beside the document (the client lists unacknowledged docs there).
    get: (key) => store.get(key),
    set: (key, value) => store.set(key, value as string),
  }
}

// What a token was last seen to allow, per workspace: a read token opened offline stays read-only.
const scopeKey = (workspace: string) => `yfs.readOnly.${workspace}`

/**
 * Open the workspace for `user`. Rejects with ConnectError (see
 * connectErrorMessage) when the server refuses or cannot be reached and
 * nothing is stored on this device.
 */
export async function openConnection(credentials: Credentials, user: User): Promise<WorkspaceConnection> {
  const wasReadOnly = sessionStorage.getItem(scopeKey(credentials.workspace)) === 'true'
  const conn = await connectWorkspace({
    // The Markdown codec (markdown-it, prosemirror, yaml: about 40% of the app's code) is a lazy
    // chunk that loads and runs while the workspace opens, instead of before the page starts.
    codecsLoading: import('@yfs/markdown').then((m) => [m.markdownCodec]),
    url: serverUrl(),
    workspace: credentials.workspace,
    token: credentials.token,
    persist: indexedDbPersistence,
    // A stored workspace shows at once (after the token is accepted) and syncs behind it.
    waitForSync: false,
    contentAwareness: true,
    fs: {
      author: authorOf(user),
      ...(wasReadOnly ? { readOnly: true } : {}),
    },
  })
  if (!conn.openedOffline) sessionStorage.setItem(scopeKey(credentials.workspace), String(conn.readOnly))
  return conn
}

/**
 * Close the socket while the browser is offline and reconnect as soon as it
 * is back (the provider alone would keep retrying with a back-off of up to
 * 30 s). Returns a function that stops following.
 */
export function followNetwork(conn: WorkspaceConnection): () => void {
  const offline = () => conn.socket.disconnect()
  const online = () => void conn.socket.connect()
  window.addEventListener('offline', offline)
  window.addEventListener('online', online)
  if (!navigator.onLine) offline()
  return () => {
    window.removeEventListener('offline', offline)
    window.removeEventListener('online', online)
  }
}

/** A sentence for a person about why the workspace did not open. */
export function connectErrorMessage(error: unknown, workspace: string): string {
  if (error instanceof ConnectError) {
    switch (error.reason) {
      case 'missing token':
        return 'A token is needed to open this workspace.'
      case 'invalid token':
        return 'This token is not valid (mistyped, or revoked). Ask for a new link.'
      case 'token not valid for this workspace':
        return `This token does not open the workspace “${workspace}”. Check the workspace name.`
      case 'timeout':
        return 'The server did not answer. Is `yfs serve` running? This device has no saved copy of the workspace yet.'
      default:
        return `The server refused the workspace: ${error.reason}.`
    }
  }
  return `The workspace could not be opened: ${error instanceof Error ? error.message : String(error)}`
}
