/**
 * `yfs mcp` as an MCP client runs it: the real CLI (bin/yfs.js) in a child
 * process, JSON-RPC over its stdin/stdout.
 *
 * - Without `--server` its files live in the data folder: a restarted process
 *   finds them, even after a SIGKILL right after a tool result; `--memory` keeps
 *   none. A second process on the same folder fails at start naming the folder
 *   and the holder, and the first keeps working; so does one on a folder a
 *   `yfs serve` uses, and the reverse.
 * - In every mode it exits when its stdin closes (the client is gone), and
 *   with `--server` the server sees its socket go.
 */
import type { ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { type SpawnedProcess, spawnProcess, stopSpawned, waitFor } from '@yfs/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { adminSetup, type ServerProcess, spawnServer } from './spawn-server.js'

const BIN = fileURLToPath(new URL('../bin/yfs.js', import.meta.url))
const ADMIN = 'admin-token-for-mcp-cli-test'

// Every yfs mcp this file starts ends with it, even when an assertion fails midway.
afterAll(() => stopSpawned())

interface McpProcess {
  child: ChildProcess
  process: SpawnedProcess
  /** Resolves with the exit code. */
  exited: Promise<number | null>
  stderr: () => string
  call(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; text: string }>
}

/** Spawn `yfs mcp …args`, initialize it, and return a caller for its tools. */
async function startMcp(args: string[], cwd?: string, env: Record<string, string> = {}): Promise<McpProcess> {
  const waiting = new Map<number, (message: Record<string, unknown>) => void>()
  const mcp = spawnProcess(process.execPath, [BIN, 'mcp', ...args], {
    cwd,
    env: { ...process.env, ...env },
    onStdoutLine(line) {
      const message = JSON.parse(line) as Record<string, unknown>
      waiting.get(message.id as number)?.(message)
    },
  })
  const { child, exited } = mcp
  const stderr = () => mcp.stderr()
  let nextId = 1
  const request = (method: string, params: unknown) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++
      // A bound, not a pause: `yfs mcp` compiles its sources at start (tsx), seconds on a loaded machine.
      const timer = setTimeout(() => reject(new Error(`no answer to ${method}: ${stderr()}`)), 60_000)
      waiting.set(id, (m) => {
        clearTimeout(timer)
        resolve(m)
      })
      exited.then((code) => reject(new Error(`yfs mcp exited with ${code}: ${stderr()}`)))
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`)
    })
  await request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'test', version: '1' },
  })
  child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`)
  return {
    child,
    process: mcp,
    exited,
    stderr,
    async call(name, args) {
      const answer = (await request('tools/call', { name, arguments: args })) as {
        result: { isError?: boolean; content: { text: string }[] }
      }
      return { isError: answer.result.isError, text: answer.result.content[0]!.text }
    },
  }
}

/** Close stdin (the client is gone) and resolve with the exit code and how long it took. */
async function closeStdin(mcp: McpProcess): Promise<{ code: number | null; ms: number }> {
  const started = Date.now()
  mcp.child.stdin!.end()
  const code = await mcp.process.waitForExit(5_000, 'yfs mcp to exit once its stdin closed')
  return { code, ms: Date.now() - started }
}

