/**
 * MCP sessions at the sync server's `/mcp` give back everything they open:
 * a session's workspace connection (a WebSocket to this server, and the
 * documents it loads) is closed when the session ends by `DELETE`, by idle
 * timeout, by a failed initialize, or by server shutdown. Each case ends with
 * a legitimate agent still working.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterEach, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer, waitFor } from './helpers.js'

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
}
const ACCEPT = 'application/json, text/event-stream'

describe('MCP sessions release their workspace connections', () => {
  let t: TestServer | undefined
  afterEach(async () => {
    await t?.close()
    t = undefined
  })

  const start = async (config: Parameters<typeof startTestServer>[0] = {}) => {
    t = await startTestServer(config)
    const { write } = await t.workspace('team')
    return { server: t, token: write, url: `http://127.0.0.1:${t.port}/mcp` }
  }

  const initialize = async (url: string, token: string) => {
    const r = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: ACCEPT, authorization: `Bearer ${token}` },
      body: JSON.stringify(INIT),
    })
    expect(r.status).toBe(200)
    await r.text()
    const id = r.headers.get('mcp-session-id')
    expect(id).toBeTruthy()
    return id!
  }

  /** Settled: no socket and no loaded document left (the baseline of a fresh server). */
  const released = (s: TestServer) =>
    waitFor(() => {
      const { sockets, documents } = s.server.stats()
      return sockets === 0 && documents === 0
    }, 'every MCP workspace connection and document to be released')

  /** A real agent still works: a tool call writes, and a bash call reads it back. */
  const agentWorks = async (url: string, token: string) => {
    const client = new Client({ name: 'test', version: '1.0.0' })
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    })
    await client.connect(transport)
    try {
      await client.callTool({ name: 'write_file', arguments: { path: 'vfs:///ok.txt', content: 'ok' } })
      const r = (await client.callTool({
        name: 'bash',
        arguments: { script: 'cat /ok.txt' },
      })) as unknown as {
        structuredContent: { stdout: string }
      }
      expect(r.structuredContent.stdout).toBe('ok')
    } finally {
      await transport.terminateSession()
      await client.close()
    }
  }

  it('20 rounds of initialize + DELETE leave no socket or document behind', async () => {
    const { server, token, url } = await start()
    expect(server.server.stats()).toMatchObject({ sockets: 0, documents: 0 })
    for (let i = 0; i < 20; i++) {
      const id = await initialize(url, token)
      // The session did open its workspace: one socket to this server.
      expect(server.server.stats().sockets).toBeGreaterThanOrEqual(1)
      const d = await fetch(url, {
        method: 'DELETE',
        headers: { authorization: `Bearer ${token}`, 'mcp-session-id': id },
      })
      expect(d.status).toBe(200)
    }
    await released(server)
    await agentWorks(url, token)
    await released(server)
  })

  it('a session closed by the idle timeout releases its connection', async () => {
    const { server, token, url } = await start({ mcpIdleTimeoutMs: 200 })
    for (let i = 0; i < 5; i++) await initialize(url, token)
    expect(server.server.stats().sockets).toBeGreaterThanOrEqual(1)
    await released(server)
    await agentWorks(url, token)
  })

  it('an initialize the transport refuses (no event-stream Accept) opens nothing for good', async () => {
    const { server, token, url } = await start()
    for (let i = 0; i < 10; i++) {
      const r = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          authorization: `Bearer ${token}`,
        },
        body: JSON.stringify(INIT),
      })
      expect(r.status).toBe(406)
      await r.text()
    }
    await released(server)
    await agentWorks(url, token)
  })

  it('server shutdown closes the connections of sessions still open', async () => {
    const { server, token, url } = await start()
    for (let i = 0; i < 3; i++) await initialize(url, token)
    expect(server.server.stats().sockets).toBeGreaterThanOrEqual(1)
    await server.server.close()
    expect(server.server.stats()).toMatchObject({ sockets: 0, documents: 0 })
  })
})
