/**
 * Run `yfs serve` as a child process (the real CLI through bin/yfs.js), wait
 * for its `listening` log line, and stop it with a signal.
 */
import type { ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { spawnProcess } from '@yfs/core/testing'

const BIN = fileURLToPath(new URL('../bin/yfs.js', import.meta.url))

export interface ServerProcess {
  child: ChildProcess
  port: number
  url: string
  http: string
  /** Parsed JSON log lines so far. */
  logs: Record<string, unknown>[]
  /** Send `signal` and resolve with the exit code (null when killed by a signal). */
  stop(signal: NodeJS.Signals): Promise<number | null>
}

export async function spawnServer(
  args: string[],
  // `bin`: another checkout's `apps/cli/bin/yfs.js` (a benchmark against an earlier build).
  options: { timeoutMs?: number; nodeArgs?: string[]; bin?: string } = {},
): Promise<ServerProcess> {
  const timeoutMs = options.timeoutMs ?? 60_000
  const logs: Record<string, unknown>[] = []
  const server = spawnProcess(
    process.execPath,
    [...(options.nodeArgs ?? []), options.bin ?? BIN, 'serve', '--port', '0', ...args],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      onStdoutLine(line) {
        try {
          logs.push(JSON.parse(line) as Record<string, unknown>)
        } catch {
          // Not one of our JSON lines (a dependency printing): keep going.
        }
      },
    },
  )
  const listening = await server.waitForOutput(
    () => logs.find((record) => record.event === 'listening'),
    'the server to start (its listening line)',
    timeoutMs,
  )
  const port = listening.port as number
  return {
    child: server.child,
    port,
    url: `ws://127.0.0.1:${port}`,
    http: `http://127.0.0.1:${port}`,
    logs,
    stop: (signal) => server.stop(signal),
  }
}

/** Create a workspace and a token through the admin API. */
export async function adminSetup(http: string, adminToken: string, workspace: string, role = 'write') {
  const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }
  const ws = await fetch(`${http}/api/workspaces`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ id: workspace }),
  })
  if (ws.status !== 201 && ws.status !== 200) throw new Error(`create workspace: ${ws.status}`)
  const res = await fetch(`${http}/api/workspaces/${workspace}/tokens`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ role }),
  })
  if (res.status !== 201) throw new Error(`create token: ${res.status}`)
  return ((await res.json()) as { token: string }).token
}
