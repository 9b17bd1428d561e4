// Hostile token holders (issue 26): a read token, or no token at all, must not crash the server,
// wedge a workspace, forge content into others' files, fill memory or flood the log. One test per
// finding, each against a real server (SQLite, real sockets); after each, a legitimate client
// connects, reads, writes and flushes.
import { fileURLToPath } from 'node:url'
import type { Extension } from '@hocuspocus/server'
import { connectWorkspace } from '@yfs/client'
import { spawnProcess } from '@yfs/core/testing'
import { BULK_ASK_AGAIN, BULK_VERSION, decodeBulkMessage } from '@yfs/protocol'
import { Bash } from 'just-bash'
import * as encoding from 'lib0/encoding'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import { createLogger, type Logger } from '../src/logger.js'
import { createTestClient, startTestServer, synced, type TestServer, waitFor } from './helpers.js'
import {
  authFrame,
  awarenessFrame,
  awarenessUpdate,
  nestedJson,
  openAuthenticated,
  openRawSocket,
  statelessFrame,
} from './raw-socket.js'

const WS = 'hx'
const MiB = 1024 * 1024

/** Heap in use after a full collection (the server runs in this process; vitest passes --expose-gc). */
function liveHeap(): number {
  const gc = (globalThis as { gc?: () => void }).gc
  if (!gc) throw new Error('run with --expose-gc (apps/server/vitest.config.ts)')
  gc()
  gc()
  return process.memoryUsage().heapUsed
}

/** A logger keeping every line, for tests of what the log holds. */
function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = []
  return { logger: createLogger({ level: 'debug', write: (line) => lines.push(line) }), lines }
}

/** A legitimate client connects, reads what is there, writes, flushes, and a fresh client reads it back. */
async function assertServes(t: TestServer, token: string, note: string): Promise<void> {
  const a = await connectWorkspace({ url: t.url, workspace: WS, token })
  try {
    await a.fs.writeFile(`/alive-${note}.txt`, `still serving: ${note}`)
    await a.flush()
  } finally {
    await a.close()
  }
  const b = await connectWorkspace({ url: t.url, workspace: WS, token })
  try {
    expect(await b.fs.readFile(`/alive-${note}.txt`)).toBe(`still serving: ${note}`)
  } finally {
    await b.close()
  }
}

const bulkLoad = (req: number, ids: string[]) => JSON.stringify({ v: BULK_VERSION, op: 'load', req, ids })

