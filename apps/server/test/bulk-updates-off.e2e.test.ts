// A scaled-out server of an earlier version answered every bulk `update` with BULK_UPDATES_OFF
// (its processes could not carry them to one another). Servers of this version always take them,
// so a stand-in for that server here: a real one whose first stateless hook answers `update` as it
// did and hides the request from the rest. Against it, @yfs/client's overwrites of files whose docs
// are not open go through each doc instead (nothing lost, a fresh client reads them), and its bulk
// channel stops asking once told (one refused request, then refused without a round trip).
import type { Extension, onStatelessPayload } from '@hocuspocus/server'
import { connectWorkspace, createBulkChannel, type WorkspaceConnection } from '@yfs/client'
import { BULK_UPDATES_OFF, decodeBulkMessage, encodeBulkMessage } from '@yfs/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer, textInsertOn } from './helpers.js'

describe('a server that answers bulk updates with BULK_UPDATES_OFF', () => {
  let t: TestServer
  let tokens: { write: string; read: string }
  let refused = 0
  const open: WorkspaceConnection[] = []
  const connect = async () => {
    const c = await connectWorkspace({ url: t.url, workspace: 'off', token: tokens.write })
    open.push(c)
    return c
  }

  const earlierScaledOutServer: Extension = {
    extensionName: 'earlier-scaled-out-server',
    // Before the bulk-content extension (default priority 100), which must not see the request.
    priority: 1000,
    async onStateless(data: onStatelessPayload) {
      const message = decodeBulkMessage(data.payload)
      if (message?.op !== 'update') return
      refused++
      data.payload = ''
      data.connection.sendStateless(
        encodeBulkMessage({ op: 'updated', req: message.req, error: BULK_UPDATES_OFF }),
      )
    },
  }

  beforeAll(async () => {
    t = await startTestServer({ extensions: [earlierScaledOutServer] })
    tokens = await t.workspace('off')
  })

  afterAll(async () => {
    for (const c of open) await c.close()
    await t.close()
  })

  it("a batch's overwrites of files whose docs are not open go through each doc: a fresh client reads them all", async () => {
    const c = await connect()
    const paths = Array.from({ length: 12 }, (_, i) => `/off/f${i}.txt`)
    await c.fs.writeTree(paths.map((path) => ({ path, content: 'old\n' })))
    await c.flush()
    c.fs.pool.evictIdle(true)
    const before = refused
    await c.fs.batch(async () => {
      for (const path of paths) await c.fs.writeFile(path, 'new\n')
    })
    // The batch asked once, was told, and wrote through the docs.
    expect(refused).toBe(before + 1)
    expect(await c.fs.readFile(paths[5]!)).toBe('new\n')
    await c.flush()
    const fresh = await connect()
    for (const path of paths) expect(await fresh.fs.readFile(path)).toBe('new\n')
    expect((await fresh.fs.history(paths[0]!)).map((v) => v.reason)).toEqual(['write', 'write'])
  })

  it('the bulk channel asks once: after BULK_UPDATES_OFF it refuses updates without a round trip, and still loads', async () => {
    const c = await connect()
    await c.fs.writeTree([{ path: '/chan/f.txt', content: 'kept' }])
    await c.flush()
    const id = c.fs.index.lookup('/chan/f.txt')!
    const stored = await t.store.load('off', `off/${id}`)
    const change = textInsertOn(stored!, 4, ' changed')

    const channel = createBulkChannel(c.main, { timeoutMs: 10_000 })
    const before = refused
    await expect(channel.update([{ id, update: change }])).rejects.toThrow(BULK_UPDATES_OFF)
    expect(refused).toBe(before + 1)
    await expect(channel.update([{ id, update: change }])).rejects.toThrow(BULK_UPDATES_OFF)
    expect(refused).toBe(before + 1)
    // Nothing was stored by the refused requests; loads still go in bulk.
    expect(await t.store.load('off', `off/${id}`)).toEqual(stored)
    expect(await channel.load([id])).toEqual([stored])
    channel.destroy()
  })
})
