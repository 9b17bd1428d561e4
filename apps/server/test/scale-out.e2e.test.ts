// Scale-out in one process: two servers sharing PostgreSQL and Redis; clients on different servers
// see each other's edits live (the multi-process variant is in processes.e2e.test.ts). A client's
// overwrites of files whose docs it does not hold open go as bulk updates, stored by its server
// and published through Redis, and reach a client holding the doc open on the other server (the
// learning test of extensions/redis.ts `publishUpdates`: it mirrors the upstream extension's
// channel and frame, which this fails on if they change).
import { connectWorkspace, createBulkChannel } from '@yfs/client'
import type { FileId } from '@yfs/core'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createPostgresStore } from '../src/persistence/postgres-store.js'
import {
  contentText,
  linesText,
  replaceLine,
  startTestServer,
  type TestServer,
  textInsertOn,
  waitFor,
  writeLine,
} from './helpers.js'
import { type ScaledOut, startScaledOut } from './scaled-out.js'
import {
  dropSchema,
  POSTGRES_URL,
  postgresAvailable,
  REDIS_URL,
  redisAvailable,
  testSchema,
} from './services.js'

const up = (await postgresAvailable()) && (await redisAvailable())

describe.skipIf(!up)('two servers, PostgreSQL + Redis', () => {
  let deployment: ScaledOut
  let servers: TestServer[] = []
  let token: string

  beforeAll(async () => {
    deployment = await startScaledOut('yfs-test', { fileWaitMs: 5000 })
    servers = deployment.servers
    await deployment.stores[0]!.createWorkspace('scale')
    token = await deployment.stores[0]!.createToken('scale', 'write')
  })
  afterAll(async () => {
    await deployment?.close()
  })

  it('clients on different servers converge on tree and contents', async () => {
    const a = await connectWorkspace({ url: servers[0]!.url, workspace: 'scale', token })
    const b = await connectWorkspace({ url: servers[1]!.url, workspace: 'scale', token })
    try {
      await a.fs.mkdir('/docs')
      await a.fs.writeFile('/docs/a.md', 'written on server 1\n')
      await waitFor(async () => b.fs.exists('/docs/a.md'), 'row crosses servers')
      expect(await b.fs.readFile('/docs/a.md')).toBe('written on server 1\n')

      await b.fs.appendFile('/docs/a.md', 'appended on server 2\n')
      await b.fs.writeFile('/docs/b.md', 'new on server 2\n')
      await waitFor(
        async () =>
          (await a.fs.exists('/docs/b.md')) &&
          (await a.fs.readFile('/docs/a.md')) === 'written on server 1\nappended on server 2\n',
        'edits cross back',
      )
      // Concurrent appends from both sides both survive.
      await Promise.all([a.fs.appendFile('/docs/a.md', 'A\n'), b.fs.appendFile('/docs/a.md', 'B\n')])
      await Promise.all([a.flush(), b.flush()])
      await waitFor(
        async () => (await a.fs.readFile('/docs/a.md')) === (await b.fs.readFile('/docs/a.md')),
        'same text',
      )
      const text = await a.fs.readFile('/docs/a.md')
      expect(text).toContain('A\n')
      expect(text).toContain('B\n')
    } finally {
      await a.close()
      await b.close()
    }
  })

  it('bulk overwrites reach a doc held open on the other server (published through Redis)', async () => {
    const a = await connectWorkspace({ url: servers[0]!.url, workspace: 'scale', token, fs: { maxIdle: 0 } })
    const b = await connectWorkspace({ url: servers[1]!.url, workspace: 'scale', token })
    try {
      const paths = Array.from({ length: 10 }, (_, i) => `/over/f${i}.txt`)
      await a.fs.writeTree(paths.map((path) => ({ path, content: 'old\n' })))
      await a.flush()
      await waitFor(() => b.fs.exists(paths[9]!), 'rows cross servers')
      const held = await b.fs.pool.acquire(b.fs.index.lookup(paths[3]!)! as FileId)
      try {
        // The server takes a bulk update.
        const channel = createBulkChannel(a.main, { timeoutMs: 10_000 })
        const id = a.fs.index.lookup(paths[0]!)!
        const [base] = await channel.load([id])
        await channel.update([{ id, update: textInsertOn(base!, 0, 'x') }])
        channel.destroy()
        await a.fs.batch(async () => {
          for (const path of paths) await a.fs.writeFile(path, 'new\n')
        })
        await a.flush()
        // Written without opening a doc on server 1.
        expect(a.openDocuments).toBe(0)
        await waitFor(() => held.doc.getText('text').toString() === 'new\n', 'the overwrite in the open doc')
        for (const path of paths) await waitFor(async () => (await b.fs.readFile(path)) === 'new\n', path)
      } finally {
        held.release()
      }
    } finally {
      await a.close()
      await b.close()
    }
  })

  it("heads are the deployment's: a load since a head brings nothing while no server changed the doc, and the whole state after a client of the other server did", async () => {
    const a = await connectWorkspace({ url: servers[0]!.url, workspace: 'scale', token, fs: { maxIdle: 0 } })
    const b = await connectWorkspace({ url: servers[1]!.url, workspace: 'scale', token, fs: { maxIdle: 0 } })
    const onA = createBulkChannel(a.main, { timeoutMs: 10_000 })
    const onB = createBulkChannel(b.main, { timeoutMs: 10_000 })
    try {
      await a.fs.writeTree([{ path: '/heads/f.txt', content: 'one\n' }])
      await a.flush()
      const id = a.fs.index.lookup('/heads/f.txt')!
      const [first] = await onA.loadSince([id], [undefined])
      const head = first!.head!
      expect(head).toEqual(expect.any(String))
      // The same head on either server, once server 2 has the row (it comes through Redis; before,
      // server 2 answers "no such file").
      await waitFor(() => b.fs.exists('/heads/f.txt'), 'the row on server 2')
      expect(await onB.loadSince([id], [head])).toEqual([{ state: undefined, head }])
      // A client of server 2 edits the file through its doc: server 1 no longer answers "unchanged".
      await b.fs.appendFile('/heads/f.txt', 'two\n')
      await b.flush()
      const [moved] = await onA.loadSince([id], [head])
      expect(moved!.head).not.toBe(head)
      expect(contentText(moved!.state)).toBe('one\ntwo\n')
      // A bulk update on server 1, made on that head, names the next one, which server 2 knows.
      const [next] = await onA.update([
        { id, update: textInsertOn(moved!.state!, 8, 'three\n'), base: moved!.head },
      ])
      expect(next).toEqual(expect.any(String))
      expect(await onB.loadSince([id], [next])).toEqual([{ state: undefined, head: next }])
      // An update made on an older head gets none back (a change came between).
      const [stale] = await onB.update([
        { id, update: textInsertOn(moved!.state!, 0, 'zero\n'), base: moved!.head },
      ])
      expect(stale).toBeUndefined()
      const [last] = await onA.loadSince([id], [next])
      expect(contentText(last!.state)).toBe('zero\none\ntwo\nthree\n')
    } finally {
      onA.destroy()
      onB.destroy()
      await a.close()
      await b.close()
    }
  })

  it("agents on both servers, call after call over the same files in bulk, build on the heads they hold and keep every line's last edit; a person's edits on either server too (property)", async () => {
    const n = 9
    // Loads answered "unchanged" (a state held at the deployment's head), and whole.
    let unchanged = 0
    let whole = 0
    const agentOn = async (server: TestServer) => {
      let channel: ReturnType<typeof createBulkChannel> | undefined
      const c = await connectWorkspace({
        url: server.url,
        workspace: 'scale',
        token,
        fs: {
          maxIdle: 0,
          loadContent: async (ids: string[], since?: readonly (string | undefined)[]) => {
            if (!since) return channel!.load(ids)
            const got = await channel!.loadSince(ids, since)
            for (const one of got) one && one.state === undefined ? unchanged++ : whole++
            return got
          },
          updateContent: (docs) => channel!.update(docs),
        },
      })
      channel = createBulkChannel(c.main, { timeoutMs: 10_000 })
      return { c, channel }
    }
    const agents = [await agentOn(servers[0]!), await agentOn(servers[1]!)]
    const person = await connectWorkspace({ url: servers[1]!.url, workspace: 'scale', token })
    let run = 0
    try {
      await fc.assert(
        fc.asyncProperty(
          // Who edits (agent 0 on server 1, agent 1 on server 2, the person on server 2), which
          // files (a call over 5–6 of them: in bulk), which of its own lines, and whether the
          // next step starts before this one ends.
          fc.array(
            fc.record({
              who: fc.constantFrom(0, 1, 2),
              files: fc.uniqueArray(fc.nat(5), { minLength: 5, maxLength: 6 }),
              file: fc.nat(5),
              k: fc.nat(2),
              overlap: fc.boolean(),
            }),
            { minLength: 2, maxLength: 8 },
          ),
          async (steps) => {
            const paths = Array.from({ length: 6 }, (_, i) => `/calls/r${run}-${i}.txt`)
            run++
            const expected = paths.map(() => Array.from({ length: n }, (_, i) => `line ${i}`))
            await agents[0]!.c.fs.writeTree(
              paths.map((path, i) => ({ path, content: linesText(expected[i]!) })),
            )
            await agents[0]!.c.flush()
            for (const c of [agents[1]!.c, person])
              await waitFor(() => c.fs.exists(paths[5]!), 'the files on the other server')
            const running: Promise<void>[] = [Promise.resolve(), Promise.resolve(), Promise.resolve()]
            for (const [s, step] of steps.entries()) {
              // Lines 3k (agent 0), 3k + 1 (agent 1), 3k + 2 (the person): each one's last edit is known.
              const line = step.who + 3 * step.k
              const edit = `${['one', 'two', 'person'][step.who]} ${s}`
              await running[step.who]
              let next: Promise<void>
              const agent = agents[step.who]?.c
              if (agent) {
                for (const f of step.files) expected[f]![line] = edit
                next = agent.fs
                  .batch(async () => {
                    for (const f of step.files) await writeLine(agent, paths[f]!, n, line, edit)
                  })
                  .then(() => agent.flush())
              } else {
                expected[step.file]![line] = edit
                next = (async () => {
                  const handle = await person.fs.pool.acquire(
                    person.fs.index.lookup(paths[step.file]!)! as FileId,
                  )
                  try {
                    replaceLine(handle.doc, line, edit)
                    await person.flush()
                  } finally {
                    handle.release()
                  }
                })()
              }
              running[step.who] = next
              if (!step.overlap) await next
            }
            await Promise.all(running)
            await Promise.all([...agents.map(({ c }) => c.flush()), person.flush()])
            for (const [f, path] of paths.entries()) {
              const want = linesText(expected[f]!)
              for (const c of [...agents.map((a) => a.c), person])
                await waitFor(
                  async () => (await c.fs.readFile(path)) === want,
                  `${path} at ${JSON.stringify(want)}`,
                )
            }
          },
        ),
        { numRuns: 12 },
      )
      // Both kinds of load happened: states held at a head, and whole ones after another's change.
      expect(unchanged).toBeGreaterThan(0)
      expect(whole).toBeGreaterThan(0)
    } finally {
      for (const { c, channel } of agents) {
        channel.destroy()
        await c.close()
      }
      await person.close()
    }
  }, 180_000)
})

