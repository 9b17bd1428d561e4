// Hocuspocus sends every update it applies to every connection of the document, the writer's
// own included; the socket guard drops the copy back to the writer when it carries the very bytes
// the writer sent (protocol/own-updates.ts). Real server, real providers over real sockets.
import type { HocuspocusProvider } from '@hocuspocus/provider'
import * as decoding from 'lib0/decoding'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createTestClient, startTestServer, synced, type TestServer, waitFor } from './helpers.js'

const WS = 'echoes'

/** The sync updates (not steps) `provider` receives, as their update bytes. */
function receivedUpdates(provider: HocuspocusProvider): Uint8Array[] {
  const got: Uint8Array[] = []
  provider.on('message', ({ event }: { event: MessageEvent }) => {
    const decoder = decoding.createDecoder(new Uint8Array(event.data as ArrayBuffer))
    decoding.readVarString(decoder)
    if (decoding.readVarUint(decoder) !== 0 || decoding.readVarUint(decoder) !== 2) return
    got.push(decoding.readVarUint8Array(decoder))
  })
  return got
}

/** The updates `doc` makes itself (what its provider sends). */
function ownUpdates(doc: Y.Doc, provider: () => HocuspocusProvider): Uint8Array[] {
  const sent: Uint8Array[] = []
  doc.on('update', (update: Uint8Array, origin: unknown) => {
    if (origin !== provider()) sent.push(update)
  })
  return sent
}

const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b))

describe('a writer does not get its own updates back', () => {
  let t: TestServer
  let token: string

  beforeAll(async () => {
    t = await startTestServer()
    token = (await t.workspace(WS)).write
  })
  afterAll(() => t.close())

  it('the writer receives none of its own updates; a peer receives them, and the writer the peer’s', async () => {
    const a = createTestClient(t.url, token)
    const b = createTestClient(t.url, token)
    try {
      const aDoc = new Y.Doc()
      let aProvider!: HocuspocusProvider
      const aSent = ownUpdates(aDoc, () => aProvider)
      aProvider = a.open(WS, aDoc)
      const aGot = receivedUpdates(aProvider)
      const bProvider = b.open(WS)
      const bGot = receivedUpdates(bProvider)
      await synced(aProvider)
      await synced(bProvider)

      for (let i = 0; i < 20; i++) aDoc.getMap('notes').set(`k${i}`, `value ${i}`)
      await synced(aProvider)
      await waitFor(() => bProvider.document.getMap('notes').size === 20, "a's notes on b")
      expect(aSent).toHaveLength(20)
      // b got every update a sent, byte for byte; a got none of them back.
      for (const u of aSent) expect(bGot.some((g) => same(g, u))).toBe(true)
      expect(aGot.filter((g) => aSent.some((u) => same(g, u)))).toEqual([])

      // A large update too (a batch's rows: 90 KB for 1,000 new files), in one transaction.
      aDoc.transact(() => {
        for (let i = 0; i < 2_000; i++) aDoc.getMap('notes').set(`row${i}`, { name: `f${i}.txt`, size: i })
      })
      await synced(aProvider)
      await waitFor(() => bProvider.document.getMap('notes').size === 2_020, "a's rows on b")
      const large = aSent.at(-1)!
      expect(large.byteLength).toBeGreaterThan(64 * 1024)
      expect(bGot.some((g) => same(g, large))).toBe(true)
      expect(aGot.filter((g) => aSent.some((u) => same(g, u)))).toEqual([])

      // The peer's updates still reach the writer.
      bProvider.document.getMap('notes').set('from-b', 'hello')
      await waitFor(() => aDoc.getMap('notes').get('from-b') === 'hello', "b's note on a")
      expect(aGot.length).toBeGreaterThan(0)

      // The server has all of it.
      const c = createTestClient(t.url, token)
      try {
        const fresh = c.open(WS)
        await synced(fresh)
        expect(fresh.document.getMap('notes').toJSON()).toEqual(aDoc.getMap('notes').toJSON())
      } finally {
        c.destroy()
      }
    } finally {
      a.destroy()
      b.destroy()
    }
  })
})
