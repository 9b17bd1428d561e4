/**
 * Redis extension for scale-out: Hocuspocus's own (`@hocuspocus/extension-redis`),
 * which relays sync and awareness messages between server processes over
 * Redis pub/sub, minus its store lock.
 *
 * The upstream extension takes a Redis lock around `onStoreDocument` so only
 * one process writes a document snapshot at a time. yfs does not store in
 * `onStoreDocument` (every update is appended before it is acknowledged, see
 * persistence.ts, and appends from several processes are safe), so the lock
 * would only cost a Redis round trip per change and log contention errors.
 */
import { Redis } from '@hocuspocus/extension-redis'

export interface RedisOptions {
  /** `redis://[user:password@]host:port[/db]` */
  url: string
  /** Key/channel prefix; processes of one deployment must share it. */
  prefix: string
  /** Unique per process (messages from ourselves are ignored by it). */
  identifier: string
}

class YfsRedis extends Redis {
  override async onStoreDocument(): Promise<void> {}
  override async afterStoreDocument(): Promise<void> {}
}

export function createRedisExtension(options: RedisOptions): Redis {
  const parsed = new URL(options.url)
  return new YfsRedis({
    host: parsed.hostname || '127.0.0.1',
    port: Number(parsed.port || 6379),
    prefix: options.prefix,
    identifier: options.identifier,
    options: {
      password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
      username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
      db: parsed.pathname.length > 1 ? Number(parsed.pathname.slice(1)) : undefined,
    },
  })
}
