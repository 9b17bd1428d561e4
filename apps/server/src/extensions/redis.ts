/**
 * Redis extension for scale-out: Hocuspocus's own (`@hocuspocus/extension-redis`),
 * which relays sync and awareness messages between server processes over
 * Redis pub/sub, minus its store lock, relaying each change as its update,
 * plus `publishUpdates`.
 *
 * A change is published as the update it is (a sync update message, as
 * `publishUpdates` publishes). The upstream extension published a sync step 1
 * (the document's state vector) for every change instead: every other process
 * holding the document answered with a sync step 2 and a step 1 of its own,
 * which this process answered with the change. Each of those diffs carries
 * the document's whole delete set, so every keystroke or row change cost every
 * process work in the size of the document's history (a large workspace's main
 * doc: every superseded row is a deleted item). What the sync steps also did,
 * heal a change lost while a process could not reach Redis (pub/sub keeps
 * nothing), is kept: a changed document publishes one sync step 1 at most
 * every `resyncMs` (10 s), after its changes, and the handshake fills both
 * sides' gaps as before. A document loaded still publishes its step 1 at once.
 *
 * The upstream extension takes a Redis lock around `onStoreDocument` so only
 * one process writes a document snapshot at a time. yfs does not store in
 * `onStoreDocument` (every update is appended before it is acknowledged, see
 * persistence.ts, and appends from several processes are safe), so the lock
 * would only cost a Redis round trip per change and log contention errors.
 *
 * `publishUpdates` tells the other processes of updates this one stored
 * without loading their documents (bulk stores and updates, bulk-content.ts):
 * a process holding such a document loaded applies the update, so its
 * clients see it, as they see a change made through a connection here. It
 * publishes what the upstream extension relays for a loaded document: a
 * sync update message for the document, on the document's channel, after
 * this process's identifier; the other processes' extension applies it with
 * its Redis origin (not stored again). The channel and the frame are the
 * upstream's (3.4.4: `getKey`, `encodeMessage`, both private); the learning
 * test in `test/scale-out.e2e.test.ts` fails when they change.
 *
 * A process that loads a document while such an update is published may
 * have read the store before the update and subscribed to the channel after
 * it: once subscribed, it reads the store once more (`load`: the document's
 * state vector against what was stored meanwhile, an empty diff mostly).
 *
 * Redis away: a document's load waits for its subscription at most
 * `SUBSCRIBE_WAIT_MS`, then goes on (the upstream awaited it: while Redis
 * was unreachable no process could open a document it had not loaded, and
 * clients' opens timed out). The subscription, its sync step 1 and the
 * catch-up follow when Redis answers; a subscription that failed (ioredis
 * gave up retrying) is made again when the connection is back, for every
 * document still loaded. Changes published meanwhile wait in ioredis's queue
 * until it gives up (then logged; the sync step 1 after the document's next
 * change heals them). An unreachable Redis is logged once per connection
 * and outage, and its return once (ioredis printed every failed reconnect).
 */
import { Redis } from '@hocuspocus/extension-redis'
import type { afterLoadDocumentPayload, Document, Extension, onChangePayload } from '@hocuspocus/server'
import { OutgoingMessage } from '@hocuspocus/server'
import { parseDocName } from '@yfs/protocol'
import * as Y from 'yjs'
import type { Logger } from '../logger.js'
import { isEmptyUpdate } from '../protocol/sync-message.js'
import { within } from '../within.js'
import { BULK_STORE_ORIGIN } from './bulk-content.js'

export interface RedisOptions {
  /** `redis://[user:password@]host:port[/db]` */
  url: string
  /** Key/channel prefix; processes of one deployment must share it. */
  prefix: string
  /** Unique per process (messages from ourselves are ignored by it). */
  identifier: string
  /** A changed document's sync step 1 at most this often, after its changes (ms; default 10 s). */
  resyncMs?: number
  /** Where a change that could not be published is reported (it is healed by the next sync step 1). */
  logger?: Logger
  /** A document's stored state, for the catch-up once it is subscribed (see the module comment). */
  load?: (documentName: string) => Promise<Uint8Array | undefined>
}

