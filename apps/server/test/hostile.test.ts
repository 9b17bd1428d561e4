// Hostile clients: garbage bytes, invalid Yjs updates, text frames, oversized frames. Each closes
// only its own socket; the server keeps serving and the stored state stays loadable and unchanged.
import fc from 'fast-check'
import * as encoding from 'lib0/encoding'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createTestClient, startTestServer, synced, type TestServer, waitFor } from './helpers.js'
import { authFrame, openRawSocket, updateFrame } from './raw-socket.js'

describe('hostile messages', () => {
  let t: TestServer
  let token: string
  let baseline: string

  beforeAll(async () => {
    t = await startTestServer({ maxMessageBytes: 64 * 1024 })
    token = (await t.workspace('h')).write
    const client = createTestClient(t.url, token)
    const main = client.open('h')
    await synced(main)
    main.document.getText('text').insert(0, 'baseline')
    await synced(main)
    client.destroy()
    baseline = 'baseline'
  })
  afterAll(() => t.close())

  async function assertHealthy(): Promise<void> {
    const response = await fetch(`http://127.0.0.1:${t.port}/healthz`)
    expect(response.status).toBe(200)
    const client = createTestClient(t.url, token)
    try {
      const main = client.open('h')
      await synced(main)
      expect(main.document.getText('text').toString()).toBe(baseline)
    } finally {
      client.destroy()
    }
    const doc = new Y.Doc()
    Y.applyUpdate(doc, (await t.store.load('h', 'h'))!)
    expect(doc.getText('text').toString()).toBe(baseline)
  }

  it('garbage bytes before authentication close the socket (property)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 300 }), async (bytes) => {
        const raw = await openRawSocket(t.url)
        raw.send(bytes)
        // Send again until the server reacts: some prefixes are valid headers of queued frames.
        raw.send(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff]))
        // Either frame may be the one refused (a random prefix can be a well-formed frame), but
        // the socket is always closed by the guard (malformed, too large, too many, or a
        // broadcast), never by a crash.
        const { code } = await raw.closed
        expect([4400, 4403, 4413, 4429]).toContain(code)
      }),
      { seed: 42, numRuns: 40 },
    )
    await assertHealthy()
  })

  it('invalid Yjs updates after authentication close the socket and are not stored (property)', async () => {
    const before = await t.store.logLength('h', 'h')
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 3, maxLength: 200 }), async (bytes) => {
        fc.pre(
          !(() => {
            try {
              Y.applyUpdate(new Y.Doc(), bytes)
              return true
            } catch {
              return false
            }
          })(),
        )
        const raw = await openRawSocket(t.url)
        raw.send(authFrame('h', token))
        raw.send(updateFrame('h', bytes))
        const { code, reason } = await raw.closed
        expect(code).toBe(4400)
        expect(reason).toBe('invalid update')
      }),
      { seed: 7, numRuns: 30 },
    )
    expect(await t.store.logLength('h', 'h')).toBe(before)
    await assertHealthy()
  })

  it('truncated frames, unknown types and text frames close the socket', async () => {
    for (const frame of [
      new Uint8Array([5, 0x68]), // doc name length 5, one byte
      new Uint8Array([1, 0x68, 99]), // unknown message type 99
      'hello',
    ]) {
      const raw = await openRawSocket(t.url)
      raw.send(frame)
      expect((await raw.closed).code).toBe(4400)
    }
    await assertHealthy()
  })

  it('a stateless payload that is not a whole string of valid UTF-8 closes the socket', async () => {
    const frame = (declared: number, bytes: number[]) => {
      const e = encoding.createEncoder()
      encoding.writeVarString(e, 'h')
      encoding.writeVarUint(e, 5) // Stateless
      encoding.writeVarUint(e, declared)
      encoding.writeUint8Array(e, new Uint8Array(bytes))
      return encoding.toUint8Array(e)
    }
    for (const bad of [
      frame(3, [0xff, 0xfe, 0x41]), // not UTF-8
      frame(2, [0xc3, 0x28]), // a two-byte sequence broken off
      frame(100, [0x41, 0x42, 0x43]), // longer than the frame
    ]) {
      const raw = await openRawSocket(t.url)
      raw.send(authFrame('h', token))
      raw.send(bad)
      expect(await raw.closed).toEqual({ code: 4400, reason: 'malformed message' })
    }
    await assertHealthy()
  })

  it('a message over the size cap closes the socket with 1009', async () => {
    const raw = await openRawSocket(t.url)
    raw.send(authFrame('h', token))
    raw.send(updateFrame('h', new Uint8Array(128 * 1024)))
    expect((await raw.closed).code).toBe(1009)
    await assertHealthy()
  })

  it('a huge valid update within the cap is fine', async () => {
    const client = createTestClient(t.url, token)
    try {
      const main = client.open('h')
      await synced(main)
      const doc = new Y.Doc()
      doc.getText('other').insert(0, 'x'.repeat(32 * 1024))
      Y.applyUpdate(main.document, Y.encodeStateAsUpdate(doc))
      await synced(main)
      await waitFor(async () => (await t.store.logLength('h', 'h')) > 0, 'stored')
    } finally {
      client.destroy()
    }
    await assertHealthy()
  })
})
