/**
 * `yfs mcp --http` (the real CLI in a child process) is closed to web pages
 * and to callers without its token: it prints a generated token and a
 * ready-to-paste client configuration; a forged Origin or Host (a page that
 * DNS-rebinds its name to 127.0.0.1) gets 403 naming the header; a missing
 * or wrong token gets 401; each on POST, GET and DELETE. After each hostile
 * case the printed configuration still works for a real MCP client.
 */
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { type SpawnedProcess, spawnProcess } from '@yfs/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawMcp } from './raw-mcp.js'

const BIN = fileURLToPath(new URL('../bin/yfs.mjs', import.meta.url))

interface Spawned {
  process: SpawnedProcess
  port: number
  readonly stdout: string
  readonly stderr: string
  config: { mcpServers: { yfs: { type: string; url: string; headers: { Authorization: string } } } }
}

/** Start `yfs mcp --http 0 ...args`; resolves once it printed its client configuration. */
async function spawnMcp(args: string[], env: Record<string, string> = {}): Promise<Spawned> {
  const mcp = spawnProcess(process.execPath, [BIN, 'mcp', '--http', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  })
  const config = await mcp.waitForOutput(
    (p) => {
      const stdout = p.stdout()
      try {
        return JSON.parse(stdout.slice(stdout.indexOf('{'))) as Spawned['config']
      } catch {
        return undefined // Not all of it yet.
      }
    },
    'the client configuration (yfs mcp)',
    20_000,
  )
  const port = Number(new URL(config.mcpServers.yfs.url).port)
  return {
    process: mcp,
    port,
    config,
    get stdout() {
      return mcp.stdout()
    },
    get stderr() {
      return mcp.stderr()
    },
  }
}

const stop = async (mcp: Spawned) => {
  await mcp.process.stop('SIGTERM')
}

/** The printed configuration, as an MCP client would use it: connect, write, read back with bash. */
async function configWorks(config: Spawned['config'], origin?: string): Promise<void> {
  const { url, headers } = config.mcpServers.yfs
  const client = new Client({ name: 'test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...headers, ...(origin ? { origin } : {}) } },
  })
  await client.connect(transport)
  try {
    await client.callTool({ name: 'write_file', arguments: { path: 'vfs:///a.txt', content: 'hi' } })
    const r = (await client.callTool({ name: 'bash', arguments: { script: 'cat /a.txt' } })) as unknown as {
      structuredContent: { stdout: string }
    }
    expect(r.structuredContent.stdout).toBe('hi')
  } finally {
    await transport.terminateSession()
    await client.close()
  }
}

describe('yfs mcp --http: token and Origin/Host', () => {
  let mcp: Spawned
  let auth: Record<string, string>
  let host: string

  beforeAll(async () => {
    mcp = await spawnMcp([])
    auth = { authorization: mcp.config.mcpServers.yfs.headers.Authorization }
    host = `127.0.0.1:${mcp.port}`
  })
  afterAll(async () => {
    await stop(mcp)
  })

  it('prints a generated token and a ready-to-paste client configuration', async () => {
    const token = /^token: (\S+)$/m.exec(mcp.stdout)?.[1]
    expect(token).toMatch(/^[\w-]{40,}$/)
    expect(mcp.config.mcpServers.yfs).toEqual({
      type: 'http',
      url: `http://127.0.0.1:${mcp.port}/mcp`,
      headers: { Authorization: `Bearer ${token}` },
    })
    await expect.poll(() => mcp.stderr).toContain(`listening on http://127.0.0.1:${mcp.port}/mcp`)
    expect(mcp.stderr).not.toContain('warning')
    await configWorks(mcp.config)
  })

  it('refuses a missing or wrong token with 401, on every method', async () => {
    const none = await rawMcp(mcp.port, 'POST', { host })
    expect(none.status).toBe(401)
    expect(none.body).toContain('missing token')
    expect(none.headers['www-authenticate']).toBe('Bearer')
    const wrong = await rawMcp(mcp.port, 'POST', { host, authorization: 'Bearer not-the-token' })
    expect(wrong.status).toBe(401)
    expect(wrong.body).toContain('invalid token')
    const almost = auth.authorization!.slice(0, -1)
    expect((await rawMcp(mcp.port, 'POST', { host, authorization: almost })).status).toBe(401)
    for (const method of ['GET', 'DELETE'] as const)
      expect((await rawMcp(mcp.port, method, { host, 'mcp-session-id': 'x' })).status, method).toBe(401)
    await configWorks(mcp.config)
  })

  it('refuses a foreign Origin with 403 naming Origin, even with the token, on every method', async () => {
    for (const method of ['POST', 'GET', 'DELETE', 'OPTIONS'] as const) {
      const r = await rawMcp(mcp.port, method, { host, origin: 'http://evil.example', ...auth })
      expect(r.status, method).toBe(403)
      expect(JSON.parse(r.body).error.message, method).toMatch(/^Origin "http:\/\/evil.example"/)
      expect(r.headers['access-control-allow-origin'], method).toBeUndefined()
    }
    await configWorks(mcp.config)
  })

  it('refuses a rebound Host with 403 naming Host, even with the token and a loopback Origin', async () => {
    const evilHost = `evil.example:${mcp.port}`
    for (const method of ['POST', 'GET', 'DELETE'] as const) {
      const r = await rawMcp(mcp.port, method, { host: evilHost, ...auth })
      expect(r.status, method).toBe(403)
      expect(JSON.parse(r.body).error.message, method).toMatch(/^Host "evil.example:\d+"/)
    }
    const r = await rawMcp(mcp.port, 'POST', {
      host: evilHost,
      origin: `http://evil.example:${mcp.port}`,
      ...auth,
    })
    expect(r.status).toBe(403)
    await configWorks(mcp.config)
  })

  it('accepts the loopback origin of its own port (a page it serves itself)', async () => {
    await configWorks(mcp.config, `http://localhost:${mcp.port}`)
  })
})