/** How often at most a changed document publishes a sync step 1 (see the module comment). */
export const RESYNC_MS = 10_000

/** How long a document's load waits for its Redis subscription (see the module comment). */
export const SUBSCRIBE_WAIT_MS = 500

/** The Redis extension with `publishUpdates` (see the module comment). */
export interface YfsRedisExtension extends Extension {
  publishUpdates(updates: readonly { name: string; update: Uint8Array }[]): Promise<void>
}

class YfsRedis extends Redis implements YfsRedisExtension {
  readonly #prefix: string
  readonly #frameStart: Buffer
  readonly #resyncMs: number
  readonly #logger: Logger | undefined
  readonly #load: RedisOptions['load']
  /** Documents changed here whose sync step 1 is due (see the module comment). */
  readonly #resyncs = new Map<string, NodeJS.Timeout>()
  /** Loaded documents whose subscription failed: subscribed again once Redis is back. */
  readonly #unsubscribed = new Set<string>()

  constructor(
    configuration: ConstructorParameters<typeof Redis>[0],
    prefix: string,
    identifier: string,
    resyncMs: number,
    logger: Logger | undefined,
    load: RedisOptions['load'],
  ) {
    super(configuration)
    this.#prefix = prefix
    this.#resyncMs = resyncMs
    this.#logger = logger
    this.#load = load
    const id = Buffer.from(identifier, 'utf-8')
    this.#frameStart = Buffer.concat([Buffer.from([id.length]), id])
    this.#reportOutages(this.pub, 'publishing')
    this.#reportOutages(this.sub, 'subscribing')
    this.sub.on('ready', () => {
      for (const name of this.#unsubscribed) void this.#subscribeAgain(name)
    })
  }

  /**
   * Subscribed, its sync step 1 published and caught up with the store, or, when Redis does not
   * answer within `SUBSCRIBE_WAIT_MS`, loaded now and all that once it does (see the module comment).
   */
  override async afterLoadDocument(payload: afterLoadDocumentPayload): Promise<void> {
    const subscribed = super.afterLoadDocument(payload).then(
      () => this.#catchUp(payload.documentName, payload.document),
      (error: unknown) => this.#subscriptionFailed(payload.documentName, error),
    )
    await within(subscribed, SUBSCRIBE_WAIT_MS)
  }

  override async onStoreDocument(): Promise<void> {}
  override async afterStoreDocument(): Promise<void> {}

  /** A change made here goes to the other processes as its update (see the module comment). */
  override async onChange({ documentName, update, transactionOrigin }: onChangePayload): Promise<void> {
    // From another process (applied with the upstream's origin), or published already by the
    // bulk store that applied it.
    if (transactionOrigin === this.redisTransactionOrigin || transactionOrigin === BULK_STORE_ORIGIN) return
    this.#resyncLater(documentName)
    try {
      await this.pub.publish(this.#channel(documentName), this.#frame(syncUpdate(documentName, update)))
    } catch (error) {
      // Hocuspocus does not await this hook. The sync step 1 scheduled above heals the loss.
      this.#logger?.warn('change not published to Redis', { doc: documentName, error })
    }
  }

  override async onDestroy(): Promise<void> {
    for (const timer of this.#resyncs.values()) clearTimeout(timer)
    this.#resyncs.clear()
    await super.onDestroy()
  }

  async publishUpdates(updates: readonly { name: string; update: Uint8Array }[]): Promise<void> {
    // One pipeline: a PUBLISH written to the socket on its own cost ~0.1 ms each (a bulk request
    // is up to 256 documents), 17 % of the server's time under an agent's loop of new files.
    const pipeline = this.pub.pipeline()
    for (const { name, update } of updates)
      pipeline.publish(this.#channel(name), this.#frame(syncUpdate(name, update)))
    const results = await pipeline.exec()
    const failed = results?.find(([error]: [Error | null, unknown]) => error !== null)
    if (failed) throw failed[0]
  }

  /** A sync step 1 of `documentName`, once, `resyncMs` after its first change since the last one. */
  #resyncLater(documentName: string): void {
    if (this.#resyncs.has(documentName)) return
    const timer = setTimeout(() => {
      this.#resyncs.delete(documentName)
      const document: Document | undefined = this.instance?.documents.get(documentName)
      if (document) this.#publishStep1(documentName, document)
    }, this.#resyncMs)
    timer.unref()
    this.#resyncs.set(documentName, timer)
  }

  /** Publish the document's sync step 1: every process holding it answers with what this one lacks. */
  #publishStep1(documentName: string, document: Document): void {
    const step1 = new OutgoingMessage(documentName).createSyncMessage().writeFirstSyncStepFor(document)
    // Best effort, as the upstream's own: a later change schedules another.
    this.pub.publish(this.#channel(documentName), this.#frame(step1.toUint8Array())).catch(() => undefined)
  }

  /** What was stored for `document` while it was not subscribed yet, applied. */
  async #catchUp(documentName: string, document: Document): Promise<void> {
    // Bulk stores and updates are of content docs only (the main doc's rows travel as syncs).
    if (!this.#load || parseDocName(documentName)?.kind !== 'content') return
    try {
      const state = await this.#load(documentName)
      if (!state) return
      const missing = Y.diffUpdate(state, Y.encodeStateVector(document))
      if (!isEmptyUpdate(missing)) Y.applyUpdate(document, missing, REDIS_CATCH_UP_ORIGIN)
    } catch (error) {
      // Best effort: the document is loaded and live; only an update stored in that window waits.
      this.#logger?.warn('catch-up after subscribe failed', { doc: documentName, error })
    }
  }

  #subscriptionFailed(documentName: string, error: unknown): void {
    this.#logger?.warn('document not subscribed in Redis: again once it is back', {
      doc: documentName,
      error,
    })
    this.#unsubscribed.add(documentName)
  }

  /** The subscription of a document whose subscription failed, now that Redis is back (if still loaded). */
  async #subscribeAgain(documentName: string): Promise<void> {
    const document: Document | undefined = this.instance?.documents.get(documentName)
    if (!document) {
      this.#unsubscribed.delete(documentName)
      return
    }
    try {
      await this.sub.subscribe(this.#channel(documentName))
    } catch (error) {
      // Lost again: the next 'ready' tries again.
      this.#subscriptionFailed(documentName, error)
      return
    }
    this.#unsubscribed.delete(documentName)
    this.#publishStep1(documentName, document)
    await this.#catchUp(documentName, document)
  }

  /** An unreachable Redis logged once per outage, and its return (ioredis prints every failed reconnect unless someone listens). */
  #reportOutages(
    client: { on(event: string, listener: (error?: Error) => void): unknown },
    role: string,
  ): void {
    let down = false
    client.on('error', (error) => {
      if (down) return
      down = true
      this.#logger?.warn('Redis unreachable', { role, error })
    })
    client.on('ready', () => {
      if (!down) return
      down = false
      this.#logger?.info('Redis reachable again', { role })
    })
  }

  /** The upstream's channel of a document (its private `pubKey`). */
  #channel(documentName: string): string {
    return `${this.#prefix}:${documentName}`
  }

  /** The upstream's frame: this process's identifier, then the message (its private `encodeMessage`). */
  #frame(message: Uint8Array): Buffer {
    return Buffer.concat([this.#frameStart, message])
  }
}

/** A sync update message of `documentName` carrying `update`. */
function syncUpdate(documentName: string, update: Uint8Array): Uint8Array {
  return new OutgoingMessage(documentName).createSyncMessage().writeUpdate(update).toUint8Array()
}

export function createRedisExtension(options: RedisOptions): YfsRedisExtension {
  const parsed = new URL(options.url)
  return new YfsRedis(
    {
      host: parsed.hostname || '127.0.0.1',
      port: Number(parsed.port || 6379),
      prefix: options.prefix,
      identifier: options.identifier,
      options: {
        password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
        username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
        db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined,
      },
    },
    options.prefix,
    options.identifier,
    options.resyncMs ?? RESYNC_MS,
    options.logger,
    options.load,
  )
}

/** Origin of a catch-up's changes: stored already, not to be stored again. */
export const REDIS_CATCH_UP_ORIGIN = 'yfs-redis-catch-up'
