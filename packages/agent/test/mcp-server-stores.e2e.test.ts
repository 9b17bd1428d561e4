/**
 * `yfs mcp --server`: the agent works in a workspace of a real sync server
 * (the server's own CLI in a child process, SQLite in a temp dir) and a
 * person connected with @yfs/client sees its changes live, and the reverse.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { markdownCodec } from '@yfs/markdown'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const SERVER_BIN = fileURLToPath(new URL('../../../apps/server/bin/yfs.js', import.meta.url))
const AGENT_BIN = fileURLToPath(new URL('../bin/yfs.mjs', import.meta.url))
const ADMIN = 'admin-token-for-test'

async function startServer(dataDir: string): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(
    process.execPath,
    [SERVER_BIN, 'serve', '--port', '0', '--data', dataDir, '--admin-token', ADMIN],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server did not start')), 20_000)
    let buffered = ''
    child.stdout!.on('data', (chunk) => {
      buffered += chunk
      for (let nl = buffered.indexOf('\n'); nl !== -1; nl = buffered.indexOf('\n')) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        try {
          const record = JSON.parse(line) as { event?: string; port?: number }
          if (record.event === 'listening' && record.port) {
            clearTimeout(timer)
            resolve(record.port)
          }
        } catch {
          // Not a JSON log line.
        }
      }
    })
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  return { child, port }
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

async function until(check: () => Promise<boolean> | boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time')
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe('MCP on sync-server workspaces', () => {
  let dataDir: string
  let server: { child: ChildProcess; port: number }
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
    server?.child.kill('SIGTERM')
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
    await until(
      async () =>
        (await person.fs.exists('/notes/plan.md')) &&
        (await person.fs.readFile('/notes/plan.md')) === '# Plan\n\n- ship\n',
    )
    await person.fs.writeFile('/notes/reply.txt', 'looks good')
    await person.flush()
    await until(async () => {
      const res = (await agent.callTool({
        name: 'grep',
        arguments: { pattern: 'looks good' },
      })) as unknown as {
        structuredContent: { count: number }
      }
      return res.structuredContent.count === 1
    })
  }, 30_000)
})
