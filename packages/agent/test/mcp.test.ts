/**
 * The MCP server through the official SDK client, over real stdio (a child
 * process) and real HTTP (a socket on 127.0.0.1).
 */
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { waitFor } from '@yfs/core/testing'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenMcpHttp } from '../src/mcp/http.js'
import { createMemoryStores, type StoreProvider } from '../src/mcp/stores.js'

const bin = fileURLToPath(new URL('../bin/yfs.mjs', import.meta.url))
type CallResult = {
  isError?: boolean
  content: { type: string; text: string }[]
  structuredContent?: Record<string, unknown>
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args })) as CallResult
}

async function agentSession(client: Client): Promise<void> {
  // A realistic session: write, read, edit, grep, bash, history, restore.
  expect(
    (
      await call(client, 'write_file', {
        path: 'vfs:///src/app.ts',
        content: 'export const x = 1\n// TODO: y\n',
      })
    ).isError,
  ).toBeFalsy()
  const read = await call(client, 'read_file', { path: 'vfs:///src/app.ts' })
  expect(read.content[0]!.text).toBe('1\texport const x = 1\n2\t// TODO: y')
  const version = read.structuredContent!.version
  const edit = await call(client, 'edit_file', {
    path: 'vfs:///src/app.ts',
    old_text: 'x = 1',
    new_text: 'x = 2',
    expected_version: version,
  })
  expect(edit.content[0]!.text).toContain('+export const x = 2')
  const grep = await call(client, 'grep', { pattern: 'TODO' })
  expect(grep.content[0]!.text).toBe('vfs:///src/app.ts:2:// TODO: y')
  const bash = await call(client, 'bash', { script: "sed -i 's/TODO/DONE/' /src/app.ts && cat /src/app.ts" })
  expect(bash.structuredContent).toMatchObject({
    stdout: 'export const x = 2\n// DONE: y\n',
    exit_code: 0,
    files_changed: ['vfs:///src/app.ts'],
  })
  const history = await call(client, 'history', { path: 'vfs:///src/app.ts' })
  const versions = history.structuredContent!.versions as { id: string }[]
  expect(versions.length).toBe(3)
  await call(client, 'checkout_version', { path: 'vfs:///src/app.ts', version: versions[0]!.id })
  expect((await call(client, 'read_file', { path: 'vfs:///src/app.ts' })).structuredContent!.content).toBe(
    'export const x = 1\n// TODO: y',
  )
  const bad = await call(client, 'read_file', { path: '/src/app.ts' })
  expect(bad.isError).toBe(true)
  expect(bad.content[0]!.text).toContain("use 'vfs:///src/app.ts'")
}

describe('MCP over stdio', () => {
  let client: Client
  beforeAll(async () => {
    client = new Client({ name: 'test', version: '1.0.0' })
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [bin, 'mcp'], stderr: 'pipe' }),
    )
  })
  afterAll(async () => {
    await client.close()
  })

  it('lists every tool with a valid object schema and annotations', async () => {
    const { tools } = await client.listTools()
    expect(tools.length).toBeGreaterThanOrEqual(23)
    for (const t of tools) {
      expect(t.inputSchema.type).toBe('object')
      expect(t.annotations?.readOnlyHint).toBeTypeOf('boolean')
      expect(t.description!.length).toBeGreaterThan(40)
    }
    expect(tools.map((t) => t.name)).toContain('stores')
  })

  it('every input schema is valid JSON Schema 2020-12 and agrees with the server on what is valid', async () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true })
    const { tools } = await client.listTools()
    for (const t of tools) {
      const validate = ajv.compile(t.inputSchema)
      type Prop = { type?: string; description?: string; anyOf?: unknown }
      const props = (t.inputSchema.properties ?? {}) as Record<string, Prop>
      const args: Record<string, unknown> = {}
      for (const key of t.inputSchema.required ?? []) {
        const p = props[key]!
        args[key] = p.description?.startsWith('vfs:///') ? 'vfs:///none' : p.type === 'integer' ? 1 : 'x'
      }
      if (t.name === 'stores') args.action = 'list'
      expect(validate(args), `${t.name} ${JSON.stringify(validate.errors)}`).toBe(true)
      const accepted = await call(client, t.name, args)
      expect(accepted.content[0]!.text, t.name).not.toContain('invalid arguments')
      // A wrong type for each property: the schema and the server both refuse it.
      for (const [key, p] of Object.entries(props)) {
        const wrong = { ...args, [key]: p.type === 'string' || p.anyOf ? 42 : 'not-a-number-or-boolean' }
        expect(validate(wrong), `${t.name}.${key}`).toBe(false)
        const refused = await call(client, t.name, wrong)
        expect(refused.isError, `${t.name}.${key}`).toBe(true)
        expect(refused.content[0]!.text, `${t.name}.${key}`).toContain('invalid arguments')
      }
    }
  })

  it('runs a realistic agent session', async () => {
    await agentSession(client)
  })
})

