// /healthz (issue 26, finding 7): liveness for anyone, counts and per-workspace detail only with
// the admin token (constant-time check), and detail is cheap: no document is encoded per request.
import { createServer as createHttpServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestServer, type TestServer } from './helpers.js'

describe('/healthz', () => {
  let t: TestServer
  let client: WorkspaceConnection
  const get = (query = '', token?: string) =>
    fetch(`http://127.0.0.1:${t.port}/healthz${query}`, {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    })

  beforeAll(async () => {
    t = await startTestServer()
    const token = (await t.workspace('secret-ws')).write
    client = await connectWorkspace({ url: t.url, workspace: 'secret-ws', token })
    await client.fs.writeFile('/a.txt', 'held open')
    await client.flush()
  })
  afterAll(async () => {
    await client.close()
    await t.close()
  })

  it('answers liveness only to anyone, naming no workspace', async () => {
    const res = await get()
    expect(res.status).toBe(200)
    const text = await res.text()
    expect(JSON.parse(text)).toEqual({ status: 'ok' })
    expect(text).not.toContain('secret-ws')
  })

  it('refuses counts, detail and gc without the admin token (401)', async () => {
    for (const [query, token] of [
      ['?detail=1', undefined],
      ['?gc=1', undefined],
      ['', 'wrong'],
      ['?detail=1', 'wrong'],
      ['?detail=1', `${ADMIN_TOKEN}x`],
    ] as const) {
      const res = await get(query, token)
      expect(res.status, `${query} ${token}`).toBe(401)
      expect(await res.text()).not.toContain('secret-ws')
    }
  })

  it('gives counts and cheap detail with the admin token', async () => {
    const res = await get('', ADMIN_TOKEN)
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({ status: 'ok', store: 'sqlite' })
    for (const key of ['documents', 'sockets', 'rssBytes', 'heapUsedBytes', 'uptimeSec'])
      expect(typeof body[key], key).toBe('number')
    expect(body.documents).toBeGreaterThan(0)
    expect(body.workspaces).toBeUndefined()

    const detail = (await (await get('?detail=1', ADMIN_TOKEN)).json()) as {
      workspaces: Record<string, Record<string, number>>
    }
    const ws = detail.workspaces['secret-ws']!
    // Counts only: nothing here needs a document encoded (the old `bytes` did, for every doc).
    expect(Object.keys(ws).sort()).toEqual(['connections', 'documents'])
    expect(ws.documents).toBeGreaterThanOrEqual(1)
    expect(ws.connections).toBeGreaterThanOrEqual(1)
  })

  it('50 detail requests in a row stay cheap', async () => {
    const started = performance.now()
    for (let i = 0; i < 50; i++) expect((await get('?detail=1', ADMIN_TOKEN)).status).toBe(200)
    // A loose bound (a loaded 2-core machine): the point is the structural check above.
    expect(performance.now() - started).toBeLessThan(5000)
  })

  it('answers 503 while shutting down, with counts only for the admin', async () => {
    // Mounted on an embedder's own HTTP server (handleRequest), which stays up while it closes.
    const other = await startTestServer()
    const embedder = createHttpServer((req, res) => {
      other.server.handleRequest(req, res).catch(() => res.end())
    })
    await new Promise<void>((r) => embedder.listen(0, '127.0.0.1', () => r()))
    const { port } = embedder.address() as AddressInfo
    try {
      const closing = other.server.close()
      const res = await fetch(`http://127.0.0.1:${port}/healthz`)
      expect(res.status).toBe(503)
      expect(await res.json()).toEqual({ status: 'shutting down' })
      const admin = await fetch(`http://127.0.0.1:${port}/healthz`, {
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      })
      expect(admin.status).toBe(503)
      expect(await admin.json()).toMatchObject({ status: 'shutting down', sockets: 0 })
      await closing
    } finally {
      await new Promise((r) => embedder.close(r))
      await other.close()
    }
  })
})
