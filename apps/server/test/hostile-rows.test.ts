// Hostile rows (issue 26, finding 8): a write-token client sends raw Yjs updates whose files-table
// rows core would never write (names `.`, `..`, `a/b`, NUL, 2 MB; wrong types; garbage in the files
// array), on both socket paths. Each update is refused: its socket closes with 4400 and the reason,
// nothing is stored, other clients never see it, one log line without the contents. After each
// case a legitimate client connects, lists, reads, writes and flushes.
import { connectWorkspace } from '@yfs/client'
import { createFilesTable, FILES_TABLE_KEY, type FileRow, nameProblem, storedRowProblem } from '@yfs/core'
import * as encoding from 'lib0/encoding'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import {
  captureLogger,
  createTestClient,
  startTestServer,
  synced,
  type TestServer,
  waitFor,
} from './helpers.js'
import { authFrame, openRawSocket, updateFrame } from './raw-socket.js'

const WS = 'rows'
const TWO_MB = 'n'.repeat(2 * 1024 * 1024)

const row = (id: string, name: string, extra: Partial<Record<keyof FileRow, unknown>> = {}) => ({
  id,
  name,
  parentId: null,
  type: 'folder',
  size: 0,
  createdAt: 1,
  updatedAt: 1,
  trashedAt: null,
  ...extra,
})
const arrayEntry = (r: ReturnType<typeof row>, ts = 1000) => [
  1,
  r.id,
  ts,
  r.name,
  r.parentId,
  r.type,
  r.size,
  r.createdAt,
  r.updatedAt,
  r.trashedAt,
]

/** Values a hostile client puts in the files array, each with what is wrong with it. */
const HOSTILE: [string, unknown][] = [
  ['name .', arrayEntry(row('h1', '.'))],
  ['name ..', arrayEntry(row('h2', '..'))],
  ['name a/b', arrayEntry(row('h3', 'a/b'))],
  ['name with NUL', arrayEntry(row('h4', 'x\0y'))],
  ['name with backslash', arrayEntry(row('h5', 'a\\b'))],
  ['empty name', arrayEntry(row('h6', ''))],
  ['256-byte name', arrayEntry(row('h7', 'z'.repeat(256)))],
  ['2 MB name', arrayEntry(row('h8', TWO_MB))],
  ['name .. (object entry)', { key: 'h9', val: row('h9', '..'), ts: 1000 }],
  ['name a/b (object entry)', { key: 'h10', val: row('h10', 'a/b'), ts: 1000 }],
  ['type "dir"', arrayEntry(row('h11', 'ok', { type: 'dir' }))],
  ['negative size', arrayEntry(row('h12', 'ok', { size: -1 }))],
  ['key differs from id', { key: 'h13', val: row('other', 'ok'), ts: 1000 }],
  ['unknown entry tag', [2, 'h14', 1000, 'ok']],
  ['a string in the files array', 'garbage'],
  ['a number in the files array', 42],
]

/** How a raw socket ended, or `not closed` after 5 s (an update that was taken). */
const outcome = (closed: Promise<{ code: number; reason: string }>) =>
  Promise.race([
    closed,
    new Promise<{ code: number; reason: string }>((r) =>
      setTimeout(() => r({ code: 0, reason: 'not closed' }), 5000),
    ),
  ])

function ywsUpdateFrame(update: Uint8Array): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarUint(e, 0) // sync
  encoding.writeVarUint(e, 2) // update
  encoding.writeVarUint8Array(e, update)
  return encoding.toUint8Array(e)
}

