/**
 * ContentDocPool: the per-file content `Y.Doc`s, opened lazily and shared.
 *
 * Each file's content lives in its own `Y.Doc` whose guid is the file id
 * (`gc: false`, so snapshots can rebuild any earlier version). Readers and
 * editors `acquire` a handle, use `handle.doc`, and `release` it (or let
 * `using` do it). A doc with no holders stays warm for `idleMs` and is
 * evicted at the next release after that; at most `maxIdle` idle docs are kept.
 *
 * Where the content comes from is the caller's `connect` hook, called once
 * for every doc the pool opens: a provider for a server, IndexedDB in a
 * browser, nothing in memory. `acquire` resolves after `whenSynced`, so a
 * read never sees a half-loaded doc.
 *
 * With `connect`, a doc evicted before its first sync finished (a new file's doc, whose provider
 * may wait for the file's row) stays connected until that sync settles: destroying it would drop
 * content no one else has, since a plain provider (y-websocket) acknowledges nothing. A re-open
 * takes its state over and ends it (one connection per doc); so do forgetting the file (emptied
 * from the trash) and the pool's `destroy`. A connection that `keepsChanges` itself is ended at
 * eviction as any other.
 *
 * Without `connect` the pool is the only copy of the content, so eviction
 * keeps the doc's encoded state (`Y.encodeStateAsUpdate`) and reopening
 * applies it: memory mode never loses content. In that mode a new file's
 * content can also be `seed`ed: the pool keeps a seed that builds the
 * doc and runs it when the doc is first opened, so writing many new files
 * creates no `Y.Doc` until one is read as a doc (history, an editor, an
 * overwrite). A seeded doc is built exactly once, by this pool; until then a
 * text seed's text can be read without building it (`seedOf`).
 */
import * as Y from 'yjs'
import type { HostRunner } from '../host-context.js'
import { outsideScripts } from '../host-timers.js'
import type { FileId } from '../ids.js'
import { docIsEmpty } from '../internals/yjs.js'

export interface ContentConnection {
  whenSynced?: Promise<unknown>
  destroy(): void
  /**
   * True when the connection keeps the changes its server has not acknowledged past `destroy`
   * (as @yfs/client does): the pool then ends it at eviction even before its first sync.
   */
  keepsChanges?: boolean
}

/** Provider hook: attach `doc` to its source of truth. */
export type ConnectContentDoc = (doc: Y.Doc) => ContentConnection

export interface ContentDocHandle {
  readonly id: FileId
  readonly doc: Y.Doc
  /** Give the doc back; calling it twice is a no-op. */
  release(): void
  [Symbol.dispose](): void
}

/** A new file's content in memory mode, built into its doc when the doc is first opened. */
export interface ContentSeed {
  /** Write the content (and whatever goes with it, e.g. a first version) into the empty doc; runs once. */
  build(doc: Y.Doc): void
  /** The doc's text once built, when it is text: readers can have it without building the doc. */
  readonly text?: string
  /** Id of the codec `text` is written with: a reader of another codec must build the doc (and convert). */
  readonly codecId?: string
}

export interface ContentDocPoolOptions {
  connect?: ConnectContentDoc
  /** How long an unused doc stays loaded (ms). Default 30 s (`IDLE_MS`). */
  idleMs?: number
  /** How many unused docs stay loaded at most. Default 512 (`MAX_IDLE`). */
  maxIdle?: number
  /**
   * Before a doc that is not loaded is opened: a promise to wait for first (a new file whose
   * content is still being stored, write-batch.ts), or `undefined`.
   */
  beforeOpen?: (id: FileId) => Promise<void> | undefined
  /**
   * The whole state of a doc that is not loaded, when the caller knows it (this instance stored
   * it and nothing newer was announced since): the doc opens from it and is handed out at once,
   * its sync going on behind, as it would had it stayed loaded. `undefined`: open as usual.
   */
  knownState?: (id: FileId) => Uint8Array | undefined
  /** Called once after a doc is opened and synced, before any holder sees it. */
  onOpen?: (id: FileId, doc: Y.Doc) => void
  /** Called when a doc is evicted (before it is destroyed). */
  onClose?: (id: FileId, doc: Y.Doc) => void
  /** Memory mode: shrink a doc's encoded state before keeping it (e.g. `compactContentState`). */
  compact?: (state: Uint8Array, id: FileId) => Uint8Array
}

interface Slot {
  doc: Y.Doc
  ready: Promise<void>
  connection: ContentConnection | undefined
  refs: number
  idleSince: number
  /** The connection's first sync settled (or there is none to wait for). */
  synced: boolean
}

/** Defaults of `idleMs` and `maxIdle`. */
const IDLE_MS = 30_000
const MAX_IDLE = 512

export class ContentDocPool {
  readonly #slots = new Map<FileId, Slot>()
  readonly #idle = new Set<FileId>() // insertion order = eviction order
  readonly #dormant = new Map<FileId, Uint8Array>()
  readonly #seeds = new Map<FileId, ContentSeed>()
  // Evicted before their first sync settled: still connected, until it does (see the module comment).
  readonly #lingering = new Map<FileId, Slot>()
  readonly #options: ContentDocPoolOptions

