/**
 * connectWorkspace: one WebSocket to a yfs sync server and a ready
 * `YjsFileSystem` on it.
 *
 * The main doc is opened and synced first (so paths resolve at once); every
 * content doc the filesystem's pool opens gets its own HocuspocusProvider on
 * the same socket, and reads wait until that doc has synced. A content doc
 * whose row is not in the files table yet is a file this client is creating
 * (core writes content before the row), so it does not wait for the server,
 * which holds the doc open until the row arrives.
 *
 * Closing a content doc with changes the server has not acknowledged yet
 * (pool eviction while offline, say) hands its state to a short-lived copy
 * that stays connected until the server acknowledges it, so evicting never
 * drops an edit. `flush()` waits for every document to be acknowledged.
 *
 * Content docs have no awareness (presence) unless `contentAwareness` is
 * set (a browser editor showing remote cursors): y-protocols' Awareness runs
 * a timer per doc, which costs a little on every open and which agents and
 * the daemon do not need.
 *
 * Offline: with a `persist` hook (persistence.ts) every document is loaded
 * from the local store before it goes to the server, and keeps being stored.
 * When the store already holds the main doc, connecting does not need the
 * server: if the socket cannot connect (or the first sync takes longer than
 * `offlineAfterMs`) the connection opens from the local copy and syncs when
 * the server is back. With `waitForSync: false` it opens from the local copy
 * as soon as the token is accepted and syncs behind it (a warm start of the
 * web app: the stored tree shows at once). `status()` / `onStatus()` report online/offline and how
 * many documents hold changes the server has not acknowledged yet.
 *
 * Content docs with local changes the server has not acknowledged are listed
 * in the main doc's store, and the next connection re-opens them (offline
 * edits of files closed before the server came back; unacknowledged-docs.ts).
 *
 * Over 400 lines because the providers, the pool's connect hook, lingering
 * copies and flush/close share one socket's state; the parts that stand alone
 * live beside it (held-sync, provider-sync, unacknowledged-docs, bulk-channel).
 *
 * What it deliberately doesn't do: token refresh, or storing anything itself
 * (the caller brings the store, e.g. y-indexeddb in a browser).
 */
import { HocuspocusProvider, HocuspocusProviderWebsocket, WebSocketStatus } from '@hocuspocus/provider'
import {
  asFileId,
  type ContentCodec,
  type CreateFileSystemOptions,
  captureHostContext,
  createFileSystem,
  docIsEmpty,
  FsError,
  flushQueuedActivity,
  isFsError,
  type YjsFileSystem,
} from '@yfs/core'
import { contentDocName, mainDocName } from '@yfs/protocol'
import * as Y from 'yjs'
import { createBulkChannel } from './bulk-channel.js'
import { watchClosingDocs } from './closing-docs.js'
import { ConnectError } from './connect-error.js'
import { holdSync } from './held-sync.js'
import { createHeldUpdates } from './held-updates.js'
import { forgetProvider } from './internals/hocuspocus-provider.js'
import type { DocPersistence, PersistDoc } from './persistence.js'
import {
  whenAcceptedOrOffline,
  whenAcknowledged,
  whenSynced,
  whenSyncedOrOffline,
  withTimeout,
} from './provider-sync.js'
import { createSearchChannel, SEARCH_TIMEOUT_MS, type SearchChannel } from './search-channel.js'
import { loadUnacknowledgedDocs, type UnacknowledgedDocs, watchLocalChanges } from './unacknowledged-docs.js'

export interface ConnectWorkspaceOptions {
  /** Server WebSocket URL, e.g. `ws://127.0.0.1:4321`. */
  url: string
  workspace: string
  token: string
  /** WebSocket class; default the global one, else the `ws` package (Node 20). */
  WebSocket?: unknown
  /** How long to wait for a document's first sync (ms). Default 10 s. */
  timeoutMs?: number
  /** Filesystem options (limits, author, codecs, pool tuning). */
  fs?: Omit<CreateFileSystemOptions, 'doc' | 'connect'>
  /**
   * Codecs still loading (a lazily loaded chunk in a browser): they load while
   * the main doc opens, and the filesystem is created with them (before
   * `fs.codecs`) once both are ready. Rejects the connection if they fail.
   */
  codecsLoading?: Promise<readonly ContentCodec[]>
  /** Give every content doc an awareness (remote cursors in editors); see `awarenessOf`. Default `false`. */
  contentAwareness?: boolean
  /** Local store for every document (offline use); see persistence.ts. */
  persist?: PersistDoc
  /**
   * With `persist` and a stored main doc: open from the local copy when the
   * server has not synced the main doc within this many ms (at once when the
   * socket fails to connect). Default 3 s.
   */
  offlineAfterMs?: number
  /**
   * With `persist` and a stored main doc: `false` opens as soon as the stored
   * copy is loaded and the server has accepted the token (or is unreachable),
   * and syncs the main doc behind it; the server's changes then arrive as live
   * updates. Default `true`: wait for the main doc's sync first, so the first
   * reads see the server's state (what agents and scripts want; a person's
   * view follows live changes, so the web app passes `false`).
   */
  waitForSync?: boolean
}

