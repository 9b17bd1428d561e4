// Scale-out in one process: two servers sharing PostgreSQL and Redis; clients on different servers
// see each other's edits live (the multi-process variant is in processes.e2e.test.ts). Bulk
// updates are off there (a doc loaded on the other server would not see them): a client's
// overwrites of files whose docs it does not hold open go through each doc, and reach a client
// holding the doc open on the other server.
import { connectWorkspace, createBulkChannel } from '@yfs/client'
import type { FileId } from '@yfs/core'
import { BULK_UPDATES_OFF } from '@yfs/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
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

  it('overwrites without the doc reach a doc held open on the other server (bulk updates are off)', async () => {
    const a = await connectWorkspace({ url: servers[0]!.url, workspace: 'scale', token })
    const b = await connectWorkspace({ url: servers[1]!.url, workspace: 'scale', token })
    try {
      const paths = Array.from({ length: 10 }, (_, i) => `/over/f${i}.txt`)
      await a.fs.writeTree(paths.map((path) => ({ path, content: 'old\n' })))
      await a.flush()
      await waitFor(() => b.fs.exists(paths[9]!), 'rows cross servers')
      const held = await b.fs.pool.acquire(b.fs.index.lookup(paths[3]!)! as FileId)
      try {
        // The server says so to a bulk update.
        const channel = createBulkChannel(a.main, { timeoutMs: 10_000 })
        const change = new Y.Doc()
        change.getText('text').insert(0, 'x')
        await expect(
          channel.update([{ id: a.fs.index.lookup(paths[0]!)!, update: Y.encodeStateAsUpdate(change) }]),
        ).rejects.toThrow(BULK_UPDATES_OFF)
        channel.destroy()
        await a.fs.batch(async () => {
          for (const path of paths) await a.fs.writeFile(path, 'new\n')
        })
        await a.flush()
        await waitFor(() => held.doc.getText('text').toString() === 'new\n', 'the overwrite in the open doc')
        for (const path of paths) await waitFor(async () => (await b.fs.readFile(path)) === 'new\n', path)
      } finally {
        held.release()
      }
    } finally {
      await a.close()
      await b.close()
    }
  })
})