describe('hostile token holders', () => {
  let t: TestServer
  let tokens: { write: string; read: string }
  const log = capturingLogger()

  beforeAll(async () => {
    t = await startTestServer({ logger: log.logger })
    tokens = await t.workspace(WS)
  })
  afterAll(() => t.close())

  it('1. a read token asking for one 2 MiB file 300 times gets an error reply, and the server lives', async () => {
    const writer = await connectWorkspace({ url: t.url, workspace: WS, token: tokens.write })
    const big = new Uint8Array(2 * MiB).map((_, i) => (i * 7919) % 251)
    await writer.fs.writeFile('/big.bin', big)
    await writer.flush()
    const id = writer.fs.index.lookup('/big.bin')!
    await writer.close()

    const reader = await openAuthenticated(t.url, WS, tokens.read)
    reader.send(statelessFrame(WS, bulkLoad(1, Array(300).fill(id))))
    const reply = decodeBulkMessage((await reader.next((f) => f.type === 5)).text!)
    expect(reply).toMatchObject({ op: 'loaded', req: 1, docs: [], error: 'an id is asked for twice' })

    // Over the id cap: refused as a whole, without echoing the ids.
    const many = Array.from({ length: 1001 }, (_, k) => `id${k}`)
    reader.send(statelessFrame(WS, bulkLoad(2, many)))
    const refused = await reader.next((f) => f.type === 5 && decodeBulkMessage(f.text!)?.req === 2)
    expect(refused.bytes).toBeLessThan(200)
    expect(decodeBulkMessage(refused.text!)).toMatchObject({ error: 'more than 1000 ids' })

    // Once: the file itself still loads, whole.
    reader.send(statelessFrame(WS, bulkLoad(3, [id])))
    const one = decodeBulkMessage(
      (await reader.next((f) => f.type === 5 && f.text!.includes('"req":3'))).text!,
    )
    expect(one?.op === 'loaded' && one.docs[0]![1]!.byteLength).toBeGreaterThan(2 * MiB)
    reader.ws.close()
    await assertServes(t, tokens.write, 'big-load')
  })

  it('2. a reader broadcasting forged bulk replies is cut off, and a writer reads the real content', async () => {
    const writer = await connectWorkspace({ url: t.url, workspace: WS, token: tokens.write })
    await writer.fs.mkdir('/forge', { recursive: true })
    await writer.fs.writeFile('/forge/real.txt', 'the real text\n')
    await writer.flush()
    const id = writer.fs.index.lookup('/forge/real.txt')!
    await writer.close()

    const forged = new Y.Doc()
    forged.getText('text').insert(0, 'FORGED\n')
    const state = Buffer.from(Y.encodeStateAsUpdate(forged)).toString('base64')
    const reader = await openAuthenticated(t.url, WS, tokens.read)
    // Old clients numbered requests 1, 2, 3…: answer all of them, broadcast to every connection.
    const spam = setInterval(() => {
      for (let req = 1; req <= 20; req++)
        reader.send(
          statelessFrame(
            WS,
            JSON.stringify({ v: BULK_VERSION, op: 'loaded', req, docs: [[id, state]] }),
            true,
          ),
        )
    }, 2)
    try {
      const victim = await connectWorkspace({ url: t.url, workspace: WS, token: tokens.write })
      try {
        expect(await victim.fs.readFile('/forge/real.txt')).toBe('the real text\n')
      } finally {
        await victim.close()
      }
    } finally {
      clearInterval(spam)
    }
    expect(await reader.closed).toEqual({ code: 4403, reason: 'broadcast messages are not accepted' })
  })

  it('2b. a client takes a bulk reply only for a request it sent, with the same operation', async () => {
    // A writer's own stateless message, sent directly (not a broadcast), cannot answer another client:
    // the server relays nothing, so the only direct replies a client gets are the server's own.
    const writer = await connectWorkspace({ url: t.url, workspace: WS, token: tokens.write })
    await writer.fs.mkdir('/forge', { recursive: true })
    await writer.fs.writeFile('/forge/second.txt', 'second\n')
    await writer.flush()
    await writer.close()
    const raw = await openAuthenticated(t.url, WS, tokens.write)
    raw.send(statelessFrame(WS, JSON.stringify({ v: BULK_VERSION, op: 'loaded', req: 1, docs: [] })))
    const fresh = await connectWorkspace({ url: t.url, workspace: WS, token: tokens.read })
    try {
      expect(await fresh.fs.readFile('/forge/second.txt')).toBe('second\n')
    } finally {
      await fresh.close()
      raw.ws.close()
    }
  })

  it('3a. auth frames with huge tokens are refused before any lookup; memory stays bounded', async () => {
    const before = liveHeap()
    for (let k = 0; k < 60; k++) {
      const raw = await openRawSocket(t.url)
      raw.send(authFrame(WS, `${k}`.padEnd(2 * MiB, 'x')))
      expect(await raw.closed).toEqual({ code: 4413, reason: 'token too long' })
    }
    // 120 MiB of tokens sent; what stays is bounded (before: ~1 byte kept per byte sent).
    expect(liveHeap() - before).toBeLessThan(24 * MiB)
    await assertServes(t, tokens.write, 'huge-tokens')
  })

  it('3b. frames for a document that never authenticates are bounded; the socket is closed', async () => {
    const before = liveHeap()
    // No auth at all: presence frames pile up in Hocuspocus's queue until the budget closes the socket.
    const silent = await openRawSocket(t.url)
    const state = JSON.stringify({ user: 'x'.repeat(60 * 1024) })
    for (let k = 0; k < 200 && silent.ws.readyState === WebSocket.OPEN; k++)
      silent.send(awarenessFrame(WS, awarenessUpdate([[1, k + 1, state]])))
    expect(await silent.closed).toEqual({ code: 4429, reason: 'too many messages before authentication' })

    // Refused auth: what follows for that document is dropped, not queued for the life of the socket.
    const refused = await openRawSocket(t.url)
    refused.send(authFrame(WS, 'yfs_not-a-token'))
    expect((await refused.next((f) => f.auth !== undefined)).auth).toBe('denied')
    const payload = new Uint8Array(MiB)
    for (let k = 0; k < 100; k++) {
      const e = encoding.createEncoder()
      encoding.writeVarString(e, WS)
      encoding.writeVarUint(e, 0)
      encoding.writeVarUint(e, 0) // sync step 1 (a state vector): never validated, only queued
      encoding.writeVarUint8Array(e, payload)
      refused.send(encoding.toUint8Array(e))
    }
    // A round trip: every frame above has been read by the server.
    refused.send(authFrame(`${WS}-other`, 'yfs_not-a-token'))
    await refused.next((f) => f.docName === `${WS}-other` && f.auth !== undefined)
    expect(liveHeap() - before).toBeLessThan(24 * MiB)
    refused.ws.close()
    await assertServes(t, tokens.write, 'early-frames')
  })

  it('3c. y-websocket: frames sent while the server waits for a file row are bounded', async () => {
    const url = `${t.url}/yws/${WS}/notYetAFileAAAAA?token=${tokens.write}`
    const raw = await openRawSocket(url)
    // The budget is one largest message (a new file's whole first content) plus maxEarlyBytes: 20 MiB.
    const frame = new Uint8Array(MiB)
    for (let k = 0; k < 30 && raw.ws.readyState === WebSocket.OPEN; k++) raw.send(frame)
    // Before: up to 1,000 frames of 16 MiB were kept until the 2 s wait ended (4401, no such file).
    expect(await raw.closed).toEqual({ code: 4429, reason: 'too many messages before sync' })
    await assertServes(t, tokens.write, 'yws-early')
  })

  it('4. a presence state nested 100,000 levels deep is refused; new clients still connect', async () => {
    const reader = await openAuthenticated(t.url, WS, tokens.read)
    reader.send(awarenessFrame(WS, awarenessUpdate([[4242, 1, nestedJson(100_000)]])))
    // The same through y-websocket, which shares the documents' awareness.
    const yws = await openRawSocket(`${t.url}/yws/${WS}?token=${tokens.read}`)
    const e = encoding.createEncoder()
    encoding.writeVarUint(e, 1)
    encoding.writeVarUint8Array(e, awarenessUpdate([[4343, 1, nestedJson(100_000)]]))
    yws.send(encoding.toUint8Array(e))

    // Before: every new client of the workspace failed (permission-denied) while the state was stored.
    const client = createTestClient(t.url, tokens.write)
    try {
      await synced(client.open(WS), 5000)
    } finally {
      client.destroy()
    }
    // ~200 KB: over the size bound before its depth is looked at.
    expect(await reader.closed).toEqual({ code: 4413, reason: 'presence state too large' })
    expect(await yws.closed).toEqual({ code: 4413, reason: 'presence state too large' })
    // Small but deep: refused for its depth.
    const deep = await openAuthenticated(t.url, WS, tokens.read)
    deep.send(awarenessFrame(WS, awarenessUpdate([[4444, 1, `{"a":${nestedJson(1000)}}`]])))
    expect(await deep.closed).toEqual({ code: 4413, reason: 'presence state nested too deep' })
    await assertServes(t, tokens.write, 'nested-presence')
  })

  it('4b. presence states are re-encoded and bounded in size and client ids', async () => {
    const big = await openAuthenticated(t.url, WS, tokens.read)
    big.send(awarenessFrame(WS, awarenessUpdate([[5000, 1, JSON.stringify({ x: 'y'.repeat(70 * 1024) })]])))
    expect(await big.closed).toEqual({ code: 4413, reason: 'presence state too large' })

    const ids = await openAuthenticated(t.url, WS, tokens.read)
    for (let k = 0; k < 9; k++) ids.send(awarenessFrame(WS, awarenessUpdate([[6000 + k, 1, '{"a":1}']])))
    expect(await ids.closed).toEqual({ code: 4429, reason: 'too many presence ids' })

    const notJson = await openAuthenticated(t.url, WS, tokens.read)
    notJson.send(awarenessFrame(WS, awarenessUpdate([[7000, 1, '{"a":']])))
    expect(await notJson.closed).toEqual({ code: 4400, reason: 'invalid presence update' })

    // A reader's presence is shown to others, as written (re-encoded: the same JSON value).
    const watcher = createTestClient(t.url, tokens.write)
    const shown = await openAuthenticated(t.url, WS, tokens.read)
    try {
      const provider = watcher.open(WS)
      await synced(provider)
      shown.send(awarenessFrame(WS, awarenessUpdate([[8000, 1, '{ "user" : { "name": "reader" } }']])))
      await waitFor(() => provider.awareness!.getStates().get(8000), 'the reader presence')
      expect(provider.awareness!.getStates().get(8000)).toEqual({ user: { name: 'reader' } })
      // Nobody else can replace that presence, not even with a newer clock.
      const spoofer = await openAuthenticated(t.url, WS, tokens.write)
      spoofer.send(awarenessFrame(WS, awarenessUpdate([[8000, 99, '{"user":{"name":"spoofed"}}']])))
      shown.send(awarenessFrame(WS, awarenessUpdate([[8000, 2, '{"user":{"name":"reader again"}}']])))
      await waitFor(
        () =>
          (provider.awareness!.getStates().get(8000) as { user: { name: string } }).user.name ===
          'reader again',
        "the owner's second state",
      )
      spoofer.ws.close()
    } finally {
      watcher.destroy()
      shown.ws.close()
    }
  })

  it("4c. clients relaying everyone else's presence are not charged for it", async () => {
    const clients = Array.from({ length: 12 }, () => createTestClient(t.url, tokens.write))
    const start = log.lines.length
    try {
      const providers = clients.map((c) => c.open(WS))
      for (const [k, p] of providers.entries()) {
        p.setAwarenessField('user', { name: `person ${k}` })
        await synced(p)
      }
      // Every client sees every other one: each relayed the others' states, and none was cut off.
      for (const p of providers) await waitFor(() => p.awareness!.getStates().size >= 12, 'all presences')
      expect(log.lines.slice(start).filter((line) => line.includes('socket refused'))).toEqual([])
    } finally {
      for (const c of clients) c.destroy()
    }
  })

  it('6. refusals are logged once per socket, with lengths, never with what the client sent', async () => {
    const start = log.lines.length
    const name = 'n'.repeat(MiB)
    for (let k = 0; k < 20; k++) {
      const raw = await openRawSocket(t.url)
      raw.send(authFrame(`${k}${name}`, tokens.write))
      expect(await raw.closed).toEqual({ code: 4413, reason: 'document name too long' })
    }
    // Many refused documents on one socket: one line, then the socket is closed at the limit.
    const many = await openRawSocket(t.url)
    for (let k = 0; k < 150; k++) many.send(authFrame(`${WS}${'z'.repeat(200)}${k}`, 'yfs_not-a-token'))
    expect(await many.closed).toEqual({ code: 4429, reason: 'too many refused documents' })
    const written = log.lines.slice(start)
    // What a server at its default level (info) writes; debug lines are looked at for contents only.
    const bytes = written
      .filter((line) => !line.includes('"level":"debug"'))
      .reduce((sum, line) => sum + line.length, 0)
    // Before: each auth frame logged its whole document name (~20 MiB here).
    expect(bytes).toBeLessThan(16 * 1024)
    expect(written.some((line) => line.includes('nnnnnnnn') || line.includes('zzzzzzzz'))).toBe(false)
    const warned = written.filter(
      (line) => !line.includes('"level":"debug"') && line.includes('"auth refused"'),
    )
    expect(warned.length).toBeLessThanOrEqual(2)
  })
})

