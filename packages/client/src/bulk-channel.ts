/**
 * BulkChannel: many content docs per round trip over the main doc's
 * provider (see bulk-messages.ts): `load` fetches the stored state of many
 * content docs, `store` stores many new ones and resolves once the server
 * has stored them all.
 *
 * Requests are split into chunks (`maxIds` ids, about `maxBytes` of
 * updates) with a few in flight at once, so one request never exceeds the
 * server's message limit and the socket stays busy. Each chunk has its own
 * timeout. The channel refuses at once while the main doc is not synced
 * (offline): callers fall back to opening docs one by one.
 *
 * Replies are taken only as answers to requests of this channel: request
 * ids are random 48-bit numbers, and a reply must carry one that is pending,
 * with the matching operation and exactly the ids asked for. Ids the server
 * left out of a reply to bound its size (`BULK_ASK_AGAIN`) are asked for
 * again.
 *
 * What it deliberately doesn't do: keep docs open. Loaded states are
 * read-only snapshots; the filesystem decides what to cache.
 */
import type { HocuspocusProvider } from '@hocuspocus/provider'
import {
  BULK_ASK_AGAIN,
  BULK_UNCHANGED,
  BULK_UPDATES_OFF,
  type BulkMessage,
  decodeBulkMessage,
  encodeBulkMessage,
} from '@yfs/protocol'
import { ConnectError } from './connect-error.js'

export interface BulkChannelOptions {
  timeoutMs: number
  /** Ids per `load` request. Default 250. */
  maxIds?: number
  /** Update bytes per `store` request (before base64). Default 2 MiB. */
  maxBytes?: number
  /** Requests in flight at once. Default 4. */
  inFlight?: number
}

/** A doc's stored state with its head (bulk-messages.ts, "Heads"). */
export interface HeadedState {
  /** The stored state; `undefined`: still at the head the request gave (the caller holds that state). */
  state: Uint8Array | undefined
  /** Its head; `undefined` when the server gives none. */
  head: string | undefined
}

export interface BulkChannel {
  /** States of `ids` in order; `undefined` where the server refused (no such file). Rejects when offline or on timeout. */
  load(ids: readonly string[]): Promise<(Uint8Array | undefined)[]>
  /**
   * `load` with heads: `since` holds, per id, the head of a state the caller holds (`undefined`:
   * none); a doc still at it comes back without its state. `undefined` where the server refused.
   */
  loadSince(
    ids: readonly string[],
    since: readonly (string | undefined)[],
  ): Promise<(HeadedState | undefined)[]>
  /**
   * Store new content docs; resolves when every one is stored, with each doc's head where the
   * server gives heads (`undefined` where it gives none). Rejects with the server's reason.
   */
  store(docs: readonly { id: string; update: Uint8Array }[]): Promise<(string | undefined)[]>
  /**
   * Apply changes to existing content docs (each file's row must be on the server); resolves when
   * every one is stored. With `base` (the head of the state a change was made on), with each doc's
   * head where the change went right on that state (`undefined` elsewhere, or without heads).
   */
  update(docs: readonly { id: string; update: Uint8Array; base?: string }[]): Promise<(string | undefined)[]>
  destroy(): void
}

type Reply = Extract<BulkMessage, { op: 'loaded' | 'stored' | 'updated' }>

const REPLY_OP = { load: 'loaded', store: 'stored', update: 'updated' } as const

/** A request id nobody else can guess (48 random bits: a safe integer). */
function randomReq(): number {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2))
  return (high! & 0xffff) * 2 ** 32 + low!
}

