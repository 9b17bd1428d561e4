// How a change crosses server processes through Redis (extensions/redis.ts), two servers on
// PostgreSQL + Redis in one process, a raw subscriber listening on their channels:
// - a change goes out as the update it is, and no process answers it with sync steps (the
//   upstream extension published a sync step 1 per change, which every other process answered,
//   each diff carrying the document's whole delete set);
// - a change another process missed (pub/sub keeps nothing) is healed by the sync step 1 a
//   changed document publishes `resyncMs` after its changes.
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import type { FileId } from '@yfs/core'
import { contentDocName, mainDocName } from '@yfs/protocol'
import { Redis } from 'ioredis'
import * as decoding from 'lib0/decoding'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type TestServer, waitFor } from './helpers.js'
import { type ScaledOut, startScaledOut } from './scaled-out.js'
import { postgresAvailable, REDIS_URL, redisAvailable } from './services.js'

const up = (await postgresAvailable()) && (await redisAvailable())

/** Hocuspocus's message type of a sync message, and y-protocols' sync message types. */
const SYNC = 0
const SYNC_KINDS = ['step 1', 'step 2', 'update'] as const

/** Two servers sharing a store and a Redis prefix, a client on each, and a raw subscriber on the prefix. */
function twoServers(resyncMs: number) {
  const t = {
    deployment: undefined as ScaledOut | undefined,
    servers: [] as TestServer[],
    clients: [] as WorkspaceConnection[],
    subscriber: undefined as Redis | undefined,
    /** Sync messages seen on the prefix: document and kind. */
    seen: [] as { doc: string; kind: (typeof SYNC_KINDS)[number] }[],
  }
  beforeAll(async () => {
    const deployment = await startScaledOut(`yfs-relay-${resyncMs}`, { redisResyncMs: resyncMs })
    t.deployment = deployment
    t.servers = deployment.servers
    await deployment.stores[0]!.createWorkspace('relay')
    const token = await deployment.stores[0]!.createToken('relay', 'write')
    t.clients = await Promise.all(
      t.servers.map((s) => connectWorkspace({ url: s.url, workspace: 'relay', token })),
    )
    const subscriber = new Redis(REDIS_URL)
    t.subscriber = subscriber
    subscriber.on('pmessageBuffer', (_pattern: Buffer, _channel: Buffer, frame: Buffer) => {
      // The upstream extension's frame: the sender's identifier, then Hocuspocus's message.
      const decoder = decoding.createDecoder(frame.subarray(1 + frame[0]!))
      const doc = decoding.readVarString(decoder)
      if (decoding.readVarUint(decoder) !== SYNC) return
      t.seen.push({ doc, kind: SYNC_KINDS[decoding.readVarUint(decoder)]! })
    })
    await subscriber.psubscribe(`${deployment.redisPrefix}:*`)
  })
  afterAll(async () => {
    t.subscriber?.disconnect()
    for (const c of t.clients) await c.close()
    await t.deployment?.close()
  })
  return t
}

describe.skipIf(!up)('changes between server processes', () => {
  const t = twoServers(60_000)

  it('a change crosses as its update; no process answers it with sync steps', async () => {
    const [a, b] = t.clients as [WorkspaceConnection, WorkspaceConnection]
    await a.fs.mkdir('/r')
    await waitFor(() => b.fs.exists('/r'), 'the folder on the other server')
    t.seen.length = 0
    for (let i = 0; i < 5; i++) await a.fs.mkdir(`/r/d${i}`)
    await a.fs.writeFile('/r/d0/f.txt', 'crossed\n')
    await waitFor(() => b.fs.exists('/r/d4'), 'the folders on the other server')
    await waitFor(async () => (await b.fs.readFile('/r/d0/f.txt')) === 'crossed\n', 'the file there')
    const main = t.seen.filter((m) => m.doc === mainDocName('relay'))
    expect(main.filter((m) => m.kind === 'update').length).toBeGreaterThanOrEqual(1)
    // Nothing but updates, on any document, from either process.
    expect(t.seen.filter((m) => m.kind !== 'update')).toEqual([])
  })
})

describe.skipIf(!up)('a change another process missed', () => {
  const t = twoServers(300)

  it('is healed by the sync step 1 its document publishes after the next change', async () => {
    const [a, b] = t.clients as [WorkspaceConnection, WorkspaceConnection]
    await a.fs.writeFile('/h.txt', 'base\n')
    await waitFor(() => b.fs.exists('/h.txt'), 'the file on the other server')
    const id = a.fs.index.lookup('/h.txt') as FileId
    const name = contentDocName('relay', id)
    const kinds = () => t.seen.filter((m) => m.doc === name).map((m) => m.kind)
    // One load after the other, each one's handshake seen through: a process loading the doc
    // publishes a sync step 1 once subscribed, and one holding it answers with a step 2. Loaded
    // together, server 2's handshake could come after the lost change below (under load, later than
    // the doc reached the clients) and heal it before the next change does.
    const held = [await a.fs.pool.acquire(id)]
    try {
      await waitFor(() => kinds().includes('step 1'), "server 1's load of the doc")
      held.push(await b.fs.pool.acquire(id))
      await waitFor(() => kinds().includes('step 2'), "server 1's answer to server 2's load")
      await waitFor(() => held[1]!.doc.getText('text').toString() === 'base\n', 'the doc open on both')
      // A change on server 1 whose relay is lost: applied there as if it came through Redis.
      const there = t.servers[0]!.server.hocuspocus.documents.get(name)!
      there.transact(() => there.getText('text').insert(0, 'lost '), '__hocuspocus__redis__origin__')
      await waitFor(() => held[0]!.doc.getText('text').toString() === 'lost base\n', 'the change on server 1')
      await new Promise((done) => setTimeout(done, 900))
      // Nothing heals it by itself (as with the upstream extension, until the document changes).
      expect(held[1]!.doc.getText('text').toString()).toBe('base\n')
      t.seen.length = 0
      held[0]!.doc.getText('text').insert(held[0]!.doc.getText('text').length, 'more\n')
      await waitFor(
        () => held[1]!.doc.getText('text').toString() === 'lost base\nmore\n',
        'the lost change and the new one on server 2',
      )
      // The new change crossed as its update; the lost one through the handshake after it.
      const after = kinds()
      expect(after[0]).toBe('update')
      expect(after).toContain('step 1')
      expect(after).toContain('step 2')
    } finally {
      for (const h of held) h.release()
    }
  })
})
