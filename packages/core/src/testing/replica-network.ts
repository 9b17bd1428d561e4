/**
 * A network of replicas for tests: each replica is a `YjsFileSystem` whose
 * main doc and content docs talk to a hub (like a sync server) through
 * queues the test controls. Updates wait in per-replica outboxes and inboxes
 * until the test delivers them, in any order and any amount, so tests can
 * model partial syncs, delayed messages and reordering; `syncAll()` delivers
 * everything.
 *
 * Content docs: when a replica's pool opens a doc, the hub sends it the
 * hub's state for that guid (a provider's initial sync) before `whenSynced`
 * resolves; after that, the doc's local updates go to the outbox.
 */
import * as Y from 'yjs'
import { createFileSystem, type YjsFileSystem } from '../fs/yjs-file-system.js'

const REMOTE = Symbol('replica-network')

interface Message {
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
  /** Send up to `count` of a replica's pending updates to the hub (which forwards them to the others' inboxes). */
  send(replica: number, count?: number): void
  /** Apply up to `count` of a replica's received updates, oldest first or in a shuffled order. */
  receive(replica: number, count?: number, shuffle?: (n: number) => number): void
  /** Deliver everything until every replica has every update. */
  syncAll(): Promise<void>
  destroy(): void
}

export interface ReplicaNetworkOptions {
  /** Each replica's clock; defaults to a shared counter so createdAt ties happen. */
  clock?: (replica: number) => () => number
}

export function createReplicaNetwork(n: number, options: ReplicaNetworkOptions = {}): ReplicaNetwork {
  const hub = new Map<string, Y.Doc>()
  const hubDoc = (guid: string) => {
    let d = hub.get(guid)
    if (!d) {
      d = new Y.Doc({ guid, gc: false })
      hub.set(guid, d)
    }
    return d
  }
  let tick = 0
  const shared = () => () => ++tick
  const replicas: Replica[] = []
  // Which replicas have a given content doc open (they receive its updates).
  const openDocs = new Map<string, Map<number, Y.Doc>>()

  const route = (from: number, msg: Message) => {
    Y.applyUpdate(hubDoc(msg.guid), msg.update, REMOTE)
    for (const r of replicas) {
      if (r.index === from) continue
      if (msg.guid === 'main' || openDocs.get(msg.guid)?.has(r.index)) r.inbox.push(msg)
    }
  }

  for (let i = 0; i < n; i++) {
    const outbox: Message[] = []
    const inbox: Message[] = []
    const doc = new Y.Doc({ guid: `main-${i}` })
    doc.on('update', (update: Uint8Array, origin: unknown) => {
      if (origin !== REMOTE) outbox.push({ guid: 'main', update })
    })
    const fs = createFileSystem({
      doc,
      clock: (options.clock ?? shared)(i),
      idleMs: Number.POSITIVE_INFINITY,
      maxIdle: Number.POSITIVE_INFINITY,
      connect(content) {
        const guid = content.guid
        let open = openDocs.get(guid)
        if (!open) {
          open = new Map()
          openDocs.set(guid, open)
        }
        open.set(i, content)
        const onUpdate = (update: Uint8Array, origin: unknown) => {
          if (origin !== REMOTE) outbox.push({ guid, update })
        }
        content.on('update', onUpdate)
        // Initial sync: the hub's current state (already includes every *sent* update).
        Y.applyUpdate(content, Y.encodeStateAsUpdate(hubDoc(guid)), REMOTE)
        return {
          whenSynced: Promise.resolve(),
          destroy() {
            content.off('update', onUpdate)
            open.delete(i)
          },
        }
      },
    })
    replicas.push({ index: i, fs, outbox, inbox })
  }

  const docOf = (r: Replica, guid: string): Y.Doc | undefined =>
    guid === 'main' ? r.fs.doc : openDocs.get(guid)?.get(r.index)

  const network: ReplicaNetwork = {
    replicas,
    send(i, count = Number.POSITIVE_INFINITY) {
      const r = replicas[i]!
      const batch = r.outbox.splice(0, Math.min(count, r.outbox.length))
      for (const msg of batch) route(i, msg)
    },
    receive(i, count = Number.POSITIVE_INFINITY, shuffle) {
      const r = replicas[i]!
      for (let k = 0; k < count && r.inbox.length > 0; k++) {
        const at = shuffle ? shuffle(r.inbox.length) : 0
        const [msg] = r.inbox.splice(at, 1)
        const doc = docOf(r, msg!.guid)
        // A doc closed since: it will get the hub state when it opens again.
        if (doc) Y.applyUpdate(doc, msg!.update, REMOTE)
      }
    },
    async syncAll() {
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < n; i++) network.send(i)
        for (let i = 0; i < n; i++) network.receive(i)
        // Let queued size updates and version records (microtasks) run, then flush again.
        await new Promise((resolve) => setTimeout(resolve, 0))
        if (replicas.every((r) => r.outbox.length === 0 && r.inbox.length === 0)) return
      }
      throw new Error('replica network did not settle')
    },
    destroy() {
      for (const r of replicas) r.fs.destroy()
      for (const d of hub.values()) d.destroy()
    },
  }
  return network
}
