// The admin API and /healthz over real HTTP: bearer auth, validation, token lifecycle (a revoked
// token is refused on the next connection), and the health payload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ADMIN_TOKEN,
  authFailure,
  createTestClient,
  startTestServer,
  synced,
  type TestServer,
} from './helpers.js'

describe('admin API', () => {
  let t: TestServer
  let base: string
  const call = (method: string, path: string, body?: unknown, token: string | null = ADMIN_TOKEN) =>
    fetch(`${base}${path}`, {
      method,
      headers: {
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })

  beforeAll(async () => {
    t = await startTestServer({ tokenCacheMs: 0 })
    base = `http://127.0.0.1:${t.port}`
  })
  afterAll(() => t.close())

  it('requires the admin token', async () => {
    expect((await call('GET', '/api/workspaces', undefined, null)).status).toBe(401)
    expect((await call('GET', '/api/workspaces', undefined, 'wrong')).status).toBe(401)
    expect((await call('GET', '/api/workspaces')).status).toBe(200)
  })

  it('creates workspaces and validates ids', async () => {
    const created = await call('POST', '/api/workspaces', { id: 'adm' })
    expect(created.status).toBe(201)
    expect(await created.json()).toEqual({ id: 'adm', created: true })
    expect((await call('POST', '/api/workspaces', { id: 'adm' })).status).toBe(200)
    expect((await call('POST', '/api/workspaces', { id: 'a/b' })).status).toBe(400)
    expect((await call('POST', '/api/workspaces', { id: 42 })).status).toBe(400)
    const list = (await (await call('GET', '/api/workspaces')).json()) as { workspaces: string[] }
    expect(list.workspaces).toContain('adm')
  })

  it('mints tokens that open the workspace, and revokes them', async () => {
    expect((await call('POST', '/api/workspaces/ghost/tokens', { role: 'write' })).status).toBe(404)
    expect((await call('POST', '/api/workspaces/adm/tokens', { role: 'admin' })).status).toBe(400)
    const badName = await call('POST', '/api/workspaces/adm/tokens', { role: 'read', name: 'a\u0000b' })
    expect(badName.status).toBe(400)
    expect(await badName.text()).toContain('control characters')
    expect((await call('POST', '/api/workspaces/adm/tokens', { role: 'read', name: 7 })).status).toBe(400)
    const named = await call('POST', '/api/workspaces/adm/tokens', { role: 'write', name: 'build-bot' })
    expect(named.status).toBe(201)
    const bot = (await named.json()) as { token: string; name: string }
    expect(bot.name).toBe('build-bot')
    expect(await t.store.resolveToken(bot.token)).toEqual({
      workspace: 'adm',
      role: 'write',
      name: 'build-bot',
    })
    const res = await call('POST', '/api/workspaces/adm/tokens', { role: 'read' })
    expect(res.status).toBe(201)
    const { token, role } = (await res.json()) as { token: string; role: string }
    expect(role).toBe('read')

    const client = createTestClient(t.url, token)
    const main = client.open('adm')
    await synced(main)
    expect(main.authorizedScope).toBe('readonly')
    client.destroy()

    expect(await (await call('DELETE', '/api/tokens', { token })).json()).toEqual({ revoked: true })
    const again = createTestClient(t.url, token)
    expect(await authFailure(again.open('adm'))).toBe('invalid token')
    again.destroy()
  })

  it('answers 404 for every route when no admin token is configured', async () => {
    const bare = await startTestServer({ adminToken: undefined })
    const res = await fetch(`http://127.0.0.1:${bare.port}/api/workspaces`, {
      headers: { authorization: 'Bearer anything' },
    })
    expect(res.status).toBe(404)
    await bare.close()
  })

  it('reports health (counts and detail with the admin token; see health.test.ts)', async () => {
    const res = await fetch(`${base}/healthz?detail=1`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({ status: 'ok', store: 'sqlite' })
    expect(typeof body.rssBytes).toBe('number')
    expect(body.workspaces).toBeTypeOf('object')
    expect((await fetch(`${base}/nope`)).status).toBe(404)
  })
})
