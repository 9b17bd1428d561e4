/**
 * Run `yfs serve` as a child process (the real CLI through bin/yfs.js), wait
 * for its `listening` log line, and stop it with a signal.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'

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
  options: { timeoutMs?: number; nodeArgs?: string[] } = {},
): Promise<ServerProcess> {
  const timeoutMs = options.timeoutMs ?? 60_000
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, 'serve', '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const logs: Record<string, unknown>[] = []
  let stderr = ''
  child.stderr!.on('data', (d) => {
    stderr += d
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server did not start: ${stderr}`))
    }, timeoutMs)
    let buffered = ''
    child.stdout!.on('data', (chunk) => {
      buffered += chunk
      let nl = buffered.indexOf('\n')
      while (nl !== -1) {
        const line = buffered.slice(0, nl)
        buffered = buffered.slice(nl + 1)
        nl = buffered.indexOf('\n')
        try {
          const record = JSON.parse(line) as Record<string, unknown>
          logs.push(record)
          if (record.event === 'listening') {
            clearTimeout(timer)
            resolve(record.port as number)
          }
        } catch {
          // Not one of our JSON lines (a dependency printing): keep going.
        }
      }
    })
    exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`server exited with ${code}: ${stderr}`))
    })
  })
  return {
    child,
    port,
    url: `ws://127.0.0.1:${port}`,
    http: `http://127.0.0.1:${port}`,
    logs,
    async stop(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
      child.kill(signal)
      return exited
    },
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