describe('yfs mcp on a local data folder', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'yfs-mcp-cli-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('keeps its files in the data folder: a restarted process finds them', async () => {
    const data = join(dir, 'data')
    const first = await startMcp(['--data', data])
    expect(
      (await first.call('write_file', { path: 'vfs:///notes/a.md', content: '# kept\n' })).isError,
    ).toBeFalsy()
    expect(await closeStdin(first)).toMatchObject({ code: 0 })

    const second = await startMcp(['--data', data])
    expect((await second.call('read_file', { path: 'vfs:///notes/a.md' })).text).toBe('1\t# kept')
    // The bash worker starts under the CLI's loader too (it once looked for a compiled worker).
    expect((await second.call('bash', { script: 'cat /notes/a.md' })).text).toMatch(/^# kept\n/)
    // Another store of the same folder is listed, and kept too.
    await second.call('stores', { action: 'open', name: 'notes' })
    await second.call('write_file', { path: 'vfs:///b.txt', content: 'b' })
    expect(await closeStdin(second)).toMatchObject({ code: 0 })

    const fourth = await startMcp(['--data', data, '--store', 'notes'])
    expect((await fourth.call('read_file', { path: 'vfs:///b.txt' })).text).toBe('1\tb')
    expect((await fourth.call('stores', { action: 'list' })).text).toContain('"default"')
    expect(await closeStdin(fourth)).toMatchObject({ code: 0 })
  }, 120_000)

  it('./.yfs is the default folder, and YFS_DATA names another', async () => {
    const cwd = mkdtempSync(join(dir, 'cwd-'))
    const mcp = await startMcp([], cwd)
    await mcp.call('write_file', { path: 'vfs:///x.txt', content: 'x' })
    expect(await closeStdin(mcp)).toMatchObject({ code: 0 })
    expect(existsSync(join(cwd, '.yfs', 'yfs.sqlite'))).toBe(true)
    const fromEnv = await startMcp([], cwd, { YFS_DATA: join(dir, 'from-env') })
    expect((await fromEnv.call('read_file', { path: 'vfs:///x.txt' })).text).toContain('ENOENT')
    expect(await closeStdin(fromEnv)).toMatchObject({ code: 0 })
    expect(existsSync(join(dir, 'from-env', 'yfs.sqlite'))).toBe(true)
  }, 120_000)

  it('--memory keeps nothing', async () => {
    const cwd = mkdtempSync(join(dir, 'memory-'))
    const first = await startMcp(['--memory'], cwd)
    await first.call('write_file', { path: 'vfs:///gone.txt', content: 'gone' })
    expect(await closeStdin(first)).toMatchObject({ code: 0 })
    expect(existsSync(join(cwd, '.yfs'))).toBe(false)
    const second = await startMcp(['--memory'], cwd)
    expect((await second.call('read_file', { path: 'vfs:///gone.txt' })).text).toContain('ENOENT')
    expect(await closeStdin(second)).toMatchObject({ code: 0 })
  }, 120_000)

  it('a second yfs mcp on the same folder fails naming the folder; the first keeps working', async () => {
    const data = join(dir, 'shared')
    const first = await startMcp(['--data', data])
    await first.call('write_file', { path: 'vfs:///one.txt', content: 'one' })
    const second = spawnProcess(process.execPath, [BIN, 'mcp', '--data', data])
    const code = await second.exited
    expect(code).toBe(1)
    expect(second.stderr()).toContain(
      `data folder '${data}' is in use by yfs mcp (pid ${first.child.pid}): stop it`,
    )
    expect((await first.call('read_file', { path: 'vfs:///one.txt' })).text).toBe('1\tone')
    expect(await closeStdin(first)).toMatchObject({ code: 0 })
    // The lock went with the process.
    const third = await startMcp(['--data', data])
    expect((await third.call('read_file', { path: 'vfs:///one.txt' })).text).toBe('1\tone')
    expect(await closeStdin(third)).toMatchObject({ code: 0 })
  }, 120_000)

  it('refuses a folder a running yfs serve uses, and yfs serve refuses one yfs mcp holds', async () => {
    const data = join(dir, 'served')
    const server = await spawnServer(['--data', data])
    try {
      const mcp = spawnProcess(process.execPath, [BIN, 'mcp', '--data', data])
      expect(await mcp.exited).toBe(1)
      expect(mcp.stderr()).toContain(`data folder '${data}' is in use by yfs serve (pid ${server.child.pid})`)
      expect(mcp.stderr()).toContain('yfs mcp --server')
    } finally {
      await server.stop('SIGTERM')
    }
    const mcp = await startMcp(['--data', data])
    await expect(spawnServer(['--data', data], { timeoutMs: 60_000 })).rejects.toThrow(
      `data folder '${data}' is in use by yfs mcp (pid ${mcp.child.pid})`,
    )
    expect(await closeStdin(mcp)).toMatchObject({ code: 0 })
  }, 120_000)

  it('a tool result means stored: SIGKILL right after it loses nothing', async () => {
    const data = join(dir, 'killed')
    const first = await startMcp(['--data', data])
    await first.call('write_file', { path: 'vfs:///k.txt', content: 'kept' })
    first.child.kill('SIGKILL')
    await first.exited
    // The OS dropped the lock with the process.
    const second = await startMcp(['--data', data])
    expect((await second.call('read_file', { path: 'vfs:///k.txt' })).text).toBe('1\tkept')
    expect(await closeStdin(second)).toMatchObject({ code: 0 })
  }, 120_000)

  it('stores every edit on SIGTERM as well', async () => {
    const data = join(dir, 'signal')
    const first = await startMcp(['--data', data])
    await first.call('write_file', { path: 'vfs:///t.txt', content: 'term' })
    first.child.kill('SIGTERM')
    expect(await first.exited).toBe(0)
    const second = await startMcp(['--data', data])
    expect((await second.call('read_file', { path: 'vfs:///t.txt' })).text).toBe('1\tterm')
    await closeStdin(second)
  }, 120_000)
})

describe('yfs mcp --server exits when its stdin closes', () => {
  let dir: string
  let server: ServerProcess
  let token: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'yfs-mcp-cli-server-'))
    server = await spawnServer(['--data', dir, '--admin-token', ADMIN])
    token = await adminSetup(server.http, ADMIN, 'team')
  }, 120_000)
  afterAll(async () => {
    await server?.stop('SIGTERM')
    rmSync(dir, { recursive: true, force: true })
  })

  const sockets = async () => {
    const res = await fetch(`${server.http}/healthz`, { headers: { authorization: `Bearer ${ADMIN}` } })
    return ((await res.json()) as { sockets: number }).sockets
  }

  it('exits within seconds, its edits stored and its socket released', async () => {
    const mcp = await startMcp(['--server', server.url, '--token', token, '--store', 'team'])
    expect((await mcp.call('write_file', { path: 'vfs:///s.txt', content: 'served' })).isError).toBeFalsy()
    expect(await sockets()).toBe(1)
    const { code, ms } = await closeStdin(mcp)
    expect(code).toBe(0)
    expect(ms).toBeLessThan(5_000)
    await waitFor(async () => (await sockets()) === 0, 'the server to release the socket', {
      timeoutMs: 5_000,
      intervalMs: 25,
    })
    expect(await sockets()).toBe(0)
    const again = await startMcp(['--server', server.url, '--token', token, '--store', 'team'])
    expect((await again.call('read_file', { path: 'vfs:///s.txt' })).text).toBe('1\tserved')
    expect(await closeStdin(again)).toMatchObject({ code: 0 })
  }, 120_000)
})
