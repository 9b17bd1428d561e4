// Fuzz of the socket guard (issue 26): random sequences of frames of every type, length and
// nesting, before and after authentication, from sockets holding a read token, a wrong token, an
// oversized one or none. Whatever they send: the server keeps serving a legitimate client after
// every run, stores nothing they sent, and its live heap stays under a bound.
import { connectWorkspace } from '@yfs/client'
import { BULK_VERSION } from '@yfs/protocol'
import fc from 'fast-check'
import * as encoding from 'lib0/encoding'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import { startTestServer, type TestServer, waitFor } from './helpers.js'
import {
  authFrame,
  awarenessFrame,
  awarenessUpdate,
  nestedJson,
  openRawSocket,
  statelessFrame,
  updateFrame,
} from './raw-socket.js'

const WS = 'fz'
const MiB = 1024 * 1024
const RUNS = Number(process.env.YFS_FUZZ_RUNS ?? 150)

function liveHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with --expose-gc (apps/server/vitest.config.ts)')
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/** A frame whose header is `docName` and `type`, followed by `body`. */
function rawFrame(docName: string, type: number, body: Uint8Array): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarString(e, docName)
  encoding.writeVarUint(e, type)
  encoding.writeUint8Array(e, body)
  return encoding.toUint8Array(e)
}

/** A small valid update (an insert into a text of a fresh doc). */
function validUpdate(text: string): Uint8Array {
  const doc = new Y.Doc()
  doc.getText('fuzz').insert(0, text)
  return Y.encodeStateAsUpdate(doc)
}

type Frame = Uint8Array | string

function frameArbitrary(tokens: { read: string }, fileId: string): fc.Arbitrary<Frame> {
  const docName = fc.oneof(
    fc.constant(WS),
    fc.constant(`${WS}/${fileId}`),
    fc.constant(`${WS}/noSuchFileAAAAAA`),
    fc.string({ maxLength: 40 }),
    fc.constantFrom('constructor', '__proto__', 'toString', '../x', ''),
    fc.integer({ min: 200, max: 5000 }).map((n) => 'd'.repeat(n)),
  )
  const token = fc.oneof(
    fc.constant(tokens.read),
    fc.constant('yfs_wrong'),
    fc.constant(''),
    fc.integer({ min: 1000, max: 200_000 }).map((n) => 't'.repeat(n)),
  )
  const state = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
    fc.integer({ min: 1, max: 5000 }).map((depth) => `{"a":${nestedJson(depth)}}`),
    fc.integer({ min: 1, max: 100 * 1024 }).map((n) => JSON.stringify('s'.repeat(n))),
    fc.string({ maxLength: 30 }),
  )
  return fc.oneof(
    fc.tuple(docName, token).map(([d, t]) => authFrame(d, t)),
    fc.tuple(docName, fc.uint8Array({ maxLength: 300 })).map(([d, bytes]) => updateFrame(d, bytes)),
    fc.tuple(docName, fc.string({ maxLength: 40 })).map(([d, text]) => updateFrame(d, validUpdate(text))),
    fc
      .tuple(docName, fc.array(fc.tuple(fc.nat(50), fc.nat(5), state), { maxLength: 12 }))
      .map(([d, entries]) => awarenessFrame(d, awarenessUpdate(entries))),
    fc
      .tuple(docName, fc.string({ maxLength: 200 }), fc.boolean())
      .map(([d, p, b]) => statelessFrame(d, p, b)),
    fc
      .tuple(docName, fc.array(fc.constantFrom(fileId, 'x', 'noSuchFileAAAAAA'), { maxLength: 1500 }))
      .map(([d, ids]) => statelessFrame(d, JSON.stringify({ v: BULK_VERSION, op: 'load', req: 1, ids }))),
    fc.tuple(docName, fc.constantFrom(fileId, 'x')).map(([d, id]) =>
      statelessFrame(
        d,
        JSON.stringify({
          v: BULK_VERSION,
          op: 'store',
          req: 2,
          docs: [[id, Buffer.from(validUpdate('s')).toString('base64')]],
        }),
      ),
    ),
    fc
      .tuple(docName, fc.integer({ min: 0, max: 12 }), fc.uint8Array({ maxLength: 64 }))
      .map(([d, t, b]) => rawFrame(d, t, b)),
    fc.uint8Array({ minLength: 1, maxLength: 64 }),
    fc.string({ maxLength: 20 }),
  )
}

describe('socket guard fuzz', () => {
  let t: TestServer
  let tokens: { write: string; read: string }
  let fileId: string

  beforeAll(async () => {
    t = await startTestServer({ maxMessageBytes: 2 * MiB, limits: { authTimeoutMs: 2000 } })
    tokens = await t.workspace(WS)
    const writer = await connectWorkspace({ url: t.url, workspace: WS, token: tokens.write })
    await writer.fs.writeFile('/kept.txt', 'kept\n')
    await writer.flush()
    fileId = writer.fs.index.lookup('/kept.txt')!
    await writer.close()
  })
  afterAll(() => t.close())

  it('random frames from untrusted sockets: the server serves, stores nothing of theirs, and stays bounded', async () => {
    // What is stored, as state vectors (compaction rewrites the log, not the state).
    const stored = async (name: string) => {
      const doc = new Y.Doc()
      const state = await t.store.load(WS, name)
      if (state) Y.applyUpdate(doc, state)
      return Y.encodeStateVector(doc)
    }
    const mainState = await stored(WS)
    const contentState = await stored(`${WS}/${fileId}`)
    const sockets = t.server.stats().sockets
    const before = liveHeap()
    // Hocuspocus writes a stack trace to stderr for a frame it cannot read: the guard lets none through.
    const stderr = vi.spyOn(console, 'error')
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(frameArbitrary(tokens, fileId), fc.constantFrom(0, 0, 0, 1, 5)), {
          minLength: 1,
          maxLength: 25,
        }),
        async (frames) => {
          const raw = await openRawSocket(t.url)
          for (const [frame, pause] of frames) {
            if (raw.ws.readyState !== WebSocket.OPEN) break
            raw.send(frame)
            if (pause) await new Promise((resolve) => setTimeout(resolve, pause))
          }
          raw.ws.close()
          await raw.closed
          // Every few runs, a legitimate client still reads, writes and flushes.
          if (run++ % 10 === 0) {
            const a = await connectWorkspace({ url: t.url, workspace: WS, token: tokens.write })
            try {
              expect(await a.fs.readFile('/kept.txt')).toBe('kept\n')
            } finally {
              await a.close()
            }
          }
        },
      ),
      { numRuns: RUNS, seed: 26 },
    )
    expect(stderr.mock.calls).toEqual([])
    stderr.mockRestore()
    // Nothing a reader or a stranger sent was stored.
    expect(await stored(WS)).toEqual(mainState)
    expect(await stored(`${WS}/${fileId}`)).toEqual(contentState)
    await waitFor(() => t.server.stats().sockets <= sockets, 'the fuzz sockets to close')
    expect(liveHeap() - before).toBeLessThan(48 * MiB)

    const a = await connectWorkspace({ url: t.url, workspace: WS, token: tokens.write })
    try {
      await a.fs.writeFile('/after-fuzz.txt', 'written after the fuzz\n')
      await a.flush()
      expect(await a.fs.readFile('/kept.txt')).toBe('kept\n')
    } finally {
      await a.close()
    }
  })
})
