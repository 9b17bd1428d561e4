// Write batches on a connected filesystem against a real server (SQLite, real sockets): a batch's
// new files go to the server in bulk stores with no content doc opened per file, each row reaches
// the server only once its content is stored (a second client never reads a row whose content is
// missing), reads, appends and overwrites inside the batch see the batch's writes, a shell command
// is one batch, and a long-lived connection may open documents one after another without end.
// Outside a batch a new file's content goes to the bulk store at once, still before its row.

import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { createFileSystem, openCommandScope } from '@yfs/core'
import fc from 'fast-check'
import { Bash } from 'just-bash'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { sameState, startTestServer, type TestServer, waitFor } from './helpers.js'

/** Read each new file under `folder` on `reader` the moment its row arrives (its content must be there by then). */
function readEachNewRow(reader: WorkspaceConnection, folder: string): Promise<string | undefined>[] {
  const reads: Promise<string | undefined>[] = []
  const seen = new Set<string>()
  reader.fs.table.observe((changes) => {
    for (const [id, change] of changes) {
      if (change.before !== undefined || change.after?.type !== 'file' || seen.has(id)) continue
      seen.add(id)
      const path = reader.fs.index.pathOf(id)
      if (path?.startsWith(folder)) reads.push(reader.fs.readFile(path).catch(() => undefined))
    }
  })
  return reads
}

