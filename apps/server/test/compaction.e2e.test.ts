// Background compaction through the server: logs are merged every `compactEvery` appends and when
// a document unloads, while clients keep editing; nothing is lost.
import { afterAll, beforeAll, expect, it } from 'vitest'
import * as Y from 'yjs'
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