describe('the authentication deadline', () => {
  it('3b. a socket with no authenticated document is closed after the deadline', async () => {
    const t = await startTestServer({ limits: { authTimeoutMs: 1000 } })
    try {
      const tokens = await t.workspace(WS)
      const idle = await openRawSocket(t.url)
      const started = Date.now()
      expect(await idle.closed).toEqual({ code: 4401, reason: 'not authenticated in time' })
      expect(Date.now() - started).toBeGreaterThanOrEqual(900)
      // Refused auth does not count as authenticated.
      const denied = await openRawSocket(t.url)
      denied.send(authFrame(WS, 'yfs_not-a-token'))
      expect((await denied.closed).code).toBe(4401)
      // An authenticated socket stays past the deadline.
      const client = createTestClient(t.url, tokens.write)
      try {
        const main = client.open(WS)
        await synced(main)
        await new Promise((resolve) => setTimeout(resolve, 1500))
        main.document.getText('t').insert(0, 'after the deadline')
        await synced(main)
      } finally {
        client.destroy()
      }
    } finally {
      await t.close()
    }
  })
})

describe('bounded bulk replies', () => {
  let t: TestServer
  let tokens: { write: string; read: string }

  beforeAll(async () => {
    t = await startTestServer({ limits: { maxBulkReplyBytes: 256 * 1024 } })
    tokens = await t.workspace(WS)
  })
  afterAll(() => t.close())

  it('a reply past the size limit answers the rest "ask again", and the client asks until it has all', async () => {
    const writer = await connectWorkspace({ url: t.url, workspace: WS, token: tokens.write })
    const files = Array.from({ length: 8 }, (_, k) => ({
      path: `/bulk/f${k}.txt`,
      content: `${`file ${k} `.repeat(10_000)}needle\n`,
    }))
    await writer.fs.writeTree(files)
    await writer.flush()
    const ids = files.map((f) => writer.fs.index.lookup(f.path)!)
    await writer.close()

    const raw = await openAuthenticated(t.url, WS, tokens.read)
    raw.send(statelessFrame(WS, bulkLoad(9, ids)))
    const reply = decodeBulkMessage((await raw.next((f) => f.type === 5)).text!)
    if (reply?.op !== 'loaded') throw new Error('expected a loaded reply')
    const sent = reply.docs.filter(([, state]) => state !== null)
    expect(sent.length).toBeGreaterThanOrEqual(1)
    expect(sent.length).toBeLessThan(ids.length)
    expect(sent.reduce((sum, [, state]) => sum + state!.byteLength, 0)).toBeLessThanOrEqual(256 * 1024)
    expect(
      reply.docs.slice(sent.length).every(([, state, reason]) => !state && reason === BULK_ASK_AGAIN),
    ).toBe(true)
    raw.ws.close()

    const reader = await connectWorkspace({ url: t.url, workspace: WS, token: tokens.read })
    try {
      const out = await new Bash({ fs: reader.fs, cwd: '/' }).exec('grep -rl needle /bulk | sort')
      expect(out.stdout.split('\n').filter(Boolean)).toEqual(files.map((f) => f.path).sort())
      for (const f of files) expect(await reader.fs.readFile(f.path)).toBe(f.content)
    } finally {
      await reader.close()
    }
  })
})