describe('write batches through a client', () => {
  let t: TestServer
  let token: string
  const open: WorkspaceConnection[] = []
  const connect = async () => {
    const c = await connectWorkspace({ url: t.url, workspace: 'batches', token })
    open.push(c)
    return c
  }

  beforeAll(async () => {
    t = await startTestServer()
    token = (await t.workspace('batches')).write
  })
  afterAll(async () => {
    for (const c of open) await c.close()
    await t.close()
  })

  it("stores a batch's new files in bulk, each row after its content, and a second client reads them all", async () => {
    const a = await connect()
    const b = await connect()
    // Whenever b sees a new row under /many, the server must already hold its content: read it then.
    const early = readEachNewRow(b, '/many/')
    const mainUpdates: Uint8Array[] = []
    a.fs.doc.on('update', (u: Uint8Array, origin: unknown) => {
      if (origin !== a.main) mainUpdates.push(u)
    })
    const n = 600
    await a.fs.batch(async () => {
      await a.fs.mkdir('/many')
      for (let i = 0; i < n; i++) await a.fs.writeFile(`/many/f${i}.txt`, `line ${i}\n`)
      // Inside the batch: reads see the writes, an append and an overwrite of a new file work.
      expect(await a.fs.readFile('/many/f7.txt')).toBe('line 7\n')
      await a.fs.appendFile('/many/f7.txt', 'more\n')
      await a.fs.writeFile('/many/f8.txt', 'replaced\n')
      expect(await a.fs.readFile('/many/f7.txt')).toBe('line 7\nmore\n')
    })
    // No content doc was opened for the files written only once.
    const loaded = new Set(a.fs.pool.loaded())
    const openedForNew = [...Array(n).keys()].filter(
      (i) => i !== 7 && i !== 8 && loaded.has(a.fs.index.lookup(`/many/f${i}.txt`)!),
    )
    expect(openedForNew).toEqual([])
    // Far fewer main-doc updates than files (one per batch step, not one per file).
    expect(mainUpdates.length).toBeLessThan(n / 10)
    await a.flush()
    await waitFor(
      () => b.fs.getAllPaths().filter((p) => p.startsWith('/many/')).length === n,
      'b sees every file',
    )
    // Every row a wrote has reached b (the batch's rows go in steps: b can see every path while
    // the append's row of f7, a later step's, is still on its way).
    await waitFor(() => sameState(a.fs.doc, b.fs.doc), "a's main doc on b")
    const texts = await Promise.all(early)
    expect(texts).toHaveLength(n)
    texts.forEach((text, k) => {
      expect(text, `row ${k}: read as soon as it arrived`).toMatch(/^(line \d+\n(more\n)?|replaced\n)$/)
    })
    for (const i of [0, 1, 299, n - 1]) expect(await b.fs.readFile(`/many/f${i}.txt`)).toBe(`line ${i}\n`)
    expect(await b.fs.readFile('/many/f7.txt')).toBe('line 7\nmore\n')
    expect(await b.fs.readFile('/many/f8.txt')).toBe('replaced\n')
    // A fresh client, from the server's storage alone.
    const c = await connect()
    expect(await c.fs.readFile(`/many/f${n - 1}.txt`)).toBe(`line ${n - 1}\n`)
    // History: each new file has its first version; a knows it without opening the doc.
    const history = await c.fs.history('/many/f3.txt')
    expect(history).toHaveLength(1)
    const f3 = a.fs.index.lookup('/many/f3.txt')!
    expect((await a.fs.latestVersion('/many/f3.txt'))?.id).toBe(history[0]!.id)
    expect([...a.fs.pool.loaded()]).not.toContain(f3)
    // Once a peer changed it, a's newest version is the peer's (read from the doc).
    await c.fs.writeFile('/many/f3.txt', 'line 3 by c\n')
    const byC = (await c.fs.history('/many/f3.txt')).at(-1)!
    await waitFor(() => a.fs.table.get(f3)?.sv === c.fs.table.get(f3)?.sv, "c's row reaches a")
    expect((await a.fs.latestVersion('/many/f3.txt'))?.id).toBe(byC.id)
  }, 60_000)

  it('outside a batch, new files go to the bulk store at once: no doc each, rows after content, flush waits', async () => {
    const a = await connect()
    const b = await connect()
    const early = readEachNewRow(b, '/single/')
    await a.fs.mkdir('/single')
    const n = 300
    // Awaited one by one, no batch: each write is stored at once (with the others of its turn).
    for (let i = 0; i < n; i++) await a.fs.writeFile(`/single/f${i}.txt`, `single ${i}\n`)
    expect(await a.fs.readFile('/single/f3.txt')).toBe('single 3\n')
    const loaded = new Set(a.fs.pool.loaded())
    expect([...Array(n).keys()].filter((i) => loaded.has(a.fs.index.lookup(`/single/f${i}.txt`)!))).toEqual(
      [],
    )
    // Stored without a flush or a batch end: the second client gets every row, each readable at once.
    await waitFor(
      () => b.fs.getAllPaths().filter((p) => p.startsWith('/single/')).length === n,
      'b sees them',
    )
    const texts = await Promise.all(early)
    expect(texts).toHaveLength(n)
    texts.forEach((text, k) => {
      expect(text, `row ${k}`).toMatch(/^single \d+\n$/)
    })
    // The row waits for its content: a copy of a's main doc holds it only once the content is
    // stored (across server processes the row may otherwise overtake it).
    await a.fs.writeFile('/single/pinned.txt', 'pinned\n')
    const pinned = a.fs.index.lookup('/single/pinned.txt')!
    const rowStored = () => {
      const copy = createFileSystem()
      Y.applyUpdate(copy.doc, Y.encodeStateAsUpdate(a.fs.doc))
      const has = copy.table.has(pinned)
      copy.destroy()
      return has
    }
    expect(rowStored()).toBe(false)
    await a.fs.storePending()
    expect(rowStored()).toBe(true)
    // flush() resolves only once a write made just before it is stored.
    await a.fs.writeFile('/single/last.txt', 'last\n')
    await a.flush()
    const fresh = await connect()
    expect(await fresh.fs.readFile('/single/last.txt')).toBe('last\n')
    // The writer goes offline: a file it wrote this way (its doc never opened) can still be
    // overwritten, from the state it stored, and the change reaches the server on reconnect.
    a.socket.disconnect()
    await waitFor(() => a.main.isSynced === false, 'offline')
    await a.fs.writeFile('/single/f5.txt', 'single 5, offline\n')
    a.socket.connect()
    await a.flush()
    await waitFor(
      async () => (await b.fs.readFile('/single/f5.txt')) === 'single 5, offline\n',
      'the offline edit on b',
    )
  }, 60_000)

  it('a shell command is one batch; a peer edit made after it merges with a later write', async () => {
    const a = await connect()
    const b = await connect()
    const scope = openCommandScope(a.fs)
    let out: { stdout: string; exitCode: number }
    try {
      out = await new Bash({ fs: scope.fs, cwd: '/' }).exec(
        'mkdir -p /sh && for i in $(seq 1 200); do echo "line $i" > /sh/f$i.txt; done; echo more >> /sh/f5.txt; printf "one\\ntwo\\nthree\\n" > /sh/f9.txt; cat /sh/f5.txt',
      )
    } finally {
      await scope.close()
    }
    expect(out.exitCode).toBe(0)
    expect(out.stdout).toBe('line 5\nmore\n')
    await a.flush()
    await waitFor(
      () => b.fs.getAllPaths().filter((p) => p.startsWith('/sh/')).length === 200,
      'b sees the files',
    )
    expect(await b.fs.readFile('/sh/f200.txt')).toBe('line 200\n')
    // The file's versions are those the same writes leave outside a batch (`> f` empty, its
    // text, `>>`), though none of them opened its doc here.
    const local = createFileSystem()
    await new Bash({ fs: local, cwd: '/' }).exec('echo "line 5" > /f5.txt; echo more >> /f5.txt')
    const sizes = (await b.fs.history('/sh/f5.txt')).map((v) => v.size)
    expect(sizes).toEqual((await local.history('/f5.txt')).map((v) => v.size))
    expect(sizes.at(-1)).toBe('line 5\nmore\n'.length)
    // b edits a file a wrote in the batch (never opened by a); a's next write, made against what a
    // wrote, merges b's edit instead of replacing it.
    expect(await b.fs.readFile('/sh/f9.txt')).toBe('one\ntwo\nthree\n')
    await b.fs.writeFile('/sh/f9.txt', 'ONE\ntwo\nthree\n')
    await b.flush()
    // Waited for by its row (a read through a.fs would make b's edit a's new base: nothing to merge).
    const f9 = a.fs.index.lookup('/sh/f9.txt')!
    await waitFor(() => a.fs.table.get(f9)?.sv === b.fs.table.get(f9)?.sv, "b's row reaches a")
    const c = await connect()
    const report = await a.fs.write('/sh/f9.txt', 'one\ntwo\nTHREE\n')
    expect(report.merged).toBe(true)
    expect(report.conflict).toBe(false)
    expect(await a.fs.readFile('/sh/f9.txt')).toBe('ONE\ntwo\nTHREE\n')
    await a.flush()
    await waitFor(
      async () => (await c.fs.readFile('/sh/f9.txt')) === 'ONE\ntwo\nTHREE\n',
      'the merge reaches c',
    )
  }, 60_000)

  it('a file created by `> f` in a batch (empty, then written) keeps its text cached past its doc', async () => {
    const a = await connect()
    const scope = openCommandScope(a.fs)
    try {
      await new Bash({ fs: scope.fs, cwd: '/' }).exec(
        'mkdir -p /tr && for i in $(seq 1 30); do echo "line $i" > /tr/f$i.txt; done',
      )
    } finally {
      await scope.close()
    }
    // Each was created with its line: one version, not "empty, then the line".
    expect((await a.fs.history('/tr/f7.txt')).map((v) => v.size)).toEqual([7])
    // Rewritten one by one (each opens its doc), then every doc closed: the texts outlive them.
    for (let i = 1; i <= 30; i++) await a.fs.writeFile(`/tr/f${i}.txt`, `LINE ${i}\n`)
    a.fs.pool.evictIdle(true)
    expect([...a.fs.pool.loaded()]).toEqual([])
    for (let i = 1; i <= 30; i++) expect(await a.fs.readFile(`/tr/f${i}.txt`)).toBe(`LINE ${i}\n`)
    // Read from the cache: no doc was opened again (the replaced empty state announced nothing).
    expect([...a.fs.pool.loaded()]).toEqual([])
  }, 60_000)

  it('bytes written over a text of the same size, in a batch or a new file of one, read back as the bytes', async () => {
    // The bulk overwrite kept the old text cached, and reads matched it by size: the writer read
    // 'beta\n' (and `cat h >> f` copied it on) while every other peer had the bytes.
    const a = await connect()
    const bytes = new Uint8Array([0x61, 0, 0x62, 0xc3, 0xbf])
    await a.fs.writeFile('/same-size.txt', 'beta\n')
    await a.flush()
    expect(await a.fs.readFile('/same-size.txt')).toBe('beta\n')
    const inBatch = await a.fs.batch(async () => {
      await a.fs.writeFile('/same-size.txt', bytes)
      await a.fs.writeFile('/new-same-size.txt', 'gamma')
      await a.fs.writeFile('/new-same-size.txt', bytes)
      return [await a.fs.readFileBuffer('/same-size.txt'), await a.fs.readFileBuffer('/new-same-size.txt')]
    })
    expect(inBatch).toEqual([bytes, bytes])
    expect(await a.fs.readFileBuffer('/same-size.txt')).toEqual(bytes)
    await a.flush()
    const b = await connect()
    expect(await b.fs.readFileBuffer('/same-size.txt')).toEqual(bytes)
    expect(await b.fs.readFileBuffer('/new-same-size.txt')).toEqual(bytes)
  })

  it('a row that a late write won with an older size is repaired by the writer that holds every change, its doc not open', async () => {
    // An agent's append and a person's overwrite of it in bulk (the person's doc never open): the
    // append's row landed last, with the size it saw (2), and kept it on every replica while the
    // content was the overwrite's 6 bytes; the agent read its own 2 bytes from its cache.
    const agent = await connect()
    const person = await connect()
    await person.fs.batch(() => person.fs.writeFile('/late.txt', ''))
    await person.flush()
    await waitFor(() => agent.fs.exists('/late.txt'), 'the file on the agent')
    const id = agent.fs.index.lookup('/late.txt')!
    await agent.fs.batch(() => agent.fs.appendFile('/late.txt', 'ab'))
    await agent.flush()
    const appended = agent.fs.table.get(id)!
    expect(appended.size).toBe(2)
    await waitFor(() => person.fs.table.get(id)?.sv === appended.sv, "the append's row on the person")
    await person.fs.batch(() => person.fs.writeFile('/late.txt', 'alpha\n'))
    await person.flush()
    await waitFor(() => agent.fs.table.get(id)?.size === 6, "the overwrite's row on the agent")
    // The person never opened the doc (its writes went in bulk): its known state must repair it.
    expect(person.fs.pool.peek(id)).toBeUndefined()
    // The append's row write landing after the overwrite's (as a batch's held row does), from an
    // agent whose doc has closed since (a session keeps few open).
    agent.fs.pool.evictIdle(true)
    expect(agent.fs.pool.peek(id)).toBeUndefined()
    agent.fs.table.update(id, {
      size: appended.size,
      updatedAt: Date.now(),
      ...(appended.sv ? { sv: appended.sv } : {}),
    })
    await agent.flush()
    await waitFor(
      () => agent.fs.table.get(id)?.size === 6 && person.fs.table.get(id)?.size === 6,
      'the row repaired on both',
    )
    expect(await agent.fs.readFile('/late.txt')).toBe('alpha\n')
    expect((await person.fs.stat('/late.txt')).size).toBe(6)
  })

  it("a batch's changes to an open doc reach the server as one update, before the rows; a peer gets all", async () => {
    const a = await connect()
    const peer = await connect()
    await a.fs.writeFile('/open.log', 'start\n')
    await a.flush()
    const id = a.fs.index.lookup('/open.log')!
    const name = `batches/${id}`
    const handle = await a.fs.pool.acquire(id)
    try {
      await waitFor(async () => (await peer.fs.exists('/open.log')) === true, 'the file at the peer')
      const before = await t.store.logLength('batches', name)
      // A shell command (one batch) appending 100 times to the open doc.
      const scope = openCommandScope(a.fs)
      try {
        const run = await new Bash({ fs: scope.fs, cwd: '/' }).exec(
          'for i in $(seq 1 100); do echo "x $i" >> /open.log; done',
        )
        expect(run.stderr).toBe('')
        // Held meanwhile, and read back here at once.
        expect((await a.fs.readFile('/open.log')).split('\n')).toHaveLength(102)
      } finally {
        await scope.close()
      }
      await a.flush()
      // One stored update per batch step (50 ms each at most), not one per append.
      const added = (await t.store.logLength('batches', name)) - before
      expect(added).toBeGreaterThanOrEqual(1)
      expect(added).toBeLessThan(20)
      const expected = `start\n${Array.from({ length: 100 }, (_, i) => `x ${i + 1}\n`).join('')}`
      await waitFor(
        async () => (await peer.fs.readFile('/open.log')) === expected,
        'every append at the peer',
      )
      // Outside a batch each write is sent at once, as before.
      const single = await t.store.logLength('batches', name)
      await a.fs.appendFile('/open.log', 'alone\n')
      await a.flush()
      expect(await t.store.logLength('batches', name)).toBe(single + 1)
    } finally {
      handle.release()
    }
    // A doc closed with changes held (fs.batch still open) sends them first: nothing is lost.
    const h2 = await a.fs.pool.acquire(id)
    await a.fs.batch(async () => {
      await a.fs.appendFile('/open.log', 'in batch\n')
      h2.release()
      a.fs.pool.evictIdle(true)
    })
    await a.flush()
    const fresh = await connect()
    expect(await fresh.fs.readFile('/open.log')).toMatch(/alone\nin batch\n$/)
  }, 60_000)

  it('two clients appending to the same open doc, in batches and alone, interleaved, converge with every line once (property)', async () => {
    const a = await connect()
    const b = await connect()
    let run = 0
    const op = fc.record({
      batch: fc.boolean(),
      lines: fc.integer({ min: 1, max: 6 }),
      pause: fc.integer({ min: 0, max: 60 }),
    })
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 6 }), fc.array(op, { maxLength: 6 }), async (opsA, opsB) => {
        const path = `/prop${run++}.log`
        await a.fs.writeFile(path, '')
        await a.flush()
        await waitFor(async () => (await b.fs.exists(path)) === true, 'the file at b')
        const id = a.fs.index.lookup(path)!
        const handles = [await a.fs.pool.acquire(id), await b.fs.pool.acquire(id)]
        const expected: string[] = []
        const play = async (c: WorkspaceConnection, who: string, ops: typeof opsA) => {
          for (const [k, o] of ops.entries()) {
            const lines = Array.from({ length: o.lines }, (_, j) => `${who}${k}.${j}\n`)
            expected.push(...lines)
            const write = async () => {
              for (const line of lines) await c.fs.appendFile(path, line)
            }
            if (o.batch)
              await c.fs.batch(async () => {
                await write()
                await new Promise((r) => setTimeout(r, o.pause))
              })
            else await write()
          }
        }
        try {
          await Promise.all([play(a, 'a', opsA), play(b, 'b', opsB)])
          await a.flush()
          await b.flush()
          const sorted = [...expected].sort().join('')
          const linesOf = async (c: WorkspaceConnection) =>
            (await c.fs.readFile(path))
              .split(/(?<=\n)/)
              .filter(Boolean)
              .sort()
              .join('')
          await waitFor(
            async () => (await linesOf(a)) === sorted && (await linesOf(b)) === sorted,
            'both converge',
          )
          expect(await a.fs.readFile(path)).toBe(await b.fs.readFile(path))
        } finally {
          for (const h of handles) h.release()
        }
      }),
      { numRuns: 12, seed: 25 },
    )
    const fresh = await connect()
    expect((await fresh.fs.readFile('/prop0.log')).length).toBe((await a.fs.readFile('/prop0.log')).length)
  }, 120_000)

  it('a connection opens documents one after another without end (its early-frame budget is freed)', async () => {
    const a = await connect()
    // Each new file outside a batch opens its content doc (auth + sync frames before authentication):
    // 700 of them passed the socket's 1,000 early frames when that budget was never given back.
    await a.fs.mkdir('/one')
    for (let i = 0; i < 700; i++) await a.fs.writeFile(`/one/f${i}.txt`, `${i}\n`)
    await a.flush()
    const fresh = await connect()
    expect(await fresh.fs.readFile('/one/f699.txt')).toBe('699\n')
    // The socket was never refused: it is the one the connection opened with, still online.
    expect(a.status().online).toBe(true)
    expect(a.socket.status).toBe('connected')
  }, 60_000)
})
