// Scale-out in one process: two servers sharing PostgreSQL and Redis; clients on different servers
// see each other's edits live (the multi-process variant is in processes.e2e.test.ts).
import { connectWorkspace } from '@yfs/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DocumentStore } from '../src/persistence/document-store.js'
import { createPostgresStore } from '../src/persistence/postgres-store.js'
import { startTestServer, type TestServer, waitFor } from './helpers.js'
import {
  dropSchema,
  POSTGRES_URL,
  postgresAvailable,
  REDIS_URL,
  redisAvailable,
  testSchema,
} from './services.js'

const up = (await postgresAvailable()) && (await redisAvailable())

describe.skipIf(!up)('two servers, PostgreSQL + Redis', () => {
  const schema = testSchema()
  const redisPrefix = `yfs-test-${process.pid}-${Date.now()}`
  let stores: DocumentStore[] = []
  let servers: TestServer[] = []
  let token: string

  beforeAll(async () => {
    stores = [
      await createPostgresStore({ url: POSTGRES_URL, schema, max: 4 }),
      await createPostgresStore({ url: POSTGRES_URL, schema, max: 4 }),
    ]
    servers = await Promise.all(
      stores.map((store) => startTestServer({ store, redisUrl: REDIS_URL, redisPrefix, fileWaitMs: 5000 })),
    )
    await stores[0]!.createWorkspace('scale')
    token = await stores[0]!.createToken('scale', 'write')
  })
  afterAll(async () => {
    for (const s of servers) await s.close()
    for (const s of stores) await s.close()
    await dropSchema(schema)
  })

  it('clients on different servers converge on tree and contents', async () => {
    const a = await connectWorkspace({ url: servers[0]!.url, workspace: 'scale', token })
    const b = await connectWorkspace({ url: servers[1]!.url, workspace: 'scale', token })
    try {
      await a.fs.mkdir('/docs')
      await a.fs.writeFile('/docs/a.md', 'written on server 1\n')
      await waitFor(async () => b.fs.exists('/docs/a.md'), 'row crosses servers')
      expect(await b.fs.readFile('/docs/a.md')).toBe('written on server 1\n')

      await b.fs.appendFile('/docs/a.md', 'appended on server 2\n')
      await b.fs.writeFile('/docs/b.md', 'new on server 2\n')
      await waitFor(
        async () =>
          (await a.fs.exists('/docs/b.md')) &&
          (await a.fs.readFile('/docs/a.md')) === 'written on server 1\nappended on server 2\n',
        'edits cross back',
      )
      // Concurrent appends from both sides both survive.
      await Promise.all([a.fs.appendFile('/docs/a.md', 'A\n'), b.fs.appendFile('/docs/a.md', 'B\n')])
      await Promise.all([a.flush(), b.flush()])
      await waitFor(
        async () => (await a.fs.readFile('/docs/a.md')) === (await b.fs.readFile('/docs/a.md')),
        'same text',
      )
      const text = await a.fs.readFile('/docs/a.md')
      expect(text).toContain('A\n')
      expect(text).toContain('B\n')
    } finally {
      await a.close()
      await b.close()
    }
  })
})