describe('hostile rows', () => {
  let t: TestServer
  let token: string
  let logger: ReturnType<typeof captureLogger>
  let round = 0

  beforeAll(async () => {
    logger = captureLogger()
    t = await startTestServer({ logger })
    token = (await t.workspace(WS)).write
    const c = await connectWorkspace({ url: t.url, workspace: WS, token })
    await c.fs.writeFile('/keep.txt', 'kept')
    await c.flush()
    await c.close()
  })
  afterAll(() => t.close())

  /** The server's stored main doc. */
  async function storedDoc(): Promise<Y.Doc> {
    const doc = new Y.Doc()
    Y.applyUpdate(doc, (await t.store.load(WS, WS))!)
    return doc
  }

  /** Every value in the stored files array is a row core reads, with a valid name. */
  async function expectStoreClean(): Promise<void> {
    const doc = await storedDoc()
    const values = doc.getArray<unknown>(FILES_TABLE_KEY).toArray()
    const table = createFilesTable(doc)
    expect(table.size).toBe(values.length)
    for (const r of table.rows()) expect(nameProblem(r.name)).toBeUndefined()
  }

  /** A legitimate client connects, lists, reads, writes and flushes; the store stays clean. */
  async function legitimateRoundTrip(): Promise<void> {
    const c = await connectWorkspace({ url: t.url, workspace: WS, token })
    try {
      const names = await c.fs.readdir('/')
      expect(names).toContain('keep.txt')
      for (const n of names) expect(nameProblem(n)).toBeUndefined()
      expect(await c.fs.readFile('/keep.txt')).toBe('kept')
      round++
      await c.fs.writeFile(`/ok-${round}.txt`, `round ${round}`)
      await c.flush()
    } finally {
      await c.close()
    }
    await expectStoreClean()
  }

  /** The update a client makes by pushing `value` to the files array of `doc` (a fresh doc by default). */
  function pushUpdate(value: unknown, doc = new Y.Doc()): Uint8Array {
    const before = Y.encodeStateVector(doc)
    doc.getArray<unknown>(FILES_TABLE_KEY).push([value])
    return Y.encodeStateAsUpdate(doc, before)
  }

  async function sendHocuspocus(update: Uint8Array): Promise<{ code: number; reason: string }> {
    const raw = await openRawSocket(t.url)
    raw.send(authFrame(WS, token))
    raw.send(updateFrame(WS, update))
    const result = await outcome(raw.closed)
    raw.ws.terminate()
    return result
  }

  async function sendYws(update: Uint8Array): Promise<{ code: number; reason: string }> {
    const raw = await openRawSocket(`${t.url}/yws/${WS}?token=${token}`)
    raw.send(ywsUpdateFrame(update))
    const result = await outcome(raw.closed)
    raw.ws.terminate()
    return result
  }

  it('is refused on the Hocuspocus path, whether appended to the stored rows or alone; never stored or seen', async () => {
    // A watcher holds the main doc and records every value that reaches the files array.
    const watcher = createTestClient(t.url, token)
    const seen: unknown[] = []
    const main = watcher.open(WS)
    await synced(main)
    main.document.getArray<unknown>(FILES_TABLE_KEY).observe((event) => {
      for (const d of event.changes.delta) if (d.insert) seen.push(...(d.insert as unknown[]))
    })
    try {
      for (const [what, value] of HOSTILE) {
        const logLength = await t.store.logLength(WS, WS)
        const refusedBefore = logger.records.filter((r) => r.event === 'update refused').length
        // Alone (the item names the files array), then after the server's rows (the item's
        // parent is known only through its origin, an item of the server's doc).
        const synced = new Y.Doc()
        Y.applyUpdate(synced, (await t.store.load(WS, WS))!)
        for (const update of [pushUpdate(value), pushUpdate(value, synced)]) {
          const { code, reason } = await sendHocuspocus(update)
          expect(code, what).toBe(4400)
          expect(reason, what).toMatch(/^(invalid row|invalid name|not a row entry)/)
        }
        expect(await t.store.logLength(WS, WS), what).toBe(logLength)
        const refusals = logger.records.filter((r) => r.event === 'update refused').slice(refusedBefore)
        expect(refusals, what).toHaveLength(2)
        // Lengths, not contents: a 2 MB name leaves a short log line.
        for (const r of refusals) expect(JSON.stringify(r).length, what).toBeLessThan(400)
      }
      await legitimateRoundTrip()
      expect(seen.length).toBeGreaterThan(0) // the legitimate client's row
      for (const v of seen) expect(storedRowProblem(v)).toBeUndefined()
      const table = createFilesTable(main.document)
      for (const r of table.rows()) expect(nameProblem(r.name)).toBeUndefined()
      expect(table.size).toBe(main.document.getArray(FILES_TABLE_KEY).length)
    } finally {
      watcher.destroy()
    }
  })

  it('is refused on the y-websocket path', async () => {
    for (const [what, value] of HOSTILE) {
      const logLength = await t.store.logLength(WS, WS)
      const { code, reason } = await sendYws(pushUpdate(value))
      expect(code, what).toBe(4400)
      expect(reason, what).toMatch(/^(invalid row|invalid name|not a row entry)/)
      expect(await t.store.logLength(WS, WS), what).toBe(logLength)
    }
    await legitimateRoundTrip()
  })

  it('is refused when its origin is unknown to the server (an item it has not seen)', async () => {
    // The hostile doc appends a bad row after a row the server never gets.
    const doc = new Y.Doc()
    const files = doc.getArray<unknown>(FILES_TABLE_KEY)
    files.push([arrayEntry(row('u1', 'fine'))])
    const middle = Y.encodeStateVector(doc)
    files.push([arrayEntry(row('u2', '..'))])
    // Only the bad row: its origin (`u1`'s item) is in neither the update nor the server's doc.
    const update = Y.encodeStateAsUpdate(doc, middle)
    for (const send of [sendHocuspocus, sendYws]) {
      const { code, reason } = await send(update)
      expect(code).toBe(4400)
      expect(reason).toMatch(/^invalid name/)
    }
    await legitimateRoundTrip()
  })

  it('a nested type or text in the files array is refused; valid rows in the same update do not save it', async () => {
    const doc = new Y.Doc()
    const files = doc.getArray<unknown>(FILES_TABLE_KEY)
    files.push([arrayEntry(row('v1', 'fine'))])
    files.push([new Y.Map()])
    const { code, reason } = await sendHocuspocus(Y.encodeStateAsUpdate(doc))
    expect(code).toBe(4400)
    expect(reason).toBe('not a row entry')
    await legitimateRoundTrip()
  })

  it('rows written by core are accepted on both paths, and other types of the main doc are not checked', async () => {
    const doc = new Y.Doc()
    Y.applyUpdate(doc, (await t.store.load(WS, WS))!)
    const table = createFilesTable(doc)
    const before = Y.encodeStateVector(doc)
    table.set(row('fine1', 'fine.txt', { type: 'file' }) as FileRow)
    table.set(row('fine2', '..dots are fine..', { type: 'file' }) as FileRow)
    doc.getMap('other').set('x', { key: 'x', val: { name: '..' }, ts: 1 })
    const update = Y.encodeStateAsUpdate(doc, before)
    const raw = await openRawSocket(`${t.url}/yws/${WS}?token=${token}`)
    raw.send(ywsUpdateFrame(update))
    await waitFor(async () => {
      const stored = createFilesTable(await storedDoc())
      return stored.has('fine1' as FileRow['id']) && stored.has('fine2' as FileRow['id'])
    }, 'rows stored')
    raw.ws.close()
    await legitimateRoundTrip()
  })
})
