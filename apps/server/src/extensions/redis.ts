/**
 * Redis extension for scale-out: Hocuspocus's own (`@hocuspocus/extension-redis`),
 * which relays sync and awareness messages between server processes over
 * Redis pub/sub, minus its store lock, plus `publishUpdates`.
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
 * it: `catchUpAfterSubscribe` then reads the store once more (the document's
 * state vector against what was stored meanwhile, an empty diff mostly).
 */
import { Redis } from '@hocuspocus/extension-redis'
import type { afterLoadDocumentPayload, Extension } from '@hocuspocus/server'
import { OutgoingMessage } from '@hocuspocus/server'
import { parseDocName } from '@yfs/protocol'
import * as Y from 'yjs'
import type { Logger } from '../logger.js'
import { isEmptyUpdate } from '../protocol/sync-message.js'

export interface RedisOptions {
  /** `redis://[user:password@]host:port[/db]` */
  url: string
  /** Key/channel prefix; processes of one deployment must share it. */
  prefix: string
  /** Unique per process (messages from ourselves are ignored by it). */
  identifier: string
}

/** The Redis extension with `publishUpdates` (see the module comment). */
export interface YfsRedisExtension extends Extension {
  publishUpdates(updates: readonly { name: string; update: Uint8Array }[]): Promise<void>
}

class YfsRedis extends Redis implements YfsRedisExtension {
  readonly #prefix: string
  readonly #frameStart: Buffer

  constructor(configuration: ConstructorParameters<typeof Redis>[0], prefix: string, identifier: string) {
    super(configuration)
    this.#prefix = prefix
    const id = Buffer.from(identifier, 'utf-8')
    this.#frameStart = Buffer.concat([Buffer.from([id.length]), id])
  }

  override async onStoreDocument(): Promise<void> {}
  override async afterStoreDocument(): Promise<void> {}

  async publishUpdates(updates: readonly { name: string; update: Uint8Array }[]): Promise<void> {
    // One pipeline: a PUBLISH written to the socket on its own cost ~0.1 ms each (a bulk request
    // is up to 256 documents), 17 % of the server's time under an agent's loop of new files.
    const pipeline = this.pub.pipeline()
    for (const { name, update } of updates) {
      const message = new OutgoingMessage(name).createSyncMessage().writeUpdate(update).toUint8Array()
      pipeline.publish(`${this.#prefix}:${name}`, Buffer.concat([this.#frameStart, message]))
    }
    const results = await pipeline.exec()
    const failed = results?.find(([error]: [Error | null, unknown]) => error !== null)
    if (failed) throw failed[0]
  }
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
  )
}

/**
 * After the Redis extension subscribed a loaded document to its channel (so it goes after that
 * extension): what was stored for it since it was read, applied (see the module comment).
 */
export function catchUpAfterSubscribe(
  load: (documentName: string) => Promise<Uint8Array | undefined>,
  logger: Logger,
): Extension {
  return {
    extensionName: 'yfs-redis-catch-up',
    async afterLoadDocument({ documentName, document }: afterLoadDocumentPayload) {
      // Bulk stores and updates are of content docs only (the main doc's rows travel as syncs).
      if (parseDocName(documentName)?.kind !== 'content') return
      try {
        const state = await load(documentName)
        if (!state) return
        const missing = Y.diffUpdate(state, Y.encodeStateVector(document))
        if (!isEmptyUpdate(missing)) Y.applyUpdate(document, missing, REDIS_CATCH_UP_ORIGIN)
      } catch (error) {
        // Best effort: the document is loaded and live; only an update stored in that window waits.
        logger.warn('catch-up after subscribe failed', { doc: documentName, error })
      }
    },
  }
}

/** Origin of a catch-up's changes: stored already, not to be stored again. */
export const REDIS_CATCH_UP_ORIGIN = 'yfs-redis-catch-up'
