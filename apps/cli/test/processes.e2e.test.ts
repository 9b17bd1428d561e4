// The real `yfs serve` in child processes: every acknowledged change survives SIGKILL and SIGTERM
// (SQLite and PostgreSQL), graceful shutdown closes clients, and two processes behind nothing but
// PostgreSQL + Redis serve one workspace live.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { waitFor } from '@yfs/core/testing'
import {
  dropSchema,
  POSTGRES_URL,
  postgresAvailable,
  REDIS_URL,
  redisAvailable,
  testSchema,
} from '@yfs/server/testing'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import { adminSetup, type ServerProcess, spawnServer as spawn } from './spawn-server.js'

// Every server this file starts is stopped at the end, even when an assertion fails midway.
const started: ServerProcess[] = []
async function spawnServer(args: string[]): Promise<ServerProcess> {
  const server = await spawn(args)
  started.push(server)
  return server
}
afterAll(async () => {
  for (const server of started) await server.stop('SIGKILL')
})

const ADMIN = 'process-admin'
const pgUp = await postgresAvailable()
const redisUp = pgUp && (await redisAvailable())

interface Backend {
  name: string
  args: string[]
  cleanup(): Promise<void>
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-proc-'))
  return {
    name: 'sqlite',
    args: ['--data', dir],
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

function postgresBackend(): Backend {
  const schema = testSchema('yfs_proc')
  return {
    name: 'postgres',
    args: ['--postgres', POSTGRES_URL, '--pg-schema', schema],
    cleanup: () => dropSchema(schema),
  }
}

const ops = fc.sample(
  fc.array(
    fc.oneof(
      fc.record({
        kind: fc.constant('write' as const),
        file: fc.integer({ min: 0, max: 7 }),
        text: fc.string({ maxLength: 40 }),
      }),
      fc.record({ kind: fc.constant('append' as const), text: fc.string({ minLength: 1, maxLength: 20 }) }),
    ),
    { minLength: 400, maxLength: 400 },
  ),
  { seed: 2024, numRuns: 1 },
)[0]!

interface Acked {
  files: Map<number, string>
  log: string
  /** The op that was running when the server died: it may or may not have landed. */
  inFlight?: (typeof ops)[number]
}

/** Apply ops one by one, flushing after each; `acked` tracks the state after the last acknowledged op. */
async function runUntilStopped(client: WorkspaceConnection, acked: Acked) {
  const files = new Map(acked.files)
  let log = acked.log
  for (const op of ops) {
    try {
      if (op.kind === 'write') {
        await client.fs.writeFile(`/data/f${op.file}.txt`, op.text)
        files.set(op.file, op.text)
      } else {
        await client.fs.appendFile('/data/log.txt', op.text)
        log += op.text
      }
      await client.flush(1500)
    } catch {
      acked.inFlight = op
      return // the server went away: ops after the last flush are not acknowledged
    }
    acked.files = new Map(files)
    acked.log = log
  }
}

async function verify(url: string, token: string, acked: Acked) {
  const client = await connectWorkspace({ url, workspace: 'crash', token })
  try {
    for (const [file, text] of acked.files) {
      const actual = await client.fs.readFile(`/data/f${file}.txt`)
      const landed =
        acked.inFlight?.kind === 'write' && acked.inFlight.file === file ? acked.inFlight.text : text
      expect([text, landed]).toContain(actual)
    }
    const log = (await client.fs.exists('/data/log.txt')) ? await client.fs.readFile('/data/log.txt') : ''
    // An op in flight at the kill may or may not have landed; every acknowledged one has.
    expect(log.startsWith(acked.log)).toBe(true)
  } finally {
    await client.close()
  }
}

const backends = [sqliteBackend, ...(pgUp ? [postgresBackend] : [])]

describe.each(backends.map((make) => [make().name, make] as const))('yfs serve with %s', (_name, make) => {
  const backend = make()
  afterAll(() => backend.cleanup())

  it('keeps every acknowledged change across SIGKILL, then across SIGTERM', async () => {
    let server = await spawnServer([...backend.args, '--admin-token', ADMIN])
    const token = await adminSetup(server.http, ADMIN, 'crash')
    const acked: Acked = { files: new Map<number, string>(), log: '' }

    const client = await connectWorkspace({ url: server.url, workspace: 'crash', token })
    await client.fs.mkdir('/data')
    await client.flush()
    const running = runUntilStopped(client, acked)
    await waitFor(
      () => acked.files.size + acked.log.length > 0 && acked.log.length > 30,
      'some acknowledged ops',
      20_000,
    )
    expect(await server.stop('SIGKILL')).toBeNull()
    await running
    await client.close(0)
    expect(acked.files.size).toBeGreaterThan(0)

    server = await spawnServer([...backend.args, '--admin-token', ADMIN])
    await verify(server.url, token, acked)

    // Graceful: write, flush, SIGTERM; the client is told, the process exits 0, nothing is lost.
    const second = await connectWorkspace({ url: server.url, workspace: 'crash', token })
    await second.fs.writeFile('/data/after-restart.txt', 'still here')
    await second.flush()
    const closed = new Promise<void>((resolve) => second.socket.on('close', () => resolve()))
    expect(await server.stop('SIGTERM')).toBe(0)
    await closed
    expect(server.logs.some((l) => l.event === 'stopped')).toBe(true)
    await second.close()

    server = await spawnServer([...backend.args])
    const third = await connectWorkspace({ url: server.url, workspace: 'crash', token })
    expect(await third.fs.readFile('/data/after-restart.txt')).toBe('still here')
    await third.close()
    await verify(server.url, token, acked)
    expect(await server.stop('SIGTERM')).toBe(0)
  }, 90_000)
})

describe.skipIf(!redisUp)('two yfs serve processes + PostgreSQL + Redis', () => {
  const schema = testSchema('yfs_duo')
  afterAll(() => dropSchema(schema))

  it('clients on different processes converge live', async () => {
    const args = [
      '--postgres',
      POSTGRES_URL,
      '--pg-schema',
      schema,
      '--redis',
      REDIS_URL,
      '--redis-prefix',
      schema,
    ]
    const one = await spawnServer([...args, '--admin-token', ADMIN])
    const two = await spawnServer(args)
    try {
      const token = await adminSetup(one.http, ADMIN, 'duo')
      const a = await connectWorkspace({ url: one.url, workspace: 'duo', token })
      const b = await connectWorkspace({ url: two.url, workspace: 'duo', token })
      await a.fs.writeFile('/from-one.txt', 'one')
      await b.fs.writeFile('/from-two.txt', 'two')
      await waitFor(
        async () => (await a.fs.exists('/from-two.txt')) && (await b.fs.exists('/from-one.txt')),
        'rows',
      )
      // Across processes a row can arrive before its content doc is stored and relayed
      // (different documents, independent paths through PostgreSQL and Redis): the content
      // converges, it is not ordered with the row. Wait for it instead of reading once.
      await waitFor(async () => (await a.fs.readFile('/from-two.txt')) === 'two', 'content from process two')
      await waitFor(async () => (await b.fs.readFile('/from-one.txt')) === 'one', 'content from process one')
      await b.fs.appendFile('/from-one.txt', '+two')
      await waitFor(async () => (await a.fs.readFile('/from-one.txt')) === 'one+two', 'live content edit')
      await a.close()
      await b.close()
    } finally {
      await one.stop('SIGTERM')
      await two.stop('SIGTERM')
    }
  }, 120_000)
})