describe('failures in handlers are contained', () => {
  it('a stateless hook that throws is logged, and the server keeps serving', async () => {
    const rejections: unknown[] = []
    const onRejection = (reason: unknown) => rejections.push(reason)
    process.on('unhandledRejection', onRejection)
    const log = capturingLogger()
    const failing: Extension = {
      extensionName: 'failing',
      async onStateless() {
        throw new Error('a handler bug')
      },
    }
    const t = await startTestServer({ logger: log.logger, extensions: [failing] })
    try {
      const tokens = await t.workspace(WS)
      const raw = await openAuthenticated(t.url, WS, tokens.write)
      raw.send(statelessFrame(WS, 'hello'))
      await waitFor(() => log.lines.some((line) => line.includes('stateless hook failed')), 'the log line')
      await new Promise((resolve) => setImmediate(resolve))
      expect(rejections).toEqual([])
      expect(log.lines.find((line) => line.includes('stateless hook failed'))).toContain('a handler bug')
      raw.ws.close()
      await assertServes(t, tokens.write, 'contained')
    } finally {
      process.off('unhandledRejection', onRejection)
      await t.close()
    }
  })

  it('the server process logs an unhandled rejection and keeps running', async () => {
    const guards = fileURLToPath(new URL('../src/process-guards.ts', import.meta.url))
    const logger = fileURLToPath(new URL('../src/logger.ts', import.meta.url))
    const script = `
      const { containUnhandledRejections } = await import(${JSON.stringify(guards)})
      const { createLogger } = await import(${JSON.stringify(logger)})
      containUnhandledRejections(createLogger())
      Promise.reject(new Error('escaped from a handler'))
      setTimeout(() => { process.stdout.write('still running\\n') }, 50)
    `
    const child = spawnProcess(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    const code = await child.exited
    const out = child.stdout()
    expect(code).toBe(0)
    expect(out).toContain('"event":"unhandled rejection"')
    expect(out).toContain('escaped from a handler')
    expect(out).toContain('still running')
  })
})
