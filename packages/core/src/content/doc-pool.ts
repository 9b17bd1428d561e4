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
 * Without `connect` the pool is the only copy of the content, so eviction
 * keeps the doc's encoded state (`Y.encodeStateAsUpdate`) and reopening
 * applies it: memory mode never loses content.
 */
import * as Y from 'yjs'
import type { FileId } from '../ids.js'

export interface ContentConnection {
  whenSynced?: Promise<unknown>
  destroy(): void
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

export interface ContentDocPoolOptions {
  connect?: ConnectContentDoc
  /** How long an unused doc stays loaded (ms). Default 30 s. */
  idleMs?: number
  /** How many unused docs stay loaded at most. Default 512. */
  maxIdle?: number
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
}

export class ContentDocPool {
  readonly #slots = new Map<FileId, Slot>()
  readonly #idle = new Set<FileId>() // insertion order = eviction order
  readonly #dormant = new Map<FileId, Uint8Array>()
  readonly #options: ContentDocPoolOptions

  constructor(options: ContentDocPoolOptions = {}) {
    this.#options = options
  }

  /** Open (or share) the content doc of `id`; resolves once it is synced. */
  async acquire(id: FileId): Promise<ContentDocHandle> {
    let slot = this.#slots.get(id)
    if (!slot) slot = this.#open(id)
    slot.refs++
    this.#idle.delete(id)
    try {
      await slot.ready
    } catch (error) {
      this.#unref(id, slot)
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

  /** The loaded doc of `id`, without taking a reference; `undefined` when not loaded. */
  peek(id: FileId): Y.Doc | undefined {
    return this.#slots.get(id)?.doc
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
    const idleMs = this.#options.idleMs ?? 30_000
    const now = Date.now()
    for (const id of [...this.#idle]) {
      const slot = this.#slots.get(id)
      if (slot && (force || now - slot.idleSince >= idleMs)) this.#evict(id, slot)
    }
  }

  /** Forget a file for good (emptied from the trash): evict it and drop its dormant state. */
  forget(id: FileId): void {
    const slot = this.#slots.get(id)
    if (slot && slot.refs === 0) this.#evict(id, slot)
    this.#dormant.delete(id)
  }

  /** Encoded state of a file's content doc, loaded or dormant; `undefined` if never opened here. */
  encodeState(id: FileId): Uint8Array | undefined {
    const slot = this.#slots.get(id)
    if (slot) return Y.encodeStateAsUpdate(slot.doc)
    return this.#dormant.get(id)
  }

  destroy(): void {
    for (const [id, slot] of this.#slots) this.#close(id, slot)
    this.#slots.clear()
    this.#idle.clear()
  }

  #open(id: FileId): Slot {
    const doc = new Y.Doc({ guid: id, gc: false })
    const dormant = this.#dormant.get(id)
    if (dormant) {
      Y.applyUpdate(doc, dormant)
      this.#dormant.delete(id)
    }
    const connection = this.#options.connect?.(doc)
    const slot: Slot = {
      doc,
      connection,
      refs: 0,
      idleSince: 0,
      ready: Promise.resolve(connection?.whenSynced).then(() => this.#options.onOpen?.(id, doc)),
    }
    this.#slots.set(id, slot)
    return slot
  }

  #unref(id: FileId, slot: Slot): void {
    if (this.#slots.get(id) !== slot || --slot.refs > 0) return
    slot.idleSince = Date.now()
    this.#idle.add(id)
    const maxIdle = this.#options.maxIdle ?? 512
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
    const idleMs = this.#options.idleMs ?? 30_000
    for (const id of this.#idle) {
      const slot = this.#slots.get(id)
      if (!slot || now - slot.idleSince < idleMs) break
      this.#evict(id, slot)
    }
  }

  #evict(id: FileId, slot: Slot): void {
    this.#idle.delete(id)
    this.#slots.delete(id)
    if (!this.#options.connect) {
      const state = Y.encodeStateAsUpdate(slot.doc)
      this.#dormant.set(id, this.#options.compact ? this.#options.compact(state, id) : state)
    }
    this.#close(id, slot)
  }

  #close(id: FileId, slot: Slot): void {
    this.#options.onClose?.(id, slot.doc)
    slot.connection?.destroy()
    slot.doc.destroy()
  }
}