describe.skipIf(!up)('a doc loaded while a bulk update of it is stored elsewhere', () => {
  it('catches up after subscribing: an update stored between its read and its subscription is not missed', async () => {
    const schema = testSchema()
    const redisPrefix = `yfs-test-catchup-${process.pid}-${Date.now()}`
    const writer = await createPostgresStore({ url: POSTGRES_URL, schema, max: 2 })
    const base = await createPostgresStore({ url: POSTGRES_URL, schema, max: 4 })
    // Server 2's store: right after it reads the watched doc, another process stores an update of
    // it, whose Redis message this server is not subscribed for yet (it subscribes after loading).
    let watched: string | undefined
    const late = new Y.Doc()
    const racing = new Proxy(base, {
      get(target, key) {
        if (key === 'load')
          return async (workspace: string, name: string) => {
            const state = await target.load(workspace, name)
            if (name === watched) {
              watched = undefined
              const doc = new Y.Doc()
              if (state) Y.applyUpdate(doc, state)
              const sv = Y.encodeStateVector(doc)
              doc.getText('text').insert(doc.getText('text').length, 'stored meanwhile\n')
              await writer.append(workspace, name, Y.encodeStateAsUpdate(doc, sv))
              Y.applyUpdate(late, Y.encodeStateAsUpdate(doc))
            }
            return state
          }
        const value = Reflect.get(target, key)
        return typeof value === 'function' ? value.bind(target) : value
      },
    })
    const server = await startTestServer({
      store: racing,
      redisUrl: REDIS_URL,
      redisPrefix,
      fileWaitMs: 5000,
    })
    try {
      await base.createWorkspace('race')
      const token = await base.createToken('race', 'write')
      const client = await connectWorkspace({ url: server.url, workspace: 'race', token })
      try {
        await client.fs.writeFile('/f.txt', 'first\n')
        await client.flush()
        const id = client.fs.index.lookup('/f.txt')!
        // Stored in bulk, never loaded on the server: opening it here is its first load, the racing one.
        expect(server.server.hocuspocus.documents.has(`race/${id}`)).toBe(false)
        watched = `race/${id}`
        const held = await client.fs.pool.acquire(id as FileId)
        try {
          await waitFor(
            () => held.doc.getText('text').toString() === 'first\nstored meanwhile\n',
            'the update stored meanwhile',
          )
          expect(late.getText('text').toString()).toBe('first\nstored meanwhile\n')
        } finally {
          held.release()
        }
      } finally {
        await client.close()
      }
    } finally {
      await server.close()
      await base.close()
      await writer.close()
      await dropSchema(schema)
    }
  })
})