export function createBulkChannel(main: HocuspocusProvider, options: BulkChannelOptions): BulkChannel {
  const maxIds = options.maxIds ?? 250
  const maxBytes = options.maxBytes ?? 2 * 1024 * 1024
  const inFlight = options.inFlight ?? 4
  const name = main.configuration.name
  const pending = new Map<
    number,
    { expects: Reply['op']; resolve: (r: Reply) => void; reject: (e: Error) => void }
  >()

  // Requests go packed once the server said it reads them (bulk-messages.ts): a server of an
  // earlier version is never sent one.
  let packed = false
  const onStateless = ({ payload }: { payload: string }) => {
    const message = decodeBulkMessage(payload)
    if (!message || (message.op !== 'loaded' && message.op !== 'stored' && message.op !== 'updated')) return
    const waiter = pending.get(message.req)
    if (!waiter || waiter.expects !== message.op) return
    if (message.readsPacked) packed = true
    pending.delete(message.req)
    waiter.resolve(message)
  }
  main.on('stateless', onStateless)

  // The server said it takes no bulk updates: not asked again.
  let updatesOff = false

  const request = (message: Extract<BulkMessage, { op: 'load' | 'store' | 'update' }>): Promise<Reply> =>
    new Promise<Reply>((resolve, reject) => {
      if (!main.isSynced) {
        reject(new ConnectError('offline', name))
        return
      }
      while (pending.has(message.req)) message.req = randomReq()
      const timer = setTimeout(() => {
        pending.delete(message.req)
        reject(new ConnectError('timeout', name))
      }, options.timeoutMs)
      pending.set(message.req, {
        expects: REPLY_OP[message.op],
        resolve: (r) => {
          clearTimeout(timer)
          resolve(r)
        },
        reject: (e) => {
          clearTimeout(timer)
          reject(e)
        },
      })
      main.sendStateless(encodeBulkMessage(message, packed))
    })

  /** Run `jobs` with at most `inFlight` at once; results in job order. */
  async function limited<T>(jobs: (() => Promise<T>)[]): Promise<T[]> {
    const out: T[] = new Array(jobs.length)
    let next = 0
    const worker = async () => {
      while (next < jobs.length) {
        const k = next++
        out[k] = await jobs[k]!()
      }
    }
    await Promise.all(Array.from({ length: Math.min(inFlight, jobs.length) }, worker))
    return out
  }

  /**
   * `store` or `update` in chunks of about `maxBytes`, `inFlight` at once; resolves with each
   * doc's head in order (`undefined` where the server gave none).
   */
  async function sendDocs(
    op: 'store' | 'update',
    docs: readonly { id: string; update: Uint8Array; base?: string }[],
  ): Promise<(string | undefined)[]> {
    const chunks: (typeof docs)[number][][] = []
    let chunk: (typeof docs)[number][] = []
    let bytes = 0
    for (const doc of docs) {
      if (chunk.length > 0 && (bytes + doc.update.byteLength > maxBytes || chunk.length >= maxIds * 4)) {
        chunks.push(chunk)
        chunk = []
        bytes = 0
      }
      chunk.push(doc)
      bytes += doc.update.byteLength
    }
    if (chunk.length > 0) chunks.push(chunk)
    const replies = await limited(
      chunks.map((docsOf) => async () => {
        const wire: [string, Uint8Array][] = docsOf.map(({ id, update }) => [id, update])
        const bases = docsOf.some((d) => d.base !== undefined) ? docsOf.map((d) => d.base ?? null) : undefined
        const reply = await request(
          op === 'update' && bases
            ? { op, req: randomReq(), docs: wire, bases }
            : { op, req: randomReq(), docs: wire },
        )
        if (reply.op !== REPLY_OP[op]) throw new ConnectError('malformed bulk reply', name)
        if (reply.error !== undefined) throw new ConnectError(reply.error, name)
        if (reply.heads === undefined) return docsOf.map(() => undefined)
        if (reply.heads.length !== docsOf.length) throw new ConnectError('malformed bulk reply', name)
        return reply.heads.map((head) => head ?? undefined)
      }),
    )
    return replies.flat()
  }

  /** `load` of `ids`, `maxIds` a request, `inFlight` at once (see `loadSince`; `since` undefined: none). */
  async function loadHeaded(
    ids: readonly string[],
    since: readonly (string | undefined)[] | undefined,
  ): Promise<(HeadedState | undefined)[]> {
    const loadChunk = async (
      chunk: string[],
      sinceOf?: (string | undefined)[],
    ): Promise<(HeadedState | undefined)[]> => {
      const reply = await request(
        sinceOf
          ? { op: 'load', req: randomReq(), ids: chunk, since: sinceOf.map((h) => h ?? null) }
          : { op: 'load', req: randomReq(), ids: chunk },
      )
      if (reply.op !== 'loaded') throw new ConnectError('malformed bulk reply', name)
      if (reply.error !== undefined) throw new ConnectError(reply.error, name)
      if (reply.docs.length !== chunk.length || reply.docs.some(([id], k) => id !== chunk[k]))
        throw new ConnectError('malformed bulk reply', name)
      const states = reply.docs.map(([, bytes, reason], k): HeadedState | undefined => {
        const head = reply.heads?.[k] ?? undefined
        // Unchanged only at the very head asked for: anything else would leave the caller without a state.
        if (reason === BULK_UNCHANGED && bytes === null && head !== undefined && head === sinceOf?.[k])
          return { state: undefined, head }
        return bytes ? { state: bytes, head } : undefined
      })
      const again = reply.docs.flatMap(([, , reason], k) => (reason === BULK_ASK_AGAIN ? [k] : []))
      if (again.length === 0) return states
      // The server always answers at least the first id, so each round makes progress.
      if (again.length === chunk.length) throw new ConnectError('malformed bulk reply', name)
      const more = await loadChunk(
        again.map((k) => chunk[k]!),
        sinceOf && again.map((k) => sinceOf[k]),
      )
      again.forEach((k, n) => {
        states[k] = more[n]
      })
      return states
    }
    const jobs: (() => Promise<(HeadedState | undefined)[]>)[] = []
    for (let i = 0; i < ids.length; i += maxIds)
      jobs.push(() => loadChunk(ids.slice(i, i + maxIds), since?.slice(i, i + maxIds)))
    return (await limited(jobs)).flat()
  }

  return {
    async load(ids) {
      return (await loadHeaded(ids, undefined)).map((loaded) => loaded?.state)
    },
    loadSince: (ids, since) => loadHeaded(ids, since),
    store: (docs) => sendDocs('store', docs),
    async update(docs) {
      if (updatesOff) throw new ConnectError(BULK_UPDATES_OFF, name)
      try {
        return await sendDocs('update', docs)
      } catch (error) {
        if (error instanceof ConnectError && error.reason === BULK_UPDATES_OFF) updatesOff = true
        throw error
      }
    },
    destroy() {
      main.off('stateless', onStateless)
      for (const waiter of pending.values()) waiter.reject(new ConnectError('closed', name))
      pending.clear()
    },
  }
}
