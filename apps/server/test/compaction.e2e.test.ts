// Background compaction through the server: logs are merged every `compactEvery` appends and when
// a document unloads with enough appends since its last compaction, while clients keep editing;
// nothing is lost.
import { connectWorkspace } from '@yfs/client'
import { afterAll, beforeAll, expect, it } from 'vitest'
import * as Y from 'yjs'
import { UNLOAD_COMPACT_MIN } from '../src/extensions/persistence.js'
import { createTestClient, startTestServer, synced, type TestServer, waitFor } from './helpers.js'

let t: TestServer
let token: string
beforeAll(async () => {
  t = await startTestServer({ compactEvery: 8 })
  token = (await t.workspace('cmp')).write
})
afterAll(() => t.close())

it('compacts while editing and on unload without losing updates', async () => {
  const client = createTestClient(t.url, token)
  const main = client.open('cmp')
  await synced(main)
  const text = main.document.getText('text')
  let expected = ''
  for (let i = 0; i < 60; i++) {
    text.insert(text.length, `${i},`)
    expected += `${i},`
    await synced(main)
  }
  // 60 appends with compaction every 8: far fewer rows than appends.
  await waitFor(async () => (await t.store.logLength('cmp', 'cmp')) < 20, 'periodic compaction')
  client.destroy()
  // Unloading compacts what is left into one row.
  await waitFor(async () => (await t.store.logLength('cmp', 'cmp')) === 1, 'compaction on unload')
  const doc = new Y.Doc()
  Y.applyUpdate(doc, (await t.store.load('cmp', 'cmp'))!)
  expect(doc.getText('text').toString()).toBe(expected)
})

it('unloading compacts a log only once it has enough appends since its last compaction, counted across loads', async () => {
  const tokens = { few: (await t.workspace('few')).write, other: (await t.workspace('other')).write }
  const appendThenUnload = async (name: 'few' | 'other', words: string[]) => {
    const client = createTestClient(t.url, tokens[name])
    const main = client.open(name)
    await synced(main)
    for (const w of words) {
      main.document.getText('text').insert(0, w)
      await synced(main)
    }
    client.destroy()
    await waitFor(() => !t.server.hocuspocus.documents.has(name), `${name} unloaded`)
  }
  const below = UNLOAD_COMPACT_MIN - 1
  await appendThenUnload(
    'few',
    Array.from({ length: below }, (_, i) => `a${i} `),
  )
  // A barrier: compactions run one at a time in the order scheduled, so once the next document's
  // unload compaction is done, any the first unload scheduled has run.
  await appendThenUnload(
    'other',
    Array.from({ length: UNLOAD_COMPACT_MIN }, (_, i) => `o${i} `),
  )
  await waitFor(async () => (await t.store.logLength('other', 'other')) === 1, 'compaction of other')
  // Too few appends to be worth merging: the rows stay as they were appended.
  expect(await t.store.logLength('few', 'few')).toBe(below)
  // One more in a later load: the count carried over, so this unload compacts.
  await appendThenUnload('few', ['last '])
  await waitFor(async () => (await t.store.logLength('few', 'few')) === 1, 'compaction of few')
  const doc = new Y.Doc()
  Y.applyUpdate(doc, (await t.store.load('few', 'few'))!)
  const words = Array.from({ length: below }, (_, i) => `a${below - 1 - i} `).join('')
  expect(doc.getText('text').toString()).toBe(`last ${words}`)
})

it('a document only ever read and written in bulk (never opened) is compacted when read with enough appends', async () => {
  const ws = 'bulkcmp'
  const writeToken = (await t.workspace(ws)).write
  // No doc kept open between writes: every batch's overwrite goes as a bulk update on a fetched state.
  const writer = await connectWorkspace({ url: t.url, workspace: ws, token: writeToken, fs: { maxIdle: 0 } })
  try {
    await writer.fs.writeTree([
      { path: '/d/f.txt', content: 'v0\n' },
      { path: '/d/g.txt', content: 'other\n' },
    ])
    await writer.flush()
    const name = `${ws}/${writer.fs.index.lookup('/d/f.txt')}`
    // Fewer appends than `compactEvery` (8 here): only the compaction on a bulk read can merge them.
    const writes = UNLOAD_COMPACT_MIN + 2
    for (let v = 1; v <= writes; v++) {
      await writer.fs.batch(async () => writer.fs.writeFile('/d/f.txt', `v${v}\n`))
      await writer.flush()
    }
    expect(writer.openDocuments).toBe(0)
    // The writer fetched the state once: each later call wrote on the state it held at the
    // server's head (known-states.ts), so nothing loaded the doc since and its rows are as appended.
    expect(await t.store.logLength(ws, name)).toBe(1 + writes)
    // Another client reading it in bulk: that load compacts what `UNLOAD_COMPACT_MIN` appends or
    // more left (without it, every later load would merge them again).
    const fresh = await connectWorkspace({ url: t.url, workspace: ws, token: writeToken })
    try {
      expect(await fresh.fs.readFile('/d/f.txt')).toBe(`v${writes}\n`)
      await waitFor(
        async () => (await t.store.logLength(ws, name)) === 1,
        'compaction of a document read in bulk',
      )
      expect(await fresh.fs.history('/d/f.txt')).toHaveLength(writes + 1)
    } finally {
      await fresh.close()
    }
  } finally {
    await writer.close()
  }
})

it('a large document is compacted once the bytes appended since reach an eighth of its size, not every `compactEvery` rows', async () => {
  const ws = 'large'
  const client = createTestClient(t.url, (await t.workspace(ws)).write)
  const barrier = createTestClient(t.url, (await t.workspace('barrier')).write)
  try {
    const main = client.open(ws)
    await synced(main)
    const text = main.document.getText('text')
    const append = async (s: string) => {
      text.insert(text.length, s)
      await synced(main)
    }
    // 400 KiB, then 7 small rows: compacted by its count (its size was not known), and sized so.
    await append('x'.repeat(400 * 1024))
    for (let i = 0; i < 7; i++) await append(`${i},`)
    await waitFor(async () => (await t.store.logLength(ws, ws)) === 1, 'the first compaction')
    // 20 small rows: more than `compactEvery` (8), far less than an eighth of 400 KiB.
    for (let i = 0; i < 20; i++) await append(`s${i},`)
    // Compactions run in the order scheduled: once another document's is done, any of this one's ran.
    const other = barrier.open('barrier')
    await synced(other)
    for (let i = 0; i < 8; i++) {
      other.document.getText('text').insert(0, `${i}`)
      await synced(other)
    }
    await waitFor(async () => (await t.store.logLength('barrier', 'barrier')) === 1, 'the barrier compaction')
    expect(await t.store.logLength(ws, ws)).toBe(21)
    // Rows of 8 KiB: once an eighth of the document (51 KiB) is appended since, compacted (the
    // rows after that one stay, at most one here).
    for (let i = 0; i < 8; i++) await append('y'.repeat(8 * 1024))
    await waitFor(async () => (await t.store.logLength(ws, ws)) <= 2, 'the compaction by bytes')
    const doc = new Y.Doc()
    Y.applyUpdate(doc, (await t.store.load(ws, ws))!)
    expect(doc.getText('text').toString()).toBe(text.toString())
  } finally {
    client.destroy()
    barrier.destroy()
  }
})
