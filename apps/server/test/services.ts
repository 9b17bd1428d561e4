/**
 * The PostgreSQL and Redis services the service tests use, and probes that
 * let a machine without them skip those tests with a printed reason.
 */
import { Socket } from 'node:net'
import pg from 'pg'

export const POSTGRES_URL = process.env.YFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test'
export const REDIS_URL = process.env.YFS_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379'

/** Resolves whether PostgreSQL answers a query; prints why not. */
export async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch (error) {
    console.warn(`skipping PostgreSQL tests: ${POSTGRES_URL} unreachable (${(error as Error).message})`)
    return false
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** Resolves whether Redis answers PING; prints why not. */
export async function redisAvailable(): Promise<boolean> {
  const url = new URL(REDIS_URL)
  const ok = await new Promise<boolean>((resolve) => {
    const socket = new Socket()
    const done = (value: boolean) => {
      socket.destroy()
      resolve(value)
    }
    socket.setTimeout(2000, () => done(false))
    socket.once('error', () => done(false))
    socket.connect(Number(url.port || 6379), url.hostname, () => socket.write('PING\r\n'))
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')))
  })
  if (!ok) console.warn(`skipping Redis tests: ${REDIS_URL} unreachable`)
  return ok
}

/** A unique, disposable PostgreSQL schema name for one test file or run. */
export function testSchema(prefix = 'yfs_test'): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`
}

/** Drop a test schema (as the owner), on the test database or `url`. */
export async function dropSchema(schema: string, url = POSTGRES_URL): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  } finally {
    await client.end()
  }
}
