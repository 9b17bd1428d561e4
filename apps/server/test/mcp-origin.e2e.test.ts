/**
 * The sync server's `/mcp` is closed to web pages: with a valid workspace
 * token, a foreign `Origin` or a rebound `Host` still gets 403 naming the
 * header, on POST, GET and DELETE; loopback on the listening port, the
 * `publicUrl` and `allowedOrigins` work, in `createServer` and through the
 * `yfs serve` flags. After each hostile case a real agent still works.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers.js'
import { rawMcp } from './raw-mcp.js'
import { adminSetup, spawnServer } from './spawn-server.js'

/** A real MCP client with this token (and Origin) writes a file and reads it back with bash. */
async function agentWorks(port: number, token: string, origin?: string): Promise<void> {
  const client = new Client({ name: 'test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${token}`, ...(origin ? { origin } : {}) } },
  })
  await client.connect(transport)
  try {
    await client.callTool({ name: 'write_file', arguments: { path: 'vfs:///o.txt', content: 'ok' } })
    const r = (await client.callTool({ name: 'bash', arguments: { script: 'cat /o.txt' } })) as unknown as {
      structuredContent: { stdout: string }
    }
    expect(r.structuredContent.stdout).toBe('ok')
  } finally {
    await transport.terminateSession()
    await client.close()
  }
}

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

describe('yfs serve --public-url --allow-origin', () => {
  it('the flags reach /mcp', async () => {
    const admin = 'admin-token-for-origin-test'
    const data = mkdtempSync(join(tmpdir(), 'yfs-origin-'))
    const server = await spawnServer([
      '--data',
      data,
      '--admin-token',
      admin,
      '--public-url',
      'https://yfs.example.com',
      '--allow-origin',
      'http://app.example',
      '--allow-origin',
      'http://other.example',
    ])
    try {
      const token = await adminSetup(server.http, admin, 'team')
      const auth = { authorization: `Bearer ${token}` }
      const evil = await rawMcp(server.port, 'POST', {
        host: `127.0.0.1:${server.port}`,
        origin: 'http://evil.example',
        ...auth,
      })
      expect(evil.status).toBe(403)
      const pub = await rawMcp(server.port, 'POST', { host: 'yfs.example.com', ...auth })
      expect(pub.status).toBe(200)
      await agentWorks(server.port, token, 'http://other.example')
    } finally {
      await server.stop('SIGTERM')
      rmSync(data, { recursive: true, force: true })
    }
  })
})