  constructor(options: ContentDocPoolOptions = {}) {
    this.#options = options
  }

  /**
   * Open (or share) the content doc of `id`; resolves once it is synced. `fresh`: the file is
   * being created by this instance, so a newly opened doc is handed out at once (its sync goes on).
   */
  async acquire(id: FileId, options: { fresh?: boolean } = {}): Promise<ContentDocHandle> {
    if (!this.#slots.has(id)) {
      const before = this.#options.beforeOpen?.(id)
      if (before) await before
    }
    let slot = this.#slots.get(id)
    if (!slot) slot = this.#open(id, options.fresh === true)
    slot.refs++
    this.#idle.delete(id)
    try {
      await slot.ready
    } catch (error) {
      // A doc that failed to open (offline, refused, timed out) and holds nothing is dropped,
      // so the next acquire tries again instead of repeating the same failure until eviction.
      if (this.#slots.get(id) === slot && slot.refs === 1 && docIsEmpty(slot.doc)) {
        this.#slots.delete(id)
        this.#idle.delete(id)
        slot.connection?.destroy()
        slot.doc.destroy()
      } else this.#unref(id, slot)
      throw error
    }
    let released = false
    const release = () => {
      if (released) return
      released = true
      this.#unref(id, slot)
    }
    return { id, doc: slot.doc, release, [Symbol.dispose]: release }
  }