/** Connection state for a status bar. */
export interface ConnectionStatus {
  /** The socket is connected to the server. */
  online: boolean
  /** Documents (main and content) with local changes the server has not acknowledged yet. */
  unacknowledged: number
}

/** Presence state of one document (y-protocols' Awareness, as the provider holds it). */
export type DocAwareness = NonNullable<HocuspocusProvider['awareness']>

export interface WorkspaceConnection {
  readonly fs: YjsFileSystem
  readonly workspace: string
  /** `true` for a read token: local writes are never stored by the server. */
  readonly readOnly: boolean
  /** The shared socket. */
  readonly socket: HocuspocusProviderWebsocket
  /** The main doc's provider. */
  readonly main: HocuspocusProvider
  /** Number of content docs currently connected. */
  readonly openDocuments: number
  /**
   * The awareness of a connected doc: the main doc, or a content doc the pool
   * has open (hold a `fs.pool.acquire` handle while using it). `undefined`
   * for a doc that is not connected, and for content docs unless the
   * connection was made with `contentAwareness: true`.
   */
  awarenessOf(doc: Y.Doc): DocAwareness | undefined
  /** `true` when the connection opened from the local store because the server was unreachable. */
  readonly openedOffline: boolean
  /**
   * Search answered by the server's index (PostgreSQL deployments), or by this filesystem's
   * in-process index when the server has none (SQLite). The server searches what it has
   * stored: `flush()` first to include this client's unacknowledged changes.
   * @example
   * const { hits } = await ws.searcher.search({ query: 'TODO', include: ['*.md'] })
   */
  readonly searcher: SearchChannel
  /** Online/offline and the number of unacknowledged documents, now. */
  status(): ConnectionStatus
  /** Call `fn` whenever `status()` may have changed; returns an unsubscribe. */
  onStatus(fn: (status: ConnectionStatus) => void): () => void
  /** Resolves once the server has acknowledged every local change (main doc and content docs). */
  flush(timeoutMs?: number): Promise<void>
  /** Flush (best effort, at most `flushTimeoutMs`, default 5 s), then close every provider and the socket, and destroy the filesystem. */
  close(flushTimeoutMs?: number): Promise<void>
}

async function defaultWebSocket(): Promise<unknown> {
  if (typeof globalThis.WebSocket === 'function') return globalThis.WebSocket
  const { WebSocket } = await import('ws')
  // The provider closes sockets that are still connecting (destroy, retries); `ws` then emits
  // 'error', which would be an uncaught exception without a listener. The provider sees the close.
  return class QuietWebSocket extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args)
      this.on('error', () => undefined)
    }
  }
}

/**
 * Connect to `workspace` on the server at `url` with `token`. Rejects with
 * ConnectError (`reason` from the server, or `timeout`) when the main doc
 * cannot be opened.
 *
 * @example
 * const ws = await connectWorkspace({ url: 'ws://127.0.0.1:4321', workspace: 'demo', token })
 * await ws.fs.writeFile('/notes.md', '# hi')
 * await ws.flush()
 * await ws.close()
 */
