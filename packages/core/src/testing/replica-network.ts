/**
 * A network of replicas for tests: each replica is a `YjsFileSystem` whose
 * main doc and content docs exchange updates through queues the test
 * controls, so tests can model partial syncs, delayed messages and
 * reordering. Two kinds of links, usable together:
 *
 * - through a hub, like a sync server: `send(i)` moves replica i's updates
 *   to the hub, which queues them in every other replica's inbox;
 *   `receive(i)` applies some of them, oldest first or in a random order;
 * - peer to peer: `deliver(from, to, count)` applies updates made on `from`
 *   straight on `to`, without the hub.
 *
 * `syncAll()` delivers everything. Updates are idempotent in Yjs, so an
 * update that arrives by both links is harmless.
 *
 * Content docs: the hub keeps a doc per guid (file id). When a replica's
 * pool opens a content doc, the hub's state is applied before `whenSynced`
 * resolves (a provider's initial sync), plus what the replica's local store
 * would hold: its own updates not sent yet, and updates it received while the
 * doc was not open. So pools may evict docs at any time (`evict(i)`) without
 * losing anything.
 *
 * Randomness (the `'random'` order of `receive`, `random()`) comes from a
 * seeded generator, so a run is reproducible from `seed`.
 */
import * as prng from 'lib0/prng'
import * as Y from 'yjs'
import type { ContentCodec } from '../content/codec.js'
import { createFileSystem, type YjsFileSystem } from '../fs/yjs-file-system.js'

const REMOTE = Symbol('replica-network')
const MAIN = 'main'

interface Message {
  /** `'main'` or a content doc's guid. */
  guid: string
  update: Uint8Array
}

export interface Replica {
  readonly index: number
  readonly fs: YjsFileSystem
  /** Updates made here, not yet sent to the hub. */
  readonly outbox: Message[]
  /** Updates from the hub, not yet applied here. */
  readonly inbox: Message[]
}

export interface ReplicaNetwork {
  readonly replicas: Replica[]
  /** Send up to `count` of a replica's oldest unsent updates to the hub (which queues them for the others). */
  send(replica: number, count?: number): void
  /** Apply up to `count` of a replica's received updates, oldest first or in a random order. */
  receive(replica: number, count?: number, order?: 'fifo' | 'random'): void
  /** Apply up to `count` of the oldest updates made on `from` and not yet passed to `to`, peer to peer. */
  deliver(from: number, to: number, count?: number): void
  /** Evict every idle content doc of a replica's pool (reopening gets the hub state). */
  evict(replica: number): void
  /** Deliver everything until every replica has every update. */
  syncAll(): Promise<void>
  /** A number in [0, 1) from the network's seeded generator. */
  random(): number
  /** Number of updates still queued anywhere. */
  pending(): number
  destroy(): void
}

export interface ReplicaNetworkOptions {
  /** Seed of the generator behind `'random'` delivery and `random()`. Default 1. */
  seed?: number
  /** Each replica's wall clock; defaults to one shared counter, so `createdAt` ties happen across replicas. */
  clock?: (replica: number) => () => number
  /** Each replica's `author` (history versions name it); defaults to the filesystem's. */
  author?: (replica: number) => string
  /** Content-doc pool tuning for every replica; by default docs stay loaded until `evict`. */
  idleMs?: number
  maxIdle?: number
  /** Content codecs of every replica (e.g. `[markdownCodec]`). */
  codecs?: ContentCodec[]
  /** Per replica: rows whole, as versions before per-group rows (`rowGroups: false`). */
  wholeRows?: (replica: number) => boolean
}

