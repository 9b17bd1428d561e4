// A Redis outage under a scaled-out deployment (two servers on PostgreSQL + Redis in one process;
// one of them reaches Redis through a relay the test cuts and restores):
// - while Redis is away, the cut-off server keeps serving: its clients' changes are acknowledged
//   and stored, and a client that connects then opens documents and reads files;
// - once Redis is back, what the cut-off server's clients changed meanwhile reaches the other
//   server's clients, and what it missed of the other server's is healed by the next change of
//   that document there (pub/sub keeps nothing; see extensions/redis.ts).
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import type { FileId } from '@yfs/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureLogger, waitFor } from './helpers.js'
import { type ScaledOut, startScaledOut } from './scaled-out.js'
import { postgresAvailable, REDIS_URL, redisAvailable } from './services.js'
import { startTcpRelay, type TcpRelay } from './tcp-relay.js'

const up = (await postgresAvailable()) && (await redisAvailable())

describe.skipIf(!up)('a Redis outage', () => {
  let relay: TcpRelay
  let deployment: ScaledOut
  let token: string
  const logger = captureLogger()
  const clients: WorkspaceConnection[] = []
  const connect = async (server: 0 | 1) => {
    const c = await connectWorkspace({ url: deployment.servers[server]!.url, workspace: 'outage', token })
    clients.push(c)
    return c
  }

  beforeAll(async () => {
    const redis = new URL(REDIS_URL)
    relay = await startTcpRelay({ host: redis.hostname, port: Number(redis.port || 6379) })
    deployment = await startScaledOut('yfs-outage', { redisResyncMs: 300, logger }, [
      `redis://${relay.address}`,
      REDIS_URL,
    ])
    await deployment.stores[0]!.createWorkspace('outage')
    token = await deployment.stores[0]!.createToken('outage', 'write')
  })
  afterAll(async () => {
    for (const c of clients) await c.close()
    await deployment?.close()
    await relay?.close()
  })

  it('leaves the cut-off server serving, and both servers converge once it is back', async () => {
    const a = await connect(0)
    const b = await connect(1)
    await a.fs.mkdir('/o')
    await a.fs.writeFile('/o/before.txt', 'before\n')
    await a.fs.writeFile('/o/unopened.txt', 'nobody opened me\n')
    await waitFor(() => b.fs.exists('/o/unopened.txt'), 'the files on the other server')

    await relay.cut()
    await a.fs.writeFile('/o/during-a.txt', 'written on the cut-off server\n')
    await a.flush()
    await b.fs.writeFile('/o/during-b.txt', 'written on the other server\n')
    await b.flush()
    // A client connecting to the cut-off server meanwhile opens the workspace and reads a file
    // whose document nobody had open there.
    const late = await connect(0)
    expect(await late.fs.readFile('/o/unopened.txt')).toBe('nobody opened me\n')
    expect(await late.fs.readFile('/o/during-a.txt')).toBe('written on the cut-off server\n')
    // And opens a document the server had not loaded (an editor opening the file).
    const held = await late.fs.pool.acquire(late.fs.index.lookup('/o/unopened.txt') as FileId)
    try {
      await waitFor(() => held.doc.getText('text').toString() === 'nobody opened me\n', 'the document open')
    } finally {
      held.release()
    }

    // Told once per connection (publishing, subscribing), not at every reconnect ioredis tries.
    await waitFor(
      () => logger.records.filter((r) => r.event === 'Redis unreachable').length === 2,
      'the outage logged',
    )
    await new Promise((done) => setTimeout(done, 500))
    expect(
      logger.records
        .filter((r) => r.event === 'Redis unreachable')
        .map((r) => r.fields.role)
        .sort(),
    ).toEqual(['publishing', 'subscribing'])
    await relay.restore()
    await waitFor(
      () => logger.records.filter((r) => r.event === 'Redis reachable again').length === 2,
      'the return logged',
    )
    await waitFor(() => b.fs.exists('/o/during-a.txt'), "the cut-off server's change on the other")
    expect(await b.fs.readFile('/o/during-a.txt')).toBe('written on the cut-off server\n')
    // Missed while cut off: healed by the document's next change on the other server.
    await b.fs.writeFile('/o/after-b.txt', 'after\n')
    await waitFor(() => a.fs.exists('/o/during-b.txt'), "the other server's change on the cut-off one")
    await waitFor(() => a.fs.exists('/o/after-b.txt'), 'and its next one')
    expect(await a.fs.readFile('/o/during-b.txt')).toBe('written on the other server\n')
  })

  it('past ioredis giving up: what failed is logged, and a document loaded meanwhile is subscribed once Redis is back', async () => {
    const a = await connect(0)
    const b = await connect(1)
    await b.fs.writeFile('/long.txt', 'base\n')
    await waitFor(() => a.fs.exists('/long.txt'), 'the file on the cut-off server')
    const id = a.fs.index.lookup('/long.txt') as FileId
    const warned = (event: string) => logger.records.some((r) => r.event === event)

    await relay.cut()
    // Loaded there now (nobody had it open): its subscription waits in ioredis's queue.
    const there = await a.fs.pool.acquire(id)
    const here = await b.fs.pool.acquire(id)
    try {
      await waitFor(
        () => there.doc.getText('text').toString() === 'base\n',
        'the document open while cut off',
      )
      there.doc.getText('text').insert(0, 'cut off ')
      // ioredis gives up on queued commands after 20 reconnects (about ten seconds).
      await waitFor(
        () => warned('document not subscribed in Redis: again once it is back'),
        'the failed subscription logged',
        20_000,
      )
      await waitFor(() => warned('change not published to Redis'), 'the failed publication logged')

      await relay.restore()
      // Subscribed again: a change on the other server reaches it live, and the one it made
      // meanwhile reaches the other (its sync step 1 on subscribing).
      here.doc.getText('text').insert(here.doc.getText('text').length, 'more\n')
      await waitFor(
        () => there.doc.getText('text').toString() === 'cut off base\nmore\n',
        "the other server's change on the cut-off one",
      )
      await waitFor(
        () => here.doc.getText('text').toString() === 'cut off base\nmore\n',
        "the cut-off server's change on the other",
      )
    } finally {
      there.release()
      here.release()
    }
  }, 60_000)
})
