/**
 * `yfs mcp --server`: the agent works in a workspace of a real sync server
 * (the server's own CLI in a child process, SQLite in a temp dir) and a
 * person connected with @yfs/client sees its changes live, and the reverse.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { type SpawnedProcess, spawnProcess, waitFor } from '@yfs/core/testing'
import { markdownCodec } from '@yfs/markdown'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const SERVER_BIN = fileURLToPath(new URL('../../../apps/cli/bin/yfs.js', import.meta.url))
const AGENT_BIN = fileURLToPath(new URL('../bin/yfs.mjs', import.meta.url))
const ADMIN = 'admin-token-for-test'

async function startServer(dataDir: string): Promise<{ process: SpawnedProcess; port: number }> {
  let port: number | undefined
  const server = spawnProcess(
    process.execPath,
    [SERVER_BIN, 'serve', '--port', '0', '--data', dataDir, '--admin-token', ADMIN],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      onStdoutLine(line) {
        try {
          const record = JSON.parse(line) as { event?: string; port?: number }
          if (record.event === 'listening' && record.port) port ??= record.port
        } catch {
          // Not a JSON log line.
        }
      },
    },
  )
  return { process: server, port: await server.waitForOutput(() => port, 'the server to start', 20_000) }
}

async function admin(port: number, path: string, body: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`)
  return (await res.json()) as Record<string, unknown>
}

describe('MCP on sync-server workspaces', () => {
  let dataDir: string
  let server: { process: SpawnedProcess; port: number }
  let agent: Client
  let person: WorkspaceConnection

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'yfs-mcp-'))
    server = await startServer(dataDir)
    await admin(server.port, '/api/workspaces', { id: 'team' })
    const { token } = (await admin(server.port, '/api/workspaces/team/tokens', { role: 'write' })) as {
      token: string
    }
    const url = `ws://127.0.0.1:${server.port}`
    agent = new Client({ name: 'test', version: '1.0.0' })
    await agent.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [AGENT_BIN, 'mcp', '--server', url, '--token', token, '--store', 'team'],
      }),
    )
    person = await connectWorkspace({
      url,
      workspace: 'team',
      token,
      fs: { codecs: [markdownCodec], author: 'user:ana' },
    })
  }, 60_000)

  afterAll(async () => {
    await agent?.close()
    await person?.close()
    await server?.process.stop('SIGTERM')
    rmSync(dataDir, { recursive: true, force: true })
  })

  it("a person sees the agent's writes live, and the agent sees the person's", async () => {
    const r = (await agent.callTool({
      name: 'write_file',
      arguments: { path: 'vfs:///notes/plan.md', content: '# Plan\n\n- ship\n' },
    })) as {
      isError?: boolean
    }
    expect(r.isError).toBeFalsy()
    await waitFor(
      async () =>
        (await person.fs.exists('/notes/plan.md')) &&
        (await person.fs.readFile('/notes/plan.md')) === '# Plan\n\n- ship\n',
      "the plan on the person's side",
    )
    await person.fs.writeFile('/notes/reply.txt', 'looks good')
    await person.flush()
    await waitFor(async () => {
      const res = (await agent.callTool({
        name: 'grep',
        arguments: { pattern: 'looks good' },
      })) as unknown as {
        structuredContent: { count: number }
      }
      return res.structuredContent.count === 1
    }, "the person's reply in the agent's grep")
  }, 30_000)

  it("a stale write_file merges the person's edit made after the agent's read_file and says so", async () => {
    type Result = {
      isError?: boolean
      content: { text: string }[]
      structuredContent: Record<string, unknown>
    }
    const call = async (name: string, args: Record<string, unknown>) =>
      (await agent.callTool({ name, arguments: args })) as unknown as Result
    const base = 'alpha\nbeta\ngamma\ndelta\n'
    expect((await call('write_file', { path: 'vfs:///stale.txt', content: base })).isError).toBeFalsy()
    await waitFor(
      async () => (await person.fs.exists('/stale.txt')) && (await person.fs.readFile('/stale.txt')) === base,
      "the agent's file on the person's side",
    )
    const read = await call('read_file', { path: 'vfs:///stale.txt' })
    expect(read.structuredContent.content).toBe(base.slice(0, -1))
    // The person types into their editor (the content doc of their own client).
    const id = person.fs.index.lookup('/stale.txt')!
    const handle = await person.fs.pool.acquire(id)
    const text = handle.doc.getText('text')
    handle.doc.transact(() => text.insert(base.indexOf('delta') + 'delta'.length, ' (person)'), 'editor')
    handle.release()
    await person.flush()
    // Wait until the agent's side has the edit, without reading the file (that would refresh its base).
    const size = async () => {
      const entries = (await call('list_directory', { path: 'vfs:///' })).structuredContent.entries as {
        name: string
        size: number
      }[]
      return entries.find((e) => e.name === 'stale.txt')?.size
    }
    await waitFor(
      async () => (await size()) === base.length + ' (person)'.length,
      "the person's edit on the agent's side",
    )
    const write = await call('write_file', {
      path: 'vfs:///stale.txt',
      content: base.replace('alpha', 'ALPHA (agent)'),
    })
    expect(write.isError).toBeFalsy()
    expect(write.content[0]!.text).toContain('your write was merged with those changes')
    const want = 'ALPHA (agent)\nbeta\ngamma\ndelta (person)\n'
    await waitFor(async () => (await person.fs.readFile('/stale.txt')) === want, 'the merged text')
    expect((await call('read_file', { path: 'vfs:///stale.txt' })).structuredContent.content).toBe(
      want.slice(0, -1),
    )
  }, 30_000)
})