export function createReplicaNetwork(n: number, options: ReplicaNetworkOptions = {}): ReplicaNetwork {
  const gen = prng.create(options.seed ?? 1)
  const hub = new Map<string, Y.Doc>()
  const hubDoc = (guid: string) => {
    let doc = hub.get(guid)
    if (!doc) {
      doc = new Y.Doc({ guid, gc: false })
      hub.set(guid, doc)
    }
    return doc
  }
  let tick = 0
  const sharedClock = () => () => ++tick
  const replicas: Replica[] = []
  // Content docs each replica has open, by guid; updates received for the others.
  const openDocs: Map<string, Y.Doc>[] = []
  const parked: Map<string, Uint8Array[]>[] = []
  // links[from][to]: updates made on `from`, not yet passed to `to` peer to peer.
  const links: Message[][][] = Array.from({ length: n }, () => Array.from({ length: n }, () => []))

  const madeLocally = (from: number, msg: Message) => {
    replicas[from]!.outbox.push(msg)
    for (let to = 0; to < n; to++) if (to !== from) links[from]![to]!.push(msg)
  }

  const docOf = (i: number, guid: string): Y.Doc | undefined =>
    guid === MAIN ? replicas[i]!.fs.doc : openDocs[i]!.get(guid)

  const apply = (i: number, msg: Message) => {
    const doc = docOf(i, msg.guid)
    if (doc) Y.applyUpdate(doc, msg.update, REMOTE)
    else {
      const list = parked[i]!.get(msg.guid) ?? []
      list.push(msg.update)
      parked[i]!.set(msg.guid, list)
    }
  }

  for (let i = 0; i < n; i++) {
    const outbox: Message[] = []
    const inbox: Message[] = []
    const open = new Map<string, Y.Doc>()
    openDocs.push(open)
    const held = new Map<string, Uint8Array[]>()
    parked.push(held)
    const doc = new Y.Doc({ guid: `main-${i}` })
    doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin !== REMOTE) madeLocally(i, { guid: MAIN, update })
    })
    const fs = createFileSystem({
      doc,
      codecs: options.codecs,
      clock: (options.clock ?? sharedClock)(i),
      ...(options.author ? { author: options.author(i) } : {}),
      idleMs: options.idleMs ?? Number.POSITIVE_INFINITY,
      maxIdle: options.maxIdle ?? Number.POSITIVE_INFINITY,
      // No network delays to wait out: rows announce content as soon as a change settles (content-lifecycle.ts).
      announceDelayMs: 0,
      rowGroups: !options.wholeRows?.(i),
      connect(content) {
        const guid = content.guid
        // Initial sync: the hub's state (every update sent so far), then the local store.
        Y.applyUpdate(content, Y.encodeStateAsUpdate(hubDoc(guid)), REMOTE)
        for (const msg of outbox) if (msg.guid === guid) Y.applyUpdate(content, msg.update, REMOTE)
        for (const update of held.get(guid) ?? []) Y.applyUpdate(content, update, REMOTE)
        held.delete(guid)
        open.set(guid, content)
        const onUpdate = (update: Uint8Array, origin: unknown) => {
          if (origin !== REMOTE) madeLocally(i, { guid, update })
        }
        content.on('update', onUpdate)
        return {
          whenSynced: Promise.resolve(),
          destroy() {
            content.off('update', onUpdate)
            if (open.get(guid) === content) open.delete(guid)
          },
        }
      },
    })
    replicas.push({ index: i, fs, outbox, inbox })
  }

  const network: ReplicaNetwork = {
    replicas,
    send(i, count = Number.POSITIVE_INFINITY) {
      const r = replicas[i]!
      for (const msg of r.outbox.splice(0, Math.min(count, r.outbox.length))) {
        Y.applyUpdate(hubDoc(msg.guid), msg.update, REMOTE)
        for (const other of replicas) if (other !== r) other.inbox.push(msg)
      }
    },
    receive(i, count = Number.POSITIVE_INFINITY, order = 'fifo') {
      const r = replicas[i]!
      for (let k = 0; k < count && r.inbox.length > 0; k++) {
        const at = order === 'random' ? prng.uint32(gen, 0, r.inbox.length - 1) : 0
        apply(i, r.inbox.splice(at, 1)[0]!)
      }
    },
    deliver(from, to, count = Number.POSITIVE_INFINITY) {
      const queue = links[from]![to]!
      for (const msg of queue.splice(0, Math.min(count, queue.length))) apply(to, msg)
    },
    evict(i) {
      replicas[i]!.fs.pool.evictIdle(true)
    },
    async syncAll() {
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < n; i++) network.send(i)
        for (let i = 0; i < n; i++) network.receive(i)
        // Everything went through the hub: the peer-to-peer queues hold nothing new.
        for (const row of links) for (const queue of row) queue.length = 0
        // Let queued size updates, version records, content announcements (microtasks, timers at 0)
        // and write-backs of merged rows (setImmediate) run, then go again.
        await new Promise((resolve) => setTimeout(resolve, 0))
        await new Promise((resolve) => setImmediate(resolve))
        if (network.pending() === 0) return
      }
      throw new Error('replica network did not settle after 10 rounds')
    },
    random: () => prng.real53(gen),
    pending() {
      let count = 0
      for (const r of replicas) count += r.outbox.length + r.inbox.length
      for (const row of links) for (const queue of row) count += queue.length
      return count
    },
    destroy() {
      for (const r of replicas) r.fs.destroy()
      for (const doc of hub.values()) doc.destroy()
    },
  }
  return network
}