export async function connectWorkspace(options: ConnectWorkspaceOptions): Promise<WorkspaceConnection> {
  mark('yfs:connect-start')
  // Settled into a value at once: a loader that fails early must not be an unhandled rejection.
  const codecsLoaded = options.codecsLoading?.then(
    (codecs) => ({ codecs }),
    (error: unknown) => ({ error }),
  )
  const timeoutMs = options.timeoutMs ?? 10_000
  const host = captureHostContext()
  const socket = new HocuspocusProviderWebsocket({
    url: options.url,
    WebSocketPolyfill: options.WebSocket ?? (await defaultWebSocket()),
  })
  const providers = new Set<HocuspocusProvider>()
  // Open content docs' changes during a write batch, sent as one update per doc (held-updates.ts).
  const heldUpdates = createHeldUpdates(host)
  const closing = watchClosingDocs(socket)
  // Documents the server refused (and why), until it accepts them: flush() fails at once for them.
  const refusals = new WeakMap<HocuspocusProvider, ConnectError>()
  const byDoc = new WeakMap<Y.Doc, HocuspocusProvider>()
  const lingering = new Set<Promise<void>>()
  // Lingering copies by document name. A socket routes messages by name, so a re-open of the doc
  // takes its copy's state over and closes the copy instead of attaching a second provider.
  const heirs = new Map<string, { copy: Y.Doc; takeOver: () => Uint8Array }>()
  // Content docs re-opened for changes an earlier connection left unacknowledged (counted once, as lingering).
  const resuming = new WeakSet<Y.Doc>()
  // With a store: ids of content docs whose changes the server has not acknowledged (unacknowledged-docs.ts).
  let unacked: UnacknowledgedDocs | undefined
  const statusListeners = new Set<(status: ConnectionStatus) => void>()
  const status = (): ConnectionStatus => {
    let unacknowledged = lingering.size
    for (const p of providers) if (p.unsyncedChanges > 0 && !resuming.has(p.document)) unacknowledged++
    return { online: socket.status === WebSocketStatus.Connected, unacknowledged }
  }
  const notify = () => {
    if (statusListeners.size === 0) return
    const now = status()
    for (const fn of [...statusListeners]) fn(now)
  }
  socket.on('status', notify)

  // Content docs get awareness only on request (see the header); provider code runs in the host
  // context (@yfs/core's host-context.ts), so the Awareness timer is allowed even when a script opens the doc.
  const open = (name: string, doc: Y.Doc, awareness = false): HocuspocusProvider => {
    const provider = new HocuspocusProvider({
      websocketProvider: socket,
      name,
      document: doc,
      token: options.token,
      ...(awareness ? {} : { awareness: null }),
    })
    provider.on('unsyncedChanges', notify)
    provider.on('authenticationFailed', ({ reason }: { reason: string }) =>
      refusals.set(provider, new ConnectError(reason, name)),
    )
    provider.on('authenticated', () => refusals.delete(provider))
    provider.attach()
    providers.add(provider)
    byDoc.set(doc, provider)
    return provider
  }
  const drop = (provider: HocuspocusProvider) => {
    if (!providers.delete(provider)) return
    heldUpdates.release(provider)
    // Offline, the provider's CLOSE would wait in the socket's queue and reach the server after the
    // reconnect, closing whichever connection of that name exists then; the new socket has none to close.
    if (socket.status !== WebSocketStatus.Connected) forgetProvider(socket, provider)
    if (byDoc.get(provider.document) === provider) byDoc.delete(provider.document)
    provider.off('unsyncedChanges', notify)
    provider.destroy()
    notify()
  }

  /**
   * Close a content doc's provider so that the name can be opened again on this socket
   * (closing-docs.ts): the re-open waits for the server's answer to the CLOSE. A provider whose
   * token the server has not answered yet closes once it has; a CLOSE sent before it would stay
   * queued on the server and close the next connection of that name instead.
   */
  const retire = (provider: HocuspocusProvider) => {
    const name = provider.configuration.name
    if (socket.status !== WebSocketStatus.Connected || refusals.has(provider)) return drop(provider)
    closing.add(name)
    if (provider.isAuthenticated) return drop(provider)
    const finish = () => {
      clearTimeout(timer)
      provider.off('authenticated', finish)
      provider.off('authenticationFailed', refused)
      drop(provider)
    }
    const refused = () => {
      finish()
      closing.settle(name)
    }
    const timer = setTimeout(refused, 2_000)
    provider.on('authenticated', finish)
    provider.on('authenticationFailed', refused)
  }

  /**
   * Disconnect a content doc; unacknowledged changes go to a copy that stays connected until the
   * server has them. A re-open of the doc meanwhile takes the copy over (one provider per name).
   */
  const close = (provider: HocuspocusProvider, doc: Y.Doc, watched: boolean) => {
    // Held changes are sent first, so they count as unacknowledged below.
    heldUpdates.release(provider)
    const acknowledged =
      (provider.unsyncedChanges === 0 && provider.isSynced) ||
      // An empty doc (one that could not open offline, say) has nothing for the server.
      docIsEmpty(doc) ||
      // Opened from the store and never synced, but not changed here either (every local
      // change lists the doc, unacknowledged-docs.ts): the store and the server have it all.
      (watched && unacked?.has(doc.guid) === false)
    retire(provider)
    if (acknowledged) return
    const name = provider.configuration.name
    const copy = new Y.Doc({ guid: doc.guid, gc: false })
    Y.applyUpdate(copy, Y.encodeStateAsUpdate(doc))
    let heir: HocuspocusProvider | undefined
    let over = false
    const finish = () => {
      if (over) return
      over = true
      if (heirs.get(name)?.copy === copy) heirs.delete(name)
      lingering.delete(done)
      if (heir) retire(heir)
      copy.destroy()
      notify()
    }
    const done: Promise<void> = (async () => {
      await closing.until(name)
      if (over) return
      heir = open(name, copy)
      await whenAcknowledged(heir, DAY_MS)
      unacked?.delete(doc.guid)
    })()
      .catch(() => undefined)
      .then(finish)
    heirs.set(name, {
      copy,
      takeOver: () => {
        const state = Y.encodeStateAsUpdate(copy)
        finish()
        return state
      },
    })
    lingering.add(done)
  }

  const mainDoc = new Y.Doc()
  const mainName = mainDocName(options.workspace)
  mark('yfs:store-open')
  const mainStore = options.persist?.(mainName, mainDoc)
  const unackedLoading = loadUnacknowledgedDocs(mainStore)
  // Attached before the local copy has loaded, so the token check overlaps the load (held-sync.ts).
  const main = open(mainName, mainDoc, true)
  main.on('authenticated', () => mark('yfs:main-accepted'))
  const releaseSync = mainStore ? holdSync(main) : undefined
  let openedOffline = false
  let lateCodecs: readonly ContentCodec[] = []
  try {
    if (mainStore) {
      try {
        await mainStore.whenLoaded
      } finally {
        releaseSync?.()
      }
      mark('yfs:stored-main-loaded')
      // Refused while the copy loaded: the waits below would not see the event again.
      const refused = refusals.get(main)
      if (refused) throw refused
    }
    // The store had this workspace: the server is not needed to open it.
    const stored = mainStore !== undefined && !docIsEmpty(mainDoc)
    const offlineAfterMs = options.offlineAfterMs ?? 3_000
    if (stored && options.waitForSync === false)
      openedOffline = !(await whenAcceptedOrOffline(main, socket, offlineAfterMs))
    else if (stored) openedOffline = !(await whenSyncedOrOffline(main, socket, offlineAfterMs))
    else await whenSynced(main, timeoutMs)
    mark(main.isSynced ? 'yfs:main-synced' : 'yfs:main-opened-from-store')
    const loaded = await codecsLoaded
    if (loaded && 'error' in loaded) throw loaded.error
    lateCodecs = loaded?.codecs ?? []
    unacked = await unackedLoading
  } catch (error) {
    drop(main)
    socket.destroy()
    await mainStore?.destroy()
    throw error
  }
  const stores = new Set<DocPersistence>(mainStore ? [mainStore] : [])

  let fs: YjsFileSystem | undefined
  // Many content docs per round trip on the main doc's connection (server: extensions/bulk-content.ts).
  const bulk = createBulkChannel(main, { timeoutMs })
  fs = createFileSystem({
    ...options.fs,
    codecs: [...lateCodecs, ...(options.fs?.codecs ?? [])],
    // `fs: { loadContent: undefined }` opts out (each doc then opens on its own; benchmarks compare both).
    // With heads (`since`): a doc still at the head of the state the filesystem holds comes back empty.
    loadContent:
      options.fs && 'loadContent' in options.fs
        ? options.fs.loadContent
        : (ids, since) => (since ? bulk.loadSince(ids, since) : bulk.load(ids)),
    // A read token stores nothing; writeTree then fails with EACCES before any content is sent.
    storeContent: (docs) => bulk.store(docs),
    // Overwrites of files whose docs are not open, in bulk (`fs: { updateContent: undefined }` opts out).
    updateContent:
      options.fs && 'updateContent' in options.fs ? options.fs.updateContent : (docs) => bulk.update(docs),
    // A write outside a batch goes to the bulk store only online and without a local copy: offline,
    // or with one, it opens its doc, whose provider (and store) keep it until the server has it.
    bulkStoreReady: () => !options.persist && socket.status === WebSocketStatus.Connected,
    holdContentUpdates: () => heldUpdates.hold(),
    online: () => socket.status === WebSocketStatus.Connected,
    // A read token: fail writes at once (EACCES) instead of leaving them unacknowledged forever.
    readOnly: options.fs?.readOnly ?? main.authorizedScope === 'readonly',
    doc: mainDoc,
    // Core runs this hook, and its connection's `destroy`, in the host context: the pool calls
    // them from inside just-bash scripts (@yfs/core's host-context.ts).
    connect: (doc) => {
      const name = contentDocName(options.workspace, doc.guid)
      const store = options.persist?.(name, doc)
      if (store) stores.add(store)
      const known = fs?.table.has(asFileId(doc.guid)) ?? true
      let attached: { provider: HocuspocusProvider; stopWatching?: () => void } | undefined
      let destroyed = false
      // A lingering copy of this doc: take its state over (it closes; the re-open waits for that).
      const heir = heirs.get(name)
      if (heir) Y.applyUpdate(doc, heir.takeOver())
      const attach = (): HocuspocusProvider | undefined => {
        if (destroyed) return undefined
        const provider = open(name, doc, options.contentAwareness)
        // As for the main doc: the stored copy is not sent back, nor the server asked for all of it.
        // Held in write batches once the local copy has loaded (until then held-sync holds all).
        if (store) {
          const release = holdSync(provider)
          store.whenLoaded.then(() => {
            release()
            if (providers.has(provider)) heldUpdates.attach(provider)
          }, release)
        } else heldUpdates.attach(provider)
        const stopWatching =
          store && unacked && !fs?.readOnly ? watchLocalChanges(unacked, doc, provider, store) : undefined
        attached = { provider, stopWatching }
        return provider
      }
      const whenProviderSynced = async (provider: HocuspocusProvider | undefined) => {
        if (!provider || !known) return
        // With a local store a read needs the server only while it is reachable.
        if (!store) return whenSynced(provider, timeoutMs)
        await store.whenLoaded
        if (socket.status === WebSocketStatus.Connected)
          await whenSyncedOrOffline(provider, socket, timeoutMs)
        // Offline, and this device never had the file's content: not empty text (which a write
        // would later merge into the server's), but an error saying so.
        if (!provider.isSynced && docIsEmpty(doc)) {
          const id = asFileId(doc.guid)
          const row = fs?.table.get(id)
          if (row !== undefined && row.size > 0)
            throw new FsError('EIO', 'open', fs?.index.pathOf(id) ?? row.name, undefined, NOT_ON_DEVICE)
        }
      }
      // Closed a moment ago: attach once the server has let the old connection go (closing-docs.ts).
      const previous = closing.until(name)
      const synced = previous
        ? previous.then(async () => whenProviderSynced(attach()))
        : whenProviderSynced(attach())
      return {
        whenSynced: synced,
        // A closed doc with changes the server has not acknowledged stays connected here until
        // it has (closing-docs.ts, the heirs above): the pool need not keep it.
        keepsChanges: true,
        destroy: () => {
          destroyed = true
          if (attached) {
            attached.stopWatching?.()
            close(attached.provider, doc, attached.stopWatching !== undefined)
          }
          if (store) {
            stores.delete(store)
            void store.destroy()
          }
        },
      }
    },
  })

  // Searches on the main doc's connection (server: extensions/search.ts), or in process.
  // A first search on a big workspace may wait for the server to index it: more time than a connect.
  const searcher = createSearchChannel(main, fs, Math.max(timeoutMs, SEARCH_TIMEOUT_MS))
  const connection: WorkspaceConnection = {
    fs,
    workspace: options.workspace,
    readOnly: fs.readOnly,
    socket,
    main,
    openedOffline,
    searcher,
    get openDocuments() {
      return providers.size - 1
    },
    awarenessOf(doc) {
      const provider = byDoc.get(doc)
      return provider && providers.has(provider) ? (provider.awareness ?? undefined) : undefined
    },
    status,
    onStatus(fn) {
      statusListeners.add(fn)
      return () => statusListeners.delete(fn)
    },
    async flush(flushTimeoutMs = timeoutMs) {
      const deadline = Date.now() + flushTimeoutMs
      // Activity entries queued for the end of this turn are changes made so far too.
      if (fs) flushQueuedActivity(fs.doc)
      // As are open docs' changes held in a batch still open.
      heldUpdates.send()
      // New files' content on its way to the bulk store, and the rows that wait for it.
      if (fs) await withTimeout(fs.storePending(), Math.max(1, deadline - Date.now()), 'flush timeout')
      // Providers come and go while we wait: loop until one pass finds all acknowledged.
      for (;;) {
        const pending = [...providers].filter((p) => !(p.isSynced && p.unsyncedChanges === 0))
        if (pending.length === 0 && lingering.size === 0) return
        // A refused document never gets acknowledged: say why now instead of waiting out the timeout.
        for (const p of pending) {
          const refusal = refusals.get(p)
          if (refusal) throw refusal
        }
        const left = Math.max(1, deadline - Date.now())
        await Promise.all([
          // A provider closed meanwhile (evicted: its changes moved to a lingering copy) is re-checked next pass.
          ...pending.map((p) => whenAcknowledged(p, left).catch(ignoreClosed)),
          ...[...lingering].map((l) => withTimeout(l, left, 'flush timeout')),
        ])
      }
    },
    async close(flushTimeoutMs = Math.min(timeoutMs, 5_000)) {
      // Queued activity entries go in through flush() below, or fs.destroy() without a flush.
      // Best effort: a server that is gone must not keep close() from finishing.
      if (flushTimeoutMs > 0) await connection.flush(flushTimeoutMs).catch(() => undefined)
      fs?.destroy()
      fs = undefined
      // Lingering copies end here too (those the pool's close just made included): one whose
      // re-open still waits for the server's answer to a CLOSE would otherwise open a provider
      // after this close and wait a day for its acknowledgement, holding the process open.
      for (const heir of [...heirs.values()]) heir.takeOver()
      bulk.destroy()
      searcher.destroy()
      statusListeners.clear()
      for (const provider of [...providers]) drop(provider)
      heldUpdates.destroy()
      socket.off('status', notify)
      closing.destroy()
      socket.destroy()
      await unacked?.close()
      await Promise.all([...stores].map((s) => s.destroy()))
      stores.clear()
    },
  }

  /** Re-open content doc `id` until the server has acknowledged it, then let the pool close it. */
  const resume = (files: YjsFileSystem, id: string) => {
    const done: Promise<void> = (async () => {
      const handle = await files.pool.acquire(asFileId(id))
      resuming.add(handle.doc)
      try {
        const provider = byDoc.get(handle.doc)
        if (provider) await whenAcknowledged(provider, DAY_MS)
        unacked?.delete(id)
      } finally {
        resuming.delete(handle.doc)
        handle.release()
      }
    })()
      .catch((error: unknown) => {
        // Refused for good (the file is gone, say): nothing is left to send.
        if (error instanceof ConnectError && error.reason !== 'timeout' && error.reason !== 'closed')
          unacked?.delete(id)
      })
      .then(() => {
        lingering.delete(done)
        notify()
      })
    lingering.add(done)
  }
  // Offline edits of files an earlier connection closed before the server was back: send them now.
  if (unacked && !fs.readOnly) for (const id of unacked.ids()) resume(fs, id)
  return connection
}

const DAY_MS = 24 * 60 * 60 * 1000

/** The EIO description of a file whose content this device does not have while offline. */
export const NOT_ON_DEVICE = 'not available offline: this device has no copy of the file yet'

/** True for the error of opening, offline, a file whose content this device does not have. */
export function isNotOnDevice(error: unknown): boolean {
  return isFsError(error, 'EIO') && error.message.includes(NOT_ON_DEVICE)
}

function ignoreClosed(error: unknown): void {
  if (!(error instanceof ConnectError && error.reason === 'closed')) throw error
}

/** A User Timing mark (browsers' performance panel, the web app's benchmarks); no-op where unsupported. */
function mark(name: string): void {
  globalThis.performance?.mark?.(name)
}
