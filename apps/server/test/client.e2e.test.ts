// @yfs/client against a real server: two YjsFileSystems converge through one socket each,
// just-bash runs on a connected workspace, flush means stored, refusals carry the reason.
import { ConnectError, connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { createFileId } from '@yfs/core'
import { parseDocName } from '@yfs/protocol'
import fc from 'fast-check'
import { Bash } from 'just-bash'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { startTestServer, type TestServer, waitFor } from './helpers.js'

describe('@yfs/client connectWorkspace', () => {
  let t: TestServer
  let tokens: { write: string; read: string }
  const open: WorkspaceConnection[] = []
  const connect = async (token: string) => {
    const c = await connectWorkspace({ url: t.url, workspace: 'cw', token })
    open.push(c)
    return c
  }

  beforeAll(async () => {
    t = await startTestServer()
    tokens = await t.workspace('cw')
  })
  afterAll(async () => {
    for (const c of open) await c.close()
    await t.close()
  })

  it('two filesystems edit the tree and contents and converge', async () => {
    const a = await connect(tokens.write)
    const b = await connect(tokens.write)
    await a.fs.mkdir('/src', { recursive: true })
    await a.fs.writeFile('/src/a.ts', 'export const a = 1\n')
    await b.fs.writeFile('/b.md', '# from b\n')
    await waitFor(
      async () => (await b.fs.exists('/src/a.ts')) && (await a.fs.exists('/b.md')),
      'trees converge',
    )
    expect(await b.fs.readFile('/src/a.ts')).toBe('export const a = 1\n')
    expect(await a.fs.readFile('/b.md')).toBe('# from b\n')

    await b.fs.appendFile('/src/a.ts', 'export const b = 2\n')
    await a.fs.mv('/b.md', '/src/b.md')
    await waitFor(
      async () => (await a.fs.readFile('/src/a.ts')).includes('b = 2') && (await b.fs.exists('/src/b.md')),
      'edits converge',
    )
    expect((await a.fs.readdir('/src')).sort()).toEqual((await b.fs.readdir('/src')).sort())
  })

  it('its own append leaves a client up to date: a later whole-file write replaces, nothing is merged back', async () => {
    const a = await connect(tokens.write)
    const b = await connect(tokens.write)
    for (const [i, pause] of [0, 1, 5, 20].entries()) {
      const path = `/own-append-${i}.txt`
      // A new file's content is stored in bulk; after a pause the append opens its doc.
      await a.fs.writeFile(path, 'hello\n')
      await new Promise((resolve) => setTimeout(resolve, pause))
      await a.fs.appendFile(path, 'appended\n')
      await new Promise((resolve) => setTimeout(resolve, pause))
      await a.fs.writeFile(path, 'hi')
      // It used to merge against the state before its own append: 'hiappended\n'.
      expect(await a.fs.readFile(path)).toBe('hi')
      await a.flush()
      await waitFor(
        async () => (await b.fs.exists(path)) && (await b.fs.readFile(path)) === 'hi',
        `${path} on b`,
      )
    }
    // A peer's edit after the append is still merged into the write, not overwritten.
    const path = '/own-append-peer.txt'
    await a.fs.writeFile(path, 'one\ntwo\n')
    await a.flush()
    await new Promise((resolve) => setTimeout(resolve, 5))
    await a.fs.appendFile(path, 'three\n')
    await a.flush()
    await waitFor(
      async () => (await b.fs.readFile(path).catch(() => '')) === 'one\ntwo\nthree\n',
      'the append on b',
    )
    await b.fs.writeFile(path, 'ONE!\ntwo\nthree\n')
    await b.flush()
    // Seen through the row's size only: a read on a would make it up to date.
    await waitFor(async () => (await a.fs.stat(path)).size === 15, "b's edit on a")
    await a.fs.writeFile(path, 'one\ntwo\nthree\nfour\n')
    expect(await a.fs.readFile(path)).toBe('ONE!\ntwo\nthree\nfour\n')
  })

  it('a client that syncs a file fresh reads every version of it, text deleted elsewhere included', async () => {
    const a = await connect(tokens.write)
    await a.fs.writeFile('/versions.txt', 'line 0\nline 1\nline 2\n')
    await a.fs.writeFile('/versions.txt', 'line 0\npeer 1\nline 2\n')
    await a.flush()
    const b = await connect(tokens.write)
    await waitFor(() => b.fs.exists('/versions.txt'), 'the file on b')
    const versions = await b.fs.history('/versions.txt')
    expect(versions.length).toBeGreaterThanOrEqual(2)
    // The first version shows 'line 1', which a deleted: b gets it from the server's copy of the doc.
    expect(await b.fs.readVersion('/versions.txt', versions[0]!.id)).toBe('line 0\nline 1\nline 2\n')
    // The server keeps deleted content of content docs only; its main doc collects garbage.
    const docs = [...t.server.hocuspocus.documents.values()]
    const kinds = docs.map((d) => [parseDocName(d.name)?.kind, d.gc])
    expect(kinds).toContainEqual(['main', true])
    expect(kinds).toContainEqual(['content', false])
    expect(kinds).not.toContainEqual(['content', true])
    // Named after the document, not a random UUID (which costs 31 getRandomValues calls a load).
    expect(docs.every((d) => d.guid === d.name)).toBe(true)
  })

  it('every version reads the same on the client that wrote it and on a fresh one (property)', async () => {
    const a = await connect(tokens.write)
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.constantFrom('alpha', 'beta', 'gamma', 'delta', ''), { maxLength: 6 }), {
          minLength: 1,
          maxLength: 6,
        }),
        async (writes) => {
          const path = `/hist/r${run++}.txt`
          await a.fs.mkdir('/hist', { recursive: true })
          for (const lines of writes) await a.fs.writeFile(path, lines.map((l) => `${l}\n`).join(''))
          await a.flush()
          const b = await connect(tokens.write)
          try {
            await waitFor(() => b.fs.exists(path), 'the file on the fresh client')
            const mine = await a.fs.history(path)
            const theirs = await b.fs.history(path)
            expect(theirs.map((v) => v.id)).toEqual(mine.map((v) => v.id))
            for (const v of mine)
              expect(await b.fs.readVersion(path, v.id)).toBe(await a.fs.readVersion(path, v.id))
          } finally {
            await b.close()
          }
        },
      ),
      { numRuns: 15 },
    )
  })

  it('runs just-bash on a connected workspace; grep loads content docs over the socket', async () => {
    const a = await connect(tokens.write)
    const bash = new Bash({ fs: a.fs, cwd: '/' })
    const write = await bash.exec(
      'mkdir -p /grep && echo "needle one" > /grep/1.txt && echo "hay" > /grep/2.txt',
    )
    expect(write.stderr).toBe('')
    await a.flush()
    const b = await connect(tokens.write)
    const out = await new Bash({ fs: b.fs, cwd: '/' }).exec('grep -r needle /grep')
    expect(out.stderr).toBe('')
    expect(out.stdout).toBe('/grep/1.txt:needle one\n')
    // The folder's docs came in one batched load (bulk-content.e2e.test.ts), not one open each.
    expect(b.fs.index.plaintext.size).toBe(2)
    expect(b.openDocuments).toBe(0)
  })

  it('flush resolves once the server stored every change', async () => {
    const a = await connect(tokens.write)
    await a.fs.writeFile('/flushed.txt', 'stored before flush resolves')
    await a.flush()
    const id = a.fs.index.lookup('/flushed.txt')
    expect(id).toBeDefined()
    expect(await t.store.load('cw', `cw/${id}`)).toBeDefined()
    const copy = await connect(tokens.read)
    expect(await copy.fs.readFile('/flushed.txt')).toBe('stored before flush resolves')
  })

  it('evicting a content doc with unacknowledged (offline) edits keeps them until the server has them', async () => {
    const a = await connect(tokens.write)
    await a.fs.writeFile('/offline.txt', 'v1')
    await a.flush()
    expect(await a.fs.readFile('/offline.txt')).toBe('v1')
    a.socket.disconnect()
    await waitFor(() => a.main.isSynced === false, 'offline')
    await a.fs.writeFile('/offline.txt', 'v2 written offline')
    // The pool drops the content doc while the edit is still unacknowledged.
    a.fs.pool.evictIdle(true)
    expect(a.fs.pool.peek(a.fs.index.lookup('/offline.txt')!)).toBeUndefined()
    a.socket.connect()
    await a.flush()
    const b = await connect(tokens.write)
    expect(await b.fs.readFile('/offline.txt')).toBe('v2 written offline')
  })

  it('re-opening a file whose evicted copy still waits for the server takes over its edits', async () => {
    const a = await connect(tokens.write)
    await a.fs.writeFile('/reopened.txt', 'v1\n')
    await a.flush()
    a.socket.disconnect()
    await waitFor(() => a.main.isSynced === false, 'offline')
    await a.fs.writeFile('/reopened.txt', 'v1\nv2 written offline\n')
    a.fs.pool.evictIdle(true)
    expect(a.status().unacknowledged).toBeGreaterThan(0)
    // Back online, the file opens again before the lingering copy has been acknowledged.
    a.socket.connect()
    const handle = await a.fs.pool.acquire(a.fs.index.lookup('/reopened.txt')!)
    expect(handle.doc.getText('text').toString()).toBe('v1\nv2 written offline\n')
    handle.release()
    await a.fs.writeFile('/reopened.txt', 'v1\nv2 written offline\nv3 online\n')
    // One provider per document: flush finishes, nothing is left waiting.
    await a.flush(5_000)
    await waitFor(() => a.status().unacknowledged === 0, 'everything acknowledged')
    const b = await connect(tokens.write)
    expect(await b.fs.readFile('/reopened.txt')).toBe('v1\nv2 written offline\nv3 online\n')
  })

  it('a content doc evicted and opened again at once syncs (the server’s CLOSE is awaited)', async () => {
    const a = await connectWorkspace({ url: t.url, workspace: 'cw', token: tokens.write, timeoutMs: 3_000 })
    open.push(a)
    for (let i = 0; i < 10; i++) {
      await a.fs.writeFile('/evicted.txt', `v${i}`)
      await a.flush()
      a.fs.pool.evictIdle(true)
      await a.fs.writeFile('/evicted.txt', `w${i}`)
      await a.flush()
    }
    const b = await connect(tokens.read)
    expect(await b.fs.readFile('/evicted.txt')).toBe('w9')
  })

  it('a read token connects read-only', async () => {
    const r = await connect(tokens.read)
    expect(r.readOnly).toBe(true)
    expect(r.fs.readOnly).toBe(true)
    // Writes fail at once with EACCES instead of never being acknowledged.
    const error = await r.fs.writeFile('/from-reader.txt', 'x').catch((e: Error) => e)
    expect(String(error)).toContain("EACCES: permission denied, open '/from-reader.txt'")
    const w = await connect(tokens.write)
    expect(w.readOnly).toBe(false)
    expect(await w.fs.exists('/from-reader.txt')).toBe(false)
  })

  it('contentAwareness gives open content docs a presence channel (off by default)', async () => {
    const a = await connectWorkspace({
      url: t.url,
      workspace: 'cw',
      token: tokens.write,
      contentAwareness: true,
    })
    const b = await connectWorkspace({
      url: t.url,
      workspace: 'cw',
      token: tokens.read,
      contentAwareness: true,
    })
    const plain = await connect(tokens.write)
    open.push(a, b)
    expect(a.awarenessOf(a.fs.doc)).toBe(a.main.awareness)
    await a.fs.writeFile('/presence.txt', 'hello')
    await a.flush()
    const id = a.fs.index.lookup('/presence.txt')!
    using ha = await a.fs.pool.acquire(id)
    using hb = await b.fs.pool.acquire(id)
    using hp = await plain.fs.pool.acquire(id)
    expect(plain.awarenessOf(hp.doc)).toBeUndefined()
    const awA = a.awarenessOf(ha.doc)!
    const awB = b.awarenessOf(hb.doc)!
    expect(awA).toBeDefined()
    expect(awA).not.toBe(a.main.awareness)
    // A read token may still announce where it is (presence is not a write).
    awB.setLocalStateField('user', { name: 'reader' })
    awA.setLocalStateField('user', { name: 'writer' })
    const names = (aw: typeof awA) => [...aw.getStates().values()].map((s) => s.user?.name).sort()
    await waitFor(
      () => names(awA).join() === 'reader,writer' && names(awB).join() === 'reader,writer',
      'presence',
    )
    // A doc that is not connected has none.
    expect(a.awarenessOf(new Y.Doc())).toBeUndefined()
  })

  it('refusals reject with the server reason', async () => {
    const error = await connectWorkspace({ url: t.url, workspace: 'cw', token: 'nope' }).catch((e) => e)
    expect(error).toBeInstanceOf(ConnectError)
    expect(error.reason).toBe('invalid token')
    const other = await connectWorkspace({ url: t.url, workspace: 'elsewhere', token: tokens.write }).catch(
      (e) => e,
    )
    expect(other.reason).toBe('token not valid for this workspace')
  })

  it('flush() names a refused document at once, every time, instead of waiting out its timeout', async () => {
    const a = await connect(tokens.write)
    // Content for an id with no row: the server waits for the row briefly (fileWaitMs), then refuses.
    const handle = await a.fs.pool.acquire(createFileId())
    try {
      handle.doc.getText('text').insert(0, 'orphan')
      const first = await a.flush(5_000).catch((e: unknown) => e)
      expect(first).toBeInstanceOf(ConnectError)
      expect((first as ConnectError).reason).toBe('no such file in workspace')
      const started = Date.now()
      const again = await a.flush(60_000).catch((e: unknown) => e)
      expect((again as ConnectError).reason).toBe('no such file in workspace')
      expect(Date.now() - started).toBeLessThan(30_000) // not the 60 s timeout
      expect(a.status().unacknowledged).toBe(1)
    } finally {
      handle.release()
    }
  })
})