/** The bearer header a listenMcpHttp server requires. */
const bearer = (served: { token: string }) => ({ authorization: `Bearer ${served.token}` })

describe('MCP over Streamable HTTP', () => {
  let url: string
  let auth: Record<string, string>
  let close: () => Promise<void>
  const clients: Client[] = []
  const connect = async () => {
    const c = new Client({ name: 'test', version: '1.0.0' })
    await c.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: auth } }))
    clients.push(c)
    return c
  }
  beforeAll(async () => {
    const served = await listenMcpHttp({ stores: createMemoryStores(), port: 0 })
    url = served.url
    auth = bearer(served)
    close = served.close
  })
  afterAll(async () => {
    for (const c of clients) await c.close()
    await close()
  })

  it('runs a realistic agent session', async () => {
    await agentSession(await connect())
  })

  it('sessions are private by default and share a named store', async () => {
    const a = await connect()
    const b = await connect()
    await call(a, 'write_file', { path: 'vfs:///secret.txt', content: 'only a' })
    expect((await call(b, 'read_file', { path: 'vfs:///secret.txt' })).isError).toBe(true)
    await call(a, 'stores', { action: 'open', name: 'team' })
    await call(b, 'stores', { action: 'open', name: 'team' })
    await call(a, 'write_file', { path: 'vfs:///shared.txt', content: 'from a' })
    expect((await call(b, 'read_file', { path: 'vfs:///shared.txt' })).structuredContent!.content).toBe(
      'from a',
    )
    expect((await call(b, 'stores', { action: 'list' })).structuredContent).toMatchObject({
      current: 'team',
      stores: ['team'],
    })
    expect((await call(b, 'read_file', { path: 'vfs:///secret.txt' })).isError).toBe(true)
  })

  it('garbage requests get an error and do not break the server', async () => {
    const r1 = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth },
      body: '{not json',
    })
    expect(r1.status).toBe(400)
    const r2 = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'mcp-session-id': 'nope', ...auth },
      body: '{}',
    })
    expect(r2.status).toBe(404)
    const c = await connect()
    expect((await c.listTools()).tools.length).toBeGreaterThan(20)
  })
})

describe('MCP session lifetime over HTTP', () => {
  /** Memory stores that count how many private workspaces were destroyed. */
  const countingStores = () => {
    const memory = createMemoryStores()
    const state = { created: 0, destroyed: 0 }
    const stores: StoreProvider = {
      ...memory,
      async createPrivate() {
        const fs = await memory.createPrivate()
        const destroy = fs.destroy.bind(fs)
        fs.destroy = () => {
          state.destroyed++
          destroy()
        }
        state.created++
        return fs
      },
    }
    return { stores, state }
  }

  it('closing a session destroys its private workspace', async () => {
    const { stores, state } = countingStores()
    const served = await listenMcpHttp({ stores, port: 0 })
    try {
      const transport = new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: bearer(served) },
      })
      const c = new Client({ name: 'test', version: '1.0.0' })
      await c.connect(transport)
      await call(c, 'write_file', { path: 'vfs:///a.txt', content: 'x' })
      await transport.terminateSession()
      await c.close()
      await waitFor(() => state.destroyed === 1, 'the private workspace to be destroyed', 5000)
      expect(state.created).toBe(1)
    } finally {
      await served.close()
    }
  })

  it('a session idle for longer than idleTimeoutMs is closed and its id is then unknown', async () => {
    const { stores, state } = countingStores()
    const served = await listenMcpHttp({ stores, port: 0, idleTimeoutMs: 150 })
    try {
      const transport = new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: bearer(served) },
      })
      const c = new Client({ name: 'test', version: '1.0.0' })
      await c.connect(transport)
      expect((await call(c, 'write_file', { path: 'vfs:///a.txt', content: 'x' })).isError).toBeFalsy()
      const sessionId = transport.sessionId!
      await waitFor(() => state.destroyed === 1, 'the idle session to close', 5000)
      const r = await fetch(served.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          ...bearer(served),
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      })
      expect(r.status).toBe(404)
      await c.close()
    } finally {
      await served.close()
    }
  })

  it('a call that runs longer than idleTimeoutMs is answered: a session is not idle while it works', async () => {
    const { stores, state } = countingStores()
    const served = await listenMcpHttp({ stores, port: 0, idleTimeoutMs: 100 })
    try {
      const transport = new StreamableHTTPClientTransport(new URL(served.url), {
        requestInit: { headers: bearer(served) },
      })
      const c = new Client({ name: 'test', version: '1.0.0' })
      await c.connect(transport)
      const r = await call(c, 'bash', { script: 'sleep 1; echo still here > /done.txt; cat /done.txt' })
      expect(r.isError).toBeFalsy()
      expect((r.structuredContent as { stdout: string }).stdout).toBe('still here\n')
      expect(state.destroyed).toBe(0)
      // Once answered, the session idles out as before.
      await waitFor(() => state.destroyed === 1, 'the idle session to close', 5000)
      await c.close()
    } finally {
      await served.close()
    }
  })
})
