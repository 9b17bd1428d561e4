/**
 * The sync server's `/mcp` is closed to web pages: with a valid workspace
 * token, a foreign `Origin` or a rebound `Host` still gets 403 naming the
 * header, on POST, GET and DELETE; loopback on the listening port, the
 * `publicUrl` and `allowedOrigins` work in `createServer` (the `yfs serve`
 * flags: apps/cli/test/serve-origin.e2e.test.ts). After each hostile case a
 * real agent still works.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { agentWorks } from './agent-works.js'
import { startTestServer, type TestServer } from './helpers.js'
import { rawMcp } from './raw-mcp.js'

describe('/mcp checks Origin and Host', () => {
  let t: TestServer
  let token: string
  let host: string
  let auth: Record<string, string>

  beforeAll(async () => {
    t = await startTestServer({
      publicUrl: 'https://yfs.example.com',
      allowedOrigins: ['http://app.example'],
    })
    token = (await t.workspace('team')).write
    host = `127.0.0.1:${t.port}`
    auth = { authorization: `Bearer ${token}` }
  })
  afterAll(async () => {
    await t.close()
  })

  it('a foreign Origin gets 403 naming Origin, even with a write token, on every method', async () => {
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      const r = await rawMcp(t.port, method, { host, origin: 'http://evil.example', ...auth })
      expect(r.status, method).toBe(403)
      expect(JSON.parse(r.body).error.message, method).toMatch(/^Origin "http:\/\/evil.example"/)
      expect(r.headers['access-control-allow-origin'], method).toBeUndefined()
    }
    expect(t.server.stats().sockets).toBe(0)
    await agentWorks(t.port, token)
  })

  it('a rebound Host gets 403 naming Host, even with a write token', async () => {
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      const r = await rawMcp(t.port, method, { host: `evil.example:${t.port}`, ...auth })
      expect(r.status, method).toBe(403)
      expect(JSON.parse(r.body).error.message, method).toMatch(/^Host "evil.example:\d+"/)
    }
    await agentWorks(t.port, token)
  })

  it('the public URL (Host and Origin) and an allowed origin work', async () => {
    const viaProxy = await rawMcp(t.port, 'POST', {
      host: 'yfs.example.com',
      origin: 'https://yfs.example.com',
      ...auth,
    })
    expect(viaProxy.status).toBe(200)
    expect(viaProxy.headers['mcp-session-id']).toBeTruthy()
    await rawMcp(t.port, 'DELETE', {
      host: 'yfs.example.com',
      'mcp-session-id': String(viaProxy.headers['mcp-session-id']),
      ...auth,
    })
    await agentWorks(t.port, token, 'http://app.example')
    await agentWorks(t.port, token, `http://localhost:${t.port}`)
  })
})
