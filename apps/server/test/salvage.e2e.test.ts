// A stored log the server cannot load (bytes written before a check existed: an empty deletion
// range, refused since 724b6cd; or bytes that are no update at all) is salvaged when the document
// is next read, through either path: a document opened by a client (Hocuspocus) and a bulk read
// of files. Clients get everything that applies, the bad rows go to the quarantine, an error is
// logged once, and later opens load the rewritten log as any other.
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { asFileId } from '@yfs/core'
import { contentDocName } from '@yfs/protocol'
import { Bash } from 'just-bash'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { createLogger } from '../src/logger.js'
import { ADMIN_TOKEN, startTestServer, type TestServer, waitFor } from './helpers.js'

const EMPTY_RANGE = Uint8Array.from([1, 1, 0, 219, 191, 195, 2, 1, 35, 1, 1, 109, 1, 98, 1, 15, 0])
const TRUNCATED = Uint8Array.from([5, 200, 1])

let t: TestServer
let token: string
const lines: string[] = []
const open: WorkspaceConnection[] = []
const connect = async (workspace: string) => {
  const c = await connectWorkspace({ url: t.url, workspace, token, timeoutMs: 8000 })
  open.push(c)
  return c
}
const quarantineLogs = () =>
  lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.event === 'stored updates quarantined')

/** Append `bytes` to the stored log of the file at `path` (found through `c`); resolves with its doc's name. */
const appendToLog = async (c: WorkspaceConnection, path: string, bytes: Uint8Array) => {
  const name = contentDocName('salvage', asFileId(c.fs.index.lookup(path)!))
  await t.store.append('salvage', name, bytes)
  return name
}
/** `bytes` alone went to the quarantine of `name`. */
const expectQuarantinedAlone = async (name: string, bytes: Uint8Array) =>
  expect(await t.store.quarantined('salvage', name)).toEqual([
    { doc: name, data: bytes, reason: expect.any(String), at: expect.any(Number) },
  ])

beforeAll(async () => {
  t = await startTestServer({ logger: createLogger({ level: 'warn', write: (line) => lines.push(line) }) })
  token = (await t.workspace('salvage')).write
  const writer = await connect('salvage')
  await writer.fs.mkdir('/docs')
  await writer.fs.writeFile('/docs/a.txt', 'alpha\n')
  await writer.fs.writeFile('/docs/b.txt', 'beta\n')
  await writer.flush()
  await writer.close()
  open.length = 0
  await waitFor(() => t.server.hocuspocus.documents.size === 0, 'the workspace unloaded')
})
afterAll(async () => {
  for (const c of open) await c.close()
  await t.close()
})

it('a main doc whose log merges but does not apply opens, with its files, after a salvage', async () => {
  await t.store.append('salvage', 'salvage', EMPTY_RANGE)
  const rowsBefore = await t.store.logLength('salvage', 'salvage')
  const reader = await connect('salvage')
  expect((await reader.fs.readdir('/docs')).sort()).toEqual(['a.txt', 'b.txt'])
  expect(await reader.fs.readFile('/docs/a.txt')).toBe('alpha\n')
  // The log is one row now; the bad one is kept aside with Yjs's reason.
  expect(rowsBefore).toBeGreaterThan(1)
  expect(await t.store.logLength('salvage', 'salvage')).toBe(1)
  await expectQuarantinedAlone('salvage', EMPTY_RANGE)
  expect(quarantineLogs()).toEqual([
    expect.objectContaining({ level: 'error', doc: 'salvage', quarantined: 1, rows: rowsBefore }),
  ])
  // The workspace works as before: a write reaches a second client.
  await reader.fs.writeFile('/docs/c.txt', 'gamma\n')
  await reader.flush()
  const other = await connect('salvage')
  await waitFor(
    async () => (await other.fs.exists('/docs/c.txt')) === true,
    'the new file at a second client',
  )
  expect(await other.fs.readFile('/docs/c.txt')).toBe('gamma\n')
  expect(quarantineLogs()).toHaveLength(1)
})

it('a file whose log does not even merge reads through the bulk path after a salvage', async () => {
  const name = await appendToLog(await connect('salvage'), '/docs/b.txt', TRUNCATED)
  const fresh = await connect('salvage')
  // A read of a file whose doc nobody holds open: a bulk load (its log merged on the server).
  expect(await fresh.fs.readFile('/docs/b.txt')).toBe('beta\n')
  await expectQuarantinedAlone(name, TRUNCATED)
  expect(quarantineLogs().at(-1)).toEqual(expect.objectContaining({ doc: name, quarantined: 1 }))
  // An edit of it is kept like any other.
  await fresh.fs.writeFile('/docs/b.txt', 'beta 2\n')
  await fresh.flush()
  const again = await connect('salvage')
  expect(await again.fs.readFile('/docs/b.txt')).toBe('beta 2\n')
})

it('a file whose log merges but does not apply: the bulk read leaves it out, its doc opens and is salvaged', async () => {
  const writer = await connect('salvage')
  await writer.fs.writeFile('/docs/d.txt', 'delta\n')
  await writer.flush()
  const name = await appendToLog(writer, '/docs/d.txt', EMPTY_RANGE)
  const fresh = await connect('salvage')
  // The merged state reaches the client, which cannot apply it: it opens the doc instead.
  expect(await fresh.fs.readFile('/docs/d.txt')).toBe('delta\n')
  await expectQuarantinedAlone(name, EMPTY_RANGE)
  expect(await t.store.logLength('salvage', name)).toBe(1)
  // A grep over the folder from another fresh client (one bulk read of its files) finds it too.
  const other = await connect('salvage')
  const grep = await new Bash({ fs: other.fs, cwd: '/' }).exec('grep -rl delta /docs')
  expect(grep.stdout).toBe('/docs/d.txt\n')
})

it('the admin API lists what was quarantined, per workspace', async () => {
  const base = `http://127.0.0.1:${t.port}`
  const get = (path: string, token: string | null = ADMIN_TOKEN) =>
    fetch(`${base}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} })
  const res = await get('/api/workspaces/salvage/quarantine')
  expect(res.status).toBe(200)
  const { rows } = (await res.json()) as {
    rows: { doc: string; reason: string; at: string; bytes: number; data: string }[]
  }
  // The main doc's row, then the two files', oldest first.
  expect(rows.map((r) => r.doc)[0]).toBe('salvage')
  expect(rows).toHaveLength(3)
  expect(rows.map((r) => r.bytes)).toEqual([
    EMPTY_RANGE.byteLength,
    TRUNCATED.byteLength,
    EMPTY_RANGE.byteLength,
  ])
  expect(Buffer.from(rows[1]!.data, 'base64')).toEqual(Buffer.from(TRUNCATED))
  expect(Number.isNaN(Date.parse(rows[0]!.at))).toBe(false)
  expect(rows.every((r) => r.reason.length > 0)).toBe(true)
  expect((await get('/api/workspaces/nope/quarantine')).status).toBe(404)
  expect((await get('/api/workspaces/salvage/quarantine', null)).status).toBe(401)
  expect((await get('/api/workspaces/salvage/quarantine', token)).status).toBe(401)
})
