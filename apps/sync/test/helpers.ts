/**
 * Test harness for the daemon: a real `yfs serve` child process (SQLite in
 * a temp folder), workspaces and tokens through its admin API, real
 * `@yfs/client` connections, temp folders, and bounded waits.
 */
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { markdownCodec } from '@yfs/markdown'
import { adminSetup, type ServerProcess, spawnServer } from '../../cli/test/spawn-server.js'
import type { SyncEvent } from '../src/sync-events.js'
import { type FolderSync, type SyncFolderOptions, syncFolder } from '../src/sync-folder.js'

export const ADMIN = 'sync-test-admin'
const BIN = fileURLToPath(new URL('../../cli/bin/yfs.cjs', import.meta.url))

import { spawnProcess, waitFor } from '@yfs/core/testing'

export { waitFor }

/** Resolves once the wall clock is past the millisecond of the call: what comes next has a later `createdAt`. */
export async function nextMillisecond(): Promise<void> {
  const now = Date.now()
  while (Date.now() <= now) await new Promise((r) => setImmediate(r))
}

/**
 * Resolves once `client` has the rows the server has (equal to a fresh connection's): everything
 * a peer sent before the call has reached it, or never will.
 */
export async function sameRowsAsServer(
  env: SyncTestEnv,
  ws: { id: string; token: string },
  client: WorkspaceConnection,
): Promise<void> {
  const fresh = await env.connect(ws)
  const rows = (c: WorkspaceConnection) =>
    JSON.stringify([...c.fs.table.rows()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
  try {
    await waitFor(() => rows(client) === rows(fresh), 'the same rows as the server')
  } finally {
    await fresh.close(2000)
  }
}

export function tempDir(prefix = 'yfs-sync-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

export interface SyncTestEnv {
  server: ServerProcess
  /** A fresh workspace with a write token. */
  workspace(id: string): Promise<{ id: string; token: string }>
  connect(workspace: { id: string; token: string }): Promise<WorkspaceConnection>
  /** syncFolder over a new connection; events are collected. */
  startSync(
    workspace: { id: string; token: string },
    dir: string,
    options?: Partial<SyncFolderOptions>,
  ): Promise<{
    sync: FolderSync
    connection: WorkspaceConnection
    events: SyncEvent[]
    stop(): Promise<void>
  }>
  /** Remove temp folders, close connections and stop the server. */
  close(): Promise<void>
  dirs: string[]
}

/** A server child process and helpers; `serverNodeArgs` go to its `node` (e.g. `--cpu-prof` when profiling a bench). */
export async function startEnv(serverNodeArgs: string[] = []): Promise<SyncTestEnv> {
  const data = tempDir('yfs-sync-server-')
  const server = await spawnServer(['--data', data, '--admin-token', ADMIN], { nodeArgs: serverNodeArgs })
  const closers: (() => Promise<void>)[] = []
  const dirs: string[] = [data]
  const env: SyncTestEnv = {
    server,
    dirs,
    async workspace(id) {
      return { id, token: await adminSetup(server.http, ADMIN, id) }
    },
    async connect(ws) {
      const c = await connectWorkspace({
        url: server.url,
        workspace: ws.id,
        token: ws.token,
        fs: { codecs: [markdownCodec], author: 'user:test' },
      })
      closers.push(() => c.close(2000))
      return c
    },
    async startSync(ws, dir, options = {}) {
      const connection = await env.connect(ws)
      const events: SyncEvent[] = []
      const sync = await syncFolder({
        fs: connection.fs,
        dir,
        workspace: ws.id,
        onEvent: (e) => events.push(e),
        ...options,
      })
      let stopped = false
      const stop = async () => {
        if (stopped) return
        stopped = true
        await sync.close()
        await connection.flush(10_000)
      }
      closers.push(stop)
      return { sync, connection, events, stop }
    },
    async close() {
      for (const c of closers.reverse()) await c().catch(() => undefined)
      await server.stop('SIGTERM')
      for (const d of dirs) rmSync(d, { recursive: true, force: true })
    },
  }
  return env
}

export interface DaemonProcess {
  child: ChildProcess
  events: Record<string, unknown>[]
  stderr(): string
  /** Resolves once the daemon printed its `ready` event. */
  ready: Promise<void>
  exited: Promise<number | null>
}

/**
 * Run `yfs sync <dir> --json` as a child process (as another user with `as`, when root); `bin` is
 * the `yfs` launcher to run (this checkout's by default; the bench times other builds too).
 */
export function spawnDaemon(
  server: ServerProcess,
  ws: { id: string; token: string },
  dir: string,
  extra: string[] = [],
  as: { uid?: number; gid?: number } = {},
  bin = BIN,
): DaemonProcess {
  const events: Record<string, unknown>[] = []
  let onReady = () => {}
  const daemon = spawnProcess(
    process.execPath,
    [bin, 'sync', dir, '--server', server.url, '--workspace', ws.id, '--json', ...extra],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, YFS_TOKEN: ws.token },
      ...as,
      onStdoutLine(line) {
        try {
          const event = JSON.parse(line) as Record<string, unknown>
          events.push(event)
          if (event.type === 'ready') onReady()
        } catch {
          // Not a JSON line: ignore.
        }
      },
    },
  )
  // No bound of its own: the test's timeout bounds it, as before.
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve
    void daemon.exited.then((code) => reject(new Error(`daemon exited with ${code}: ${daemon.stderr()}`)))
  })
  ready.catch(() => undefined)
  return { child: daemon.child, events, stderr: daemon.stderr, ready, exited: daemon.exited }
}