describe('yfs mcp --http with --allow-origin and --http-token', () => {
  it('an allowed origin works (CORS names it, never *); others are still refused', async () => {
    const mcp = await spawnMcp([
      '--allow-origin',
      'http://app.example',
      '--allow-origin',
      'https://b.example',
    ])
    try {
      const auth = { authorization: mcp.config.mcpServers.yfs.headers.Authorization }
      const host = `127.0.0.1:${mcp.port}`
      const pre = await rawMcp(mcp.port, 'OPTIONS', { host, origin: 'http://app.example' })
      expect(pre.status).toBe(204)
      expect(pre.headers['access-control-allow-origin']).toBe('http://app.example')
      const init = await rawMcp(mcp.port, 'POST', { host, origin: 'https://b.example', ...auth })
      expect(init.status).toBe(200)
      expect(init.headers['access-control-allow-origin']).toBe('https://b.example')
      expect(init.headers['mcp-session-id']).toBeTruthy()
      const evil = await rawMcp(mcp.port, 'POST', { host, origin: 'http://evil.example', ...auth })
      expect(evil.status).toBe(403)
      await configWorks(mcp.config, 'http://app.example')
    } finally {
      await stop(mcp)
    }
  })

  it('a token given in the environment is the one required, and is not printed', async () => {
    const token = 'a-token-given-by-the-person-0123456789'
    const mcp = await spawnMcp([], { YFS_MCP_HTTP_TOKEN: token })
    try {
      expect(mcp.stdout).not.toContain(token)
      expect(mcp.stdout).not.toMatch(/^token:/m)
      const host = `127.0.0.1:${mcp.port}`
      expect((await rawMcp(mcp.port, 'POST', { host, authorization: 'Bearer wrong' })).status).toBe(401)
      const config = structuredClone(mcp.config)
      config.mcpServers.yfs.headers.Authorization = `Bearer ${token}`
      await configWorks(config)
    } finally {
      await stop(mcp)
    }
  })

  it('a short --http-token and a bad --allow-origin are refused at start', async () => {
    await expect(spawnMcp(['--http-token', 'short'])).rejects.toThrow(/at least 16 characters/)
    await expect(spawnMcp(['--allow-origin', 'evil'])).rejects.toThrow(/not an origin/)
  })

  it('binding beyond loopback warns on stderr', async () => {
    const mcp = await spawnMcp(['--host', '0.0.0.0'])
    try {
      await expect.poll(() => mcp.stderr).toMatch(/warning: binding 0\.0\.0\.0/)
      await configWorks(mcp.config)
    } finally {
      await stop(mcp)
    }
  })
})