  /** True when a released doc stays loaded for a while (`maxIdle` and `idleMs` above 0). */
  get keepsIdle(): boolean {
    return (this.#options.maxIdle ?? MAX_IDLE) > 0 && (this.#options.idleMs ?? IDLE_MS) > 0
  }

  /**
   * The loaded doc of `id`, without taking a reference; `undefined` when not loaded.
   * A seeded doc counts as loaded: peeking builds it (and leaves it idle).
   */
  peek(id: FileId): Y.Doc | undefined {
    const slot = this.#slots.get(id)
    if (slot || !this.#seeds.has(id)) return slot?.doc
    const opened = this.#open(id)
    opened.refs++
    this.#unref(id, opened)
    return opened.doc
  }

  /**
   * Memory mode only: `seed.build` makes the content of a doc that was never opened;
   * it runs when the doc is first opened (or encoded). Throws TypeError with a
   * `connect` hook (a provider must get the content now) or when `id` already
   * has content here.
   */
  seed(id: FileId, seed: ContentSeed): void {
    if (this.#options.connect) throw new TypeError('ContentDocPool.seed needs memory mode (no connect hook)')
    if (this.#slots.has(id) || this.#dormant.has(id) || this.#seeds.has(id))
      throw new TypeError(`ContentDocPool.seed: ${id} already has content`)
    this.#seeds.set(id, seed)
  }

  /** Replace the seed of a doc nobody opened yet (a new file written again before anyone read its doc). */
  replaceSeed(id: FileId, seed: ContentSeed): void {
    if (!this.#seeds.has(id)) throw new TypeError(`ContentDocPool.replaceSeed: ${id} has no seed`)
    this.#seeds.set(id, seed)
  }

  /** The seed of a doc nobody opened yet (read its `text` without building the doc); `undefined` otherwise. */
  seedOf(id: FileId): ContentSeed | undefined {
    return this.#seeds.get(id)
  }

  /** True when `id` has a seed that no one opened yet. */
  isSeeded(id: FileId): boolean {
    return this.#seeds.has(id)
  }

  /** Ids of the loaded docs. */
  loaded(): IterableIterator<FileId> {
    return this.#slots.keys()
  }

  /** Number of holders of `id` (0 when idle or not loaded). */
  refCount(id: FileId): number {
    return this.#slots.get(id)?.refs ?? 0
  }

  /** Evict idle docs older than `idleMs` (all idle docs with `force`). */
  evictIdle(force = false): void {
    const idleMs = this.#options.idleMs ?? IDLE_MS
    const now = Date.now()
    for (const id of [...this.#idle]) {
      const slot = this.#slots.get(id)
      if (slot && (force || now - slot.idleSince >= idleMs)) this.#evict(id, slot)
    }
  }

  /** Forget a file for good (emptied from the trash): evict it and drop its dormant state. */
  forget(id: FileId): void {
    const slot = this.#slots.get(id)
    // Gone for good: a copy that never synced will not (the file has no row to wait for).
    if (slot && slot.refs === 0) this.#evict(id, slot, false)
    this.#endLingering(id)
    this.#dormant.delete(id)
    this.#seeds.delete(id)
  }

  /** Encoded state of a file's content doc, loaded or dormant; `undefined` if never opened here. */
  encodeState(id: FileId): Uint8Array | undefined {
    const slot = this.#slots.get(id)
    if (slot) return Y.encodeStateAsUpdate(slot.doc)
    const seed = this.#seeds.get(id)
    if (seed) {
      // Built once, kept as the dormant state: a second encode must give the same bytes.
      this.#seeds.delete(id)
      const doc = new Y.Doc({ guid: id, gc: false })
      seed.build(doc)
      this.#dormant.set(id, Y.encodeStateAsUpdate(doc))
      doc.destroy()
    }
    return this.#dormant.get(id)
  }

  destroy(): void {
    for (const [id, slot] of this.#slots) this.#close(id, slot, false)
    for (const id of [...this.#lingering.keys()]) this.#endLingering(id)
    this.#slots.clear()
    this.#idle.clear()
  }

  #open(id: FileId, fresh = false): Slot {
    const doc = new Y.Doc({ guid: id, gc: false })
    const dormant = this.#dormant.get(id)
    if (dormant) {
      Y.applyUpdate(doc, dormant)
      this.#dormant.delete(id)
    }
    const seed = this.#seeds.get(id)
    if (seed) {
      this.#seeds.delete(id)
      seed.build(doc)
    }
    const known = this.#options.connect ? this.#options.knownState?.(id) : undefined
    if (known) {
      Y.applyUpdate(doc, known)
      fresh = true
    }
    // A copy evicted before its sync: its state may be the only one yet, so it is this doc's
    // (and, like a known state, handed out at once: its sync may wait for a row still held);
    // this doc's connection takes over from its own.
    const lingering = this.#lingering.get(id)
    if (lingering) {
      Y.applyUpdate(doc, Y.encodeStateAsUpdate(lingering.doc))
      this.#endLingering(id)
      fresh = true
    }
    const connection = this.#options.connect?.(doc)
    let ready: Promise<void>
    if (connection?.whenSynced === undefined || fresh) {
      // Nothing to wait for: open at once, so `peek` can hand out a ready doc. A doc this instance
      // creates has no remote state, and its provider's first sync may wait for the file's row,
      // which comes after the content (a server checks that a content doc belongs to a file):
      // waiting would deadlock. Its updates go out as the provider syncs.
      connection?.whenSynced?.catch(() => undefined)
      this.#options.onOpen?.(id, doc)
      ready = Promise.resolve()
    } else ready = connection.whenSynced.then(() => this.#options.onOpen?.(id, doc))
    const whenSynced = connection?.whenSynced
    const slot: Slot = { doc, connection, refs: 0, idleSince: 0, ready, synced: whenSynced === undefined }
    const settled = () => {
      slot.synced = true
    }
    // Outside any script: the sync may settle after the script that opened the doc has ended.
    outsideScripts(() => whenSynced?.then(settled, settled))
    this.#slots.set(id, slot)
    return slot
  }

  #unref(id: FileId, slot: Slot): void {
    if (this.#slots.get(id) !== slot || --slot.refs > 0) return
    slot.idleSince = Date.now()
    this.#idle.add(id)
    const maxIdle = this.#options.maxIdle ?? MAX_IDLE
    if (this.#idle.size > maxIdle) {
      const oldest = this.#idle.values().next().value as FileId
      const victim = this.#slots.get(oldest)
      if (victim) this.#evict(oldest, victim)
    }
    this.#evictExpired(slot.idleSince)
  }

  // Idle docs are in release order, so expired ones are at the head: O(1) amortised.
  // No timers: just-bash forbids setInterval while a script runs, and an idle
  // pool has nothing to free anyway. Hosts may call evictIdle() on a schedule.
  #evictExpired(now: number): void {
    const idleMs = this.#options.idleMs ?? IDLE_MS
    for (const id of this.#idle) {
      const slot = this.#slots.get(id)
      if (!slot || now - slot.idleSince < idleMs) break
      this.#evict(id, slot)
    }
  }

  #evict(id: FileId, slot: Slot, linger = true): void {
    this.#idle.delete(id)
    this.#slots.delete(id)
    if (!this.#options.connect) {
      const state = Y.encodeStateAsUpdate(slot.doc)
      this.#dormant.set(id, this.#options.compact ? this.#options.compact(state, id) : state)
    }
    this.#close(id, slot, linger)
  }

  /** End the copy of `id` kept connected after its eviction, if there is one. */
  #endLingering(id: FileId): void {
    const lingering = this.#lingering.get(id)
    if (!lingering) return
    this.#lingering.delete(id)
    lingering.connection?.destroy()
    lingering.doc.destroy()
  }

  #close(id: FileId, slot: Slot, linger = true): void {
    this.#options.onClose?.(id, slot.doc)
    const { connection, doc } = slot
    if (!linger || slot.synced || connection?.whenSynced === undefined || connection.keepsChanges) {
      connection?.destroy()
      doc.destroy()
      return
    }
    this.#lingering.set(id, slot)
    const whenSynced = connection.whenSynced
    const done = () => {
      if (this.#lingering.get(id) === slot) this.#lingering.delete(id)
      // Destroyed meanwhile with the pool.
      if (doc.isDestroyed) return
      connection.destroy()
      doc.destroy()
    }
    outsideScripts(() => whenSynced.then(done, done))
  }
}

/** A `connect` hook whose provider is made and destroyed through `host` (the connection as it is otherwise). */
export function hostedConnect(host: HostRunner, connect: ConnectContentDoc): ConnectContentDoc {
  return (doc) => {
    const connection = host(() => connect(doc))
    return { ...connection, destroy: () => host(() => connection.destroy()) }
  }
}
