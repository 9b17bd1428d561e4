/**
 * The agent tools over MCP Streamable HTTP at the sync server's `/mcp`: an
 * agent with a workspace token works in that workspace, and a person
 * connected with @yfs/client sees the changes live.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { connectWorkspace } from '@yfs/client'
import { markdownCodec } from '@yfs/markdown'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer, waitFor } from './helpers.js'

describe('MCP at the sync server', () => {
  let t: TestServer
  let tokens: { write: string; read: string }
  const clients: Client[] = []
  const mcpUrl = () => new URL(`http://127.0.0.1:${t.port}/mcp`)

  beforeAll(async () => {
    t = await startTestServer()
    tokens = await t.workspace('team')
  })
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined)
    await t.close()
  })

  const connect = async (token: string, name = 'test') => {
    const client = new Client({ name, version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(mcpUrl(), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    )
    clients.push(client)
    return client
  }

  // A person's client of the workspace, as the web app opens it (Markdown as rich text).
  const connectPerson = () =>
    connectWorkspace({ url: t.url, workspace: 'team', token: tokens.write, fs: { codecs: [markdownCodec] } })

  it("an agent's tool calls land in the token's workspace, live for a person", async () => {
    const agent = await connect(tokens.write)
    const person = await connectPerson()
    try {
      const r = (await agent.callTool({
        name: 'write_file',
        arguments: { path: 'vfs:///plan.md', content: '# Plan\n' },
      })) as { isError?: boolean }
      expect(r.isError).toBeFalsy()
      await waitFor(
        async () =>
          (await person.fs.exists('/plan.md')) && (await person.fs.readFile('/plan.md')) === '# Plan\n',
        'the person to see the file',
      )
      const bash = (await agent.callTool({
        name: 'bash',
        arguments: { script: 'cat /plan.md' },
      })) as unknown as { structuredContent: { stdout: string } }
      expect(bash.structuredContent.stdout).toBe('# Plan\n')
    } finally {
      await person.close()
    }
  })

  it("an agent's >, >> and > of one file in separate calls leave what the last one wrote, with no merge", async () => {
    const agent = await connect(tokens.write)
    const bash = async (script: string) => {
      const r = (await agent.callTool({ name: 'bash', arguments: { script } })) as {
        content: { text: string }[]
      }
      return r.content.map((c) => c.text).join('')
    }
    await bash('echo hello > /redirects.txt')
    await bash('echo more >> /redirects.txt')
    // It used to merge with the state before its own append ('hi\nmore', "[merged] … someone else edited it").
    const last = await bash('echo hi > /redirects.txt; cat /redirects.txt')
    expect(last.startsWith('hi\n\n[exit code 0]')).toBe(true)
    expect(last).not.toContain('merged')
    await bash('printf "a\\nb\\n" > /heredoc.txt')
    await bash('sed -i s/a/A/ /heredoc.txt')
    await bash('echo c >> /heredoc.txt')
    const rewritten = await bash('cat > /heredoc.txt <<EOF\nfresh\nEOF\ncat /heredoc.txt')
    expect(rewritten.startsWith('fresh\n\n[exit code 0]')).toBe(true)
    expect(rewritten).not.toContain('merged')
  })

  it("a file an agent empties after renaming it to another kind stays empty, for the agent's next call and for a person", async () => {
    // The rename converts the content (.md is rich text); the old kind's copy stayed behind, and
    // once the file was emptied every reader but the writer took it for the content again.
    const agent = await connect(tokens.write)
    const bash = async (script: string) =>
      (
        (await agent.callTool({ name: 'bash', arguments: { script } })) as unknown as {
          structuredContent: { stdout: string }
        }
      ).structuredContent.stdout
    await bash('echo alpha > /kind.md; mv /kind.md /kind.txt; : > /kind.txt')
    await bash('echo beta > /back.txt; mv /back.txt /back.md; : > /back.md')
    expect(await bash('cat /kind.txt /back.md; wc -c < /kind.txt')).toBe('0\n')
    const person = await connectPerson()
    try {
      await waitFor(() => person.fs.exists('/back.md'), 'the person to see the files')
      expect(await person.fs.readFile('/kind.txt')).toBe('')
      expect(await person.fs.readFile('/back.md')).toBe('')
    } finally {
      await person.close()
    }
  })

  it('logs an agent as its MCP client\'s name, else its token\'s name, else "agent"', async () => {
    const named = await t.store.createToken('team', 'write', 'build-bot')
    const whoOf = async (token: string, clientName: string) => {
      const agent = await connect(token, clientName)
      const path = `vfs:///who-${Math.random().toString(36).slice(2)}.txt`
      const r = (await agent.callTool({ name: 'write_file', arguments: { path, content: 'x\n' } })) as {
        isError?: boolean
      }
      expect(r.isError).toBeFalsy()
      const log = (await agent.callTool({ name: 'activity', arguments: { limit: 1 } })) as unknown as {
        structuredContent: { entries: { tool: string; who: string }[] }
      }
      const [entry] = log.structuredContent.entries
      expect(entry?.tool).toBe('write_file')
      return entry?.who
    }
    expect(await whoOf(named, 'claude-code')).toBe('claude-code')
    expect(await whoOf(named, '')).toBe('build-bot')
    expect(await whoOf(tokens.write, '')).toBe('agent')
  })

  it('refuses a missing, wrong or read-only token with a clear status', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    }
    const post = (headers: Record<string, string>) =>
      fetch(mcpUrl(), {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify(init),
      })
    const none = await post({})
    expect(none.status).toBe(401)
    expect(await none.text()).toContain('missing token')
    expect((await post({ authorization: 'Bearer nope' })).status).toBe(401)
    const read = await post({ authorization: `Bearer ${tokens.read}` })
    expect(read.status).toBe(403)
    expect(await read.text()).toContain('write token')
  })

  it('a cancelled bash call stops its script on the server (notifications/cancelled)', async () => {
    const agent = await connect(tokens.write)
    const person = await connectWorkspace({ url: t.url, workspace: 'team', token: tokens.write })
    try {
      const controller = new AbortController()
      const call = agent.callTool(
        { name: 'bash', arguments: { script: 'echo s > /cancel-started; sleep 60; echo x > /cancel-never' } },
        undefined,
        { signal: controller.signal, timeout: 120_000 },
      )
      await waitFor(() => person.fs.exists('/cancel-started'), 'the script to start')
      const cancelled = performance.now()
      controller.abort()
      await expect(call).rejects.toThrow()
      // The call's activity entry is written once the run has ended: within seconds, not 60 s.
      await waitFor(
        async () => {
          const r = await agent.callTool({ name: 'activity', arguments: {} })
          return JSON.stringify(r.structuredContent).includes('cancel-started')
        },
        'the cancelled call to end',
        10_000,
      )
      expect(performance.now() - cancelled).toBeLessThan(10_000)
      expect(await person.fs.exists('/cancel-never')).toBe(false)
    } finally {
      await person.close()
    }
  }, 60_000)
})
