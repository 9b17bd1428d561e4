/**
 * Two servers of one scaled-out deployment in this process: a PostgreSQL store each on one
 * schema, one Redis prefix. For the tests that need PostgreSQL and Redis (services.ts).
 */
import type { ServerConfig } from '../src/config.js'
import type { DocumentStore } from '../src/persistence/document-store.js'
import { createPostgresStore } from '../src/persistence/postgres-store.js'
import { startTestServer, type TestServer } from './helpers.js'
import { dropSchema, POSTGRES_URL, REDIS_URL, testSchema } from './services.js'

export interface ScaledOut {
  stores: DocumentStore[]
  servers: TestServer[]
  redisPrefix: string
  /** Close the servers and their stores, drop the schema. */
  close(): Promise<void>
}

/**
 * Two servers sharing a schema and a Redis prefix (`prefix` names it), with `config` besides;
 * `redisUrls`: where each reaches Redis (a relay in front of it for one, say).
 */
export async function startScaledOut(
  prefix: string,
  config: Partial<ServerConfig> = {},
  redisUrls: readonly [string, string] = [REDIS_URL, REDIS_URL],
): Promise<ScaledOut> {
  const schema = testSchema()
  const redisPrefix = `${prefix}-${process.pid}-${Date.now()}`
  const stores = [
    await createPostgresStore({ url: POSTGRES_URL, schema, max: 4 }),
    await createPostgresStore({ url: POSTGRES_URL, schema, max: 4 }),
  ]
  const servers = await Promise.all(
    stores.map((store, i) => startTestServer({ ...config, store, redisUrl: redisUrls[i], redisPrefix })),
  )
  return {
    stores,
    servers,
    redisPrefix,
    async close() {
      for (const s of servers) await s.close()
      for (const s of stores) await s.close()
      await dropSchema(schema)
    },
  }
}
