/**
 * A tool call's result through the server's `/mcp` means stored: it goes back once the server has
 * stored the call's changes (agent/mcp/server-stores.ts `settle`). The store below is the real
 * SQLite store with its main-doc appends held back a while (a slow disk), so a result that did not
 * wait would come back before the rows are stored.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { createServerStores } from '@yfs/agent'
import { afterAll, beforeAll, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { DocumentStore } from '../src/persistence/document-store.js'
import { createSqliteStore } from '../src/persistence/sqlite-store.js'
import { startTestServer, type TestServer, waitFor } from './helpers.js'

const WS = 'settle'
const SLOW_MS = 300

let dir: string
let store: DocumentStore
let t: TestServer
let agent: Client

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'yfs-settle-'))
  store = createSqliteStore({ file: join(dir, 'yfs.sqlite') })
  const slowMainAppends = new Proxy(store, {
    get(target, key) {
      if (key === 'append')
        return async (workspace: string, name: string, update: Uint8Array) => {
          if (name === WS) await new Promise((resolve) => setTimeout(resolve, SLOW_MS))
          return target.append(workspace, name, update)
        }
      const value = Reflect.get(target, key)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  t = await startTestServer({ store: slowMainAppends })
  const { write } = await t.workspace(WS)
  agent = new Client({ name: 'settle', version: '1.0.0' })
  await agent.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.port}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${write}` } },
    }),
  )
})
afterAll(async () => {
  await agent.close()
  await t.close()
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The names of the files the stored main doc of the workspace holds rows for. */
async function storedNames(): Promise<string[]> {
  const state = await store.load(WS, WS)
  if (!state) return []
  const doc = new Y.Doc()
  Y.applyUpdate(doc, state)
  const names: string[] = []
  for (const entry of doc.getArray('files').toArray()) {
    if (Array.isArray(entry)) names.push(String(entry[3]))
    else if (entry && typeof entry === 'object' && 'val' in entry)
      names.push(String((entry as { val: { name: string } }).val.name))
  }
  return names
}

it('a bash call returns once the server has stored its changes, rows included, on a slow store', async () => {
  const started = performance.now()
  const result = (await agent.callTool({
    name: 'bash',
    arguments: { script: 'mkdir -p /out && for i in 1 2 3; do echo "line $i" > /out/f$i.txt; done' },
  })) as { isError?: boolean; content: { text: string }[] }
  const names = await storedNames()
  expect(result.isError).toBeFalsy()
  expect(result.content.map((c) => c.text).join('\n')).not.toContain('not stored yet')
  expect(names).toEqual(expect.arrayContaining(['out', 'f1.txt', 'f2.txt', 'f3.txt']))
  // It did wait for the slow store.
  expect(performance.now() - started).toBeGreaterThanOrEqual(SLOW_MS)
})

it('so does a write_file call', async () => {
  const result = (await agent.callTool({
    name: 'write_file',
    arguments: { path: 'vfs:///notes.md', content: '# Notes\n' },
  })) as { isError?: boolean }
  expect(result.isError).toBeFalsy()
  expect(await storedNames()).toContain('notes.md')
})

it('offline, settling says so at once instead of waiting (the changes stay and go when the server is back)', async () => {
  const other = await startTestServer()
  const { write } = await other.workspace('gone')
  const stores = createServerStores({ url: other.url, token: write })
  try {
    const fs = await stores.open('gone')
    await fs.writeFile('/a.txt', 'a\n')
    await stores.settle!(fs)
    await other.close()
    await waitFor(() => stores.connectionOf(fs)?.status().online === false, 'the connection to go offline')
    await fs.writeFile('/b.txt', 'b\n')
    const started = performance.now()
    await expect(stores.settle!(fs)).rejects.toThrow(/offline/)
    expect(performance.now() - started).toBeLessThan(1000)
  } finally {
    await stores.close()
  }
})
