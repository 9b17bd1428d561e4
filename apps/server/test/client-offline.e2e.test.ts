// @yfs/client's persistence hook against a real server: a workspace opens from the local store when
// the server is unreachable (tree and content), offline edits are kept by the store and merge with
// another client's edits on reconnect, and the status reports online/offline and unacknowledged docs.
// The store is an in-memory map of real Yjs updates, the shape y-indexeddb gives in a browser.
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  ConnectError,
  connectWorkspace,
  NOT_ON_DEVICE,
  type PersistDoc,
  type WorkspaceConnection,
} from '@yfs/client'
import { markdownCodec } from '@yfs/markdown'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import * as Y from 'yjs'
import { createSqliteStore } from '../src/persistence/sqlite-store.js'
import { startTestServer, type TestServer, waitFor } from './helpers.js'

/** A device-local store: every update of every attached doc, by doc name. */
function createMemoryStore() {
  const updates = new Map<string, Uint8Array[]>()
  // Small key–value entries beside each doc (y-indexeddb's custom store).
  const meta = new Map<string, unknown>()
  const persist: PersistDoc = (name, doc) => {
    const log = updates.get(name) ?? []
    updates.set(name, log)
    const stored = Y.mergeUpdates(log)
    if (log.length > 0) Y.applyUpdate(doc, stored, 'store')
    const onUpdate = (update: Uint8Array, origin: unknown) => {
      if (origin !== 'store') log.push(update)
    }
    doc.on('update', onUpdate)
    return {
      whenLoaded: Promise.resolve(),
      destroy: () => doc.off('update', onUpdate),
      get: async (key: string) => meta.get(`${name}:${key}`),
      set: async (key: string, value: unknown) => meta.set(`${name}:${key}`, structuredClone(value)),
    }
  }
  return { persist, updates, meta }
}

/**
 * A device store whose stored state is applied only when `release()` is called, as y-indexeddb
 * applies it after an asynchronous read: what a connect does while a large local copy loads.
 */
function createSlowStore(base: ReturnType<typeof createMemoryStore>) {
  let release = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
  })
  let loading = 0
  const persist: PersistDoc = (name, doc) => {
    loading++
    const whenLoaded = released.then(() => {
      loading--
      // The base store applies its copy and starts logging the doc's updates.
      const attached = base.persist(name, doc)
      detach = attached.destroy
    })
    let detach: () => void | Promise<void> = () => {}
    return {
      whenLoaded,
      destroy: () => detach(),
      get: async (key: string) => base.meta.get(`${name}:${key}`),
      set: async (key: string, value: unknown) => base.meta.set(`${name}:${key}`, value),
    }
  }
  return { persist, release, loading: () => loading }
}

/** The `ws` WebSocket, counting the bytes this client sends. */
function countingWebSocket() {
  const counter = { sent: 0 }
  class CountingWebSocket extends WebSocket {
    override send(data: Parameters<WebSocket['send']>[0], ...rest: unknown[]): void {
      counter.sent += (data as ArrayBufferLike | ArrayBufferView).byteLength ?? 0
      ;(super.send as (...a: unknown[]) => void)(data, ...rest)
    }
  }
  return { WebSocket: CountingWebSocket, counter }
}

/** A ws:// URL on which nothing listens. */
async function deadUrl(): Promise<string> {
  const probe = createNetServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const address = probe.address()
  if (address === null || typeof address === 'string') throw new TypeError('no port')
  await new Promise((resolve) => probe.close(resolve))
  return `ws://127.0.0.1:${address.port}`
}

describe('@yfs/client with a local store (offline)', () => {
  let t: TestServer
  let token: string
  const open: WorkspaceConnection[] = []

  beforeAll(async () => {
    t = await startTestServer()
    token = (await t.workspace('off')).write
  })
  /** Workspace `off` on a device whose store is `persist`, with the server unreachable. */
  const openOffline = async (persist: PersistDoc, timeoutMs?: number) =>
    connectWorkspace({
      url: await deadUrl(),
      workspace: 'off',
      token,
      persist,
      ...(timeoutMs ? { timeoutMs } : {}),
    })
  afterAll(async () => {
    for (const c of open) await c.close(0)
    await t.close()
  })

  it('opens from the store when the server is unreachable, tree and content, and keeps offline edits', async () => {
    const store = createMemoryStore()
    const a = await connectWorkspace({ url: t.url, workspace: 'off', token, persist: store.persist })
    expect(a.openedOffline).toBe(false)
    await a.fs.mkdir('/notes')
    await a.fs.writeFile('/notes/todo.md', '- [ ] buy milk\n')
    await a.flush()
    await a.close()

    const down = await openOffline(store.persist, 2_000)
    open.push(down)
    expect(down.openedOffline).toBe(true)
    expect(down.status().online).toBe(false)
    expect(await down.fs.readdir('/notes')).toEqual(['todo.md'])
    expect(await down.fs.readFile('/notes/todo.md')).toBe('- [ ] buy milk\n')
    await down.fs.writeFile('/notes/offline.txt', 'written without a server\n')
    expect(down.status().unacknowledged).toBeGreaterThan(0)
    await down.close(0)

    // The offline edit is in the store: the next offline open shows it too.
    const again = await openOffline(store.persist)
    open.push(again)
    expect(await again.fs.readFile('/notes/offline.txt')).toBe('written without a server\n')
  })

  it('without a stored copy, an unreachable server still fails the connect', async () => {
    const error = await openOffline(createMemoryStore().persist, 500).catch((e: Error) => e)
    expect(String(error)).toContain('timeout')
  })

  it('offline edits of one file merge with another client’s on reconnect; status follows', async () => {
    const a = await connectWorkspace({
      url: t.url,
      workspace: 'off',
      token,
      persist: createMemoryStore().persist,
    })
    const b = await connectWorkspace({ url: t.url, workspace: 'off', token })
    open.push(a, b)
    await a.fs.writeFile('/shared.txt', 'middle\n')
    await a.flush()
    await waitFor(
      async () => (await b.fs.exists('/shared.txt')) && (await b.fs.readFile('/shared.txt')) === 'middle\n',
      'b sees the file',
    )

    const seen: boolean[] = []
    const off = a.onStatus((s) => seen.push(s.online))
    a.socket.disconnect()
    await waitFor(() => !a.status().online, 'a offline')
    await a.fs.writeFile('/shared.txt', 'middle\nfrom a offline\n')
    expect(a.status().unacknowledged).toBeGreaterThan(0)
    await b.fs.writeFile('/shared.txt', 'from b\nmiddle\n')
    await b.flush()

    a.socket.connect()
    await a.flush()
    const both = 'from b\nmiddle\nfrom a offline\n'
    await waitFor(async () => (await a.fs.readFile('/shared.txt')) === both, 'a has both edits')
    await waitFor(async () => (await b.fs.readFile('/shared.txt')) === both, 'b has both edits')
    expect(a.status()).toEqual({ online: true, unacknowledged: 0 })
    expect(seen).toContain(false)
    expect(seen.at(-1)).toBe(true)
    off()
  })

  it('files read offline and closed unchanged are not counted as unacknowledged; changed ones are', async () => {
    const store = createMemoryStore()
    const a = await connectWorkspace({ url: t.url, workspace: 'off', token, persist: store.persist })
    await a.fs.writeFile('/viewed.txt', 'only looked at\n')
    await a.fs.writeFile('/changed.txt', 'before\n')
    await a.flush()
    await a.close()

    const down = await openOffline(store.persist, 2_000)
    open.push(down)
    expect(await down.fs.readFile('/viewed.txt')).toBe('only looked at\n')
    expect(down.fs.pool.loaded().next().done).toBe(false)
    down.fs.pool.evictIdle(true)
    expect(down.fs.pool.loaded().next().done).toBe(true)
    // Read and closed: nothing to send, so no copy waits for the server.
    expect(down.status()).toEqual({ online: false, unacknowledged: 0 })
    await down.fs.writeFile('/changed.txt', 'after, offline\n')
    down.fs.pool.evictIdle(true)
    // Changed and closed: its copy waits for the server (and the main doc has the row's change).
    expect(down.status()).toEqual({ online: false, unacknowledged: 2 })
    await down.close(0)

    const back = await connectWorkspace({ url: t.url, workspace: 'off', token, persist: store.persist })
    open.push(back)
    await back.flush()
    expect(back.status()).toEqual({ online: true, unacknowledged: 0 })
    const other = await connectWorkspace({ url: t.url, workspace: 'off', token })
    open.push(other)
    expect(await other.fs.readFile('/changed.txt')).toBe('after, offline\n')
    expect(await other.fs.readFile('/viewed.txt')).toBe('only looked at\n')
  })

  it('offline, a file this device never had is an EIO naming it, not empty text; it opens once back online', async () => {
    const a = await connectWorkspace({
      url: t.url,
      workspace: 'off',
      token,
      persist: createMemoryStore().persist,
    })
    const b = await connectWorkspace({ url: t.url, workspace: 'off', token })
    open.push(a, b)
    await b.fs.writeFile('/elsewhere.txt', 'written on another device\n')
    await b.fs.writeFile('/empty-elsewhere.txt', '')
    await b.flush()
    await waitFor(
      async () => (await a.fs.exists('/elsewhere.txt')) && (await a.fs.exists('/empty-elsewhere.txt')),
      'a has the rows',
    )
    a.socket.disconnect()
    await waitFor(() => !a.status().online, 'a offline')
    const error = await a.fs.readFile('/elsewhere.txt').catch((e: unknown) => e)
    expect(error).toMatchObject({ code: 'EIO', syscall: 'open', path: '/elsewhere.txt' })
    expect((error as Error).message).toBe(`EIO: ${NOT_ON_DEVICE}, open '/elsewhere.txt'`)
    // A write would replace text this device has never seen (and merge into it later): refused too.
    await expect(a.fs.writeFile('/elsewhere.txt', 'mine\n')).rejects.toMatchObject({ code: 'EIO' })
    expect(a.status().unacknowledged).toBe(0)
    // An empty file is just empty.
    expect(await a.fs.readFile('/empty-elsewhere.txt')).toBe('')
    a.socket.connect()
    await waitFor(() => a.status().online, 'a online')
    expect(await a.fs.readFile('/elsewhere.txt')).toBe('written on another device\n')
    await a.fs.writeFile('/elsewhere.txt', 'mine\n')
    await a.flush()
    await waitFor(async () => (await b.fs.readFile('/elsewhere.txt')) === 'mine\n', 'b has the write')
  })

  describe('waitForSync: false (a warm start opens the stored copy and syncs behind it)', () => {
    it('opens once the token is accepted, without the main doc’s sync, and the server’s changes follow', async () => {
      // A real SQLite store whose loads of the main doc wait while `gate` is set: the server accepts
      // the token at once (Hocuspocus answers "authenticated" before it loads the document) but
      // cannot send the main doc until the gate opens.
      const dir = mkdtempSync(join(tmpdir(), 'yfs-warm-'))
      const sqlite = createSqliteStore({ file: join(dir, 'yfs.sqlite') })
      let gate: Promise<void> | undefined
      let openGate = () => {}
      const store = new Proxy(sqlite, {
        get(target, key) {
          if (key === 'load')
            return async (workspace: string, name: string) => {
              if (gate && name === workspace) await gate
              return target.load(workspace, name)
            }
          const value = Reflect.get(target, key)
          return typeof value === 'function' ? value.bind(target) : value
        },
      })
      const first = await startTestServer({ store })
      const { write, read } = await first.workspace('warm')
      const device = createMemoryStore()
      const a = await connectWorkspace({
        url: first.url,
        workspace: 'warm',
        token: write,
        persist: device.persist,
      })
      await a.fs.writeFile('/stored.txt', 'on this device\n')
      await a.flush()
      await a.close()
      // Another client changes the workspace while this device is away.
      const other = await connectWorkspace({ url: first.url, workspace: 'warm', token: write })
      await other.fs.writeFile('/later.txt', 'written meanwhile\n')
      await other.flush()
      await other.close()
      await first.close()

      // A fresh server on the same store (nothing in memory), with the main doc's load held back.
      gate = new Promise((resolve) => {
        openGate = resolve
      })
      const second = await startTestServer({ store })
      try {
        const warm = await connectWorkspace({
          url: second.url,
          workspace: 'warm',
          token: write,
          persist: device.persist,
          waitForSync: false,
          offlineAfterMs: 10_000,
        })
        expect(warm.main.isSynced).toBe(false)
        expect(warm.openedOffline).toBe(false)
        expect(warm.readOnly).toBe(false)
        // The stored tree is there; the server's change is not yet (content reads would wait for the
        // server while it is reachable, so they come after the gate).
        expect(await warm.fs.readdir('/')).toContain('stored.txt')
        expect(await warm.fs.exists('/later.txt')).toBe(false)
        openGate()
        await waitFor(async () => warm.fs.exists('/later.txt'), 'the server’s change arrives')
        expect(await warm.fs.readFile('/later.txt')).toBe('written meanwhile\n')
        expect(await warm.fs.readFile('/stored.txt')).toBe('on this device\n')
        await warm.close()

        // A read token's scope is known when it opens: the stored copy opens read-only.
        const reader = await connectWorkspace({
          url: second.url,
          workspace: 'warm',
          token: read,
          persist: device.persist,
          waitForSync: false,
        })
        expect(reader.readOnly).toBe(true)
        const refused = await reader.fs.writeFile('/stored.txt', 'no').catch((e: NodeJS.ErrnoException) => e)
        expect((refused as NodeJS.ErrnoException).code).toBe('EACCES')
        await reader.close(0)
      } finally {
        openGate()
        await second.close()
        await sqlite.close()
        rmSync(dir, { recursive: true, force: true })
      }
    })

    it('a refused token is refused even though this device has a copy', async () => {
      const { write } = await t.workspace('warm-refused')
      const store = createMemoryStore()
      const first = await connectWorkspace({
        url: t.url,
        workspace: 'warm-refused',
        token: write,
        persist: store.persist,
      })
      await first.fs.writeFile('/secret.txt', 'x')
      await first.flush()
      await first.close()
      const error = await connectWorkspace({
        url: t.url,
        workspace: 'warm-refused',
        token: 'not-a-token',
        persist: store.persist,
        waitForSync: false,
      }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ConnectError)
      expect((error as ConnectError).reason).toBe('invalid token')
    })

    it('opens from the store when the server is unreachable', async () => {
      const { write } = await t.workspace('warm-down')
      const store = createMemoryStore()
      const first = await connectWorkspace({
        url: t.url,
        workspace: 'warm-down',
        token: write,
        persist: store.persist,
      })
      await first.fs.writeFile('/a.txt', 'a\n')
      await first.flush()
      await first.close()
      const down = await connectWorkspace({
        url: await deadUrl(),
        workspace: 'warm-down',
        token: write,
        persist: store.persist,
        waitForSync: false,
      })
      open.push(down)
      expect(down.openedOffline).toBe(true)
      expect(await down.fs.readFile('/a.txt')).toBe('a\n')
    })
  })

  describe('a local copy that loads slowly (the token check overlaps the load)', () => {
    /** A device that holds `files` small files of workspace `name` (written online, then closed). */
    async function deviceWith(name: string, files: number) {
      const { write } = await t.workspace(name)
      const device = createMemoryStore()
      const first = await connectWorkspace({
        url: t.url,
        workspace: name,
        token: write,
        persist: device.persist,
      })
      await first.fs.mkdir('/rows')
      await first.fs.writeTree(
        Array.from({ length: files }, (_, i) => ({ path: `/rows/file-${i}.txt`, content: `${i}\n` })),
      )
      await first.flush()
      await first.close()
      return { device, write }
    }
    const clearMarks = () => performance.clearMarks('yfs:main-accepted')
    const accepted = () => performance.getEntriesByName('yfs:main-accepted').length > 0

    it('the server accepts the token before the copy has loaded; the copy is not sent back', async () => {
      const { device, write } = await deviceWith('slow-load', 300)
      const mainBytes = Y.mergeUpdates(device.updates.get('slow-load') ?? []).byteLength
      const slow = createSlowStore(device)
      const { WebSocket: Counting, counter } = countingWebSocket()
      clearMarks()
      const connecting = connectWorkspace({
        url: t.url,
        workspace: 'slow-load',
        token: write,
        persist: slow.persist,
        waitForSync: false,
        WebSocket: Counting,
      })
      await waitFor(accepted, 'the token is accepted while the copy still loads')
      expect(slow.loading()).toBe(1)
      slow.release()
      const conn = await connecting
      open.push(conn)
      expect(conn.openedOffline).toBe(false)
      expect(await conn.fs.readdir('/rows')).toHaveLength(300)
      await waitFor(() => conn.main.isSynced, 'the main doc syncs behind the open')
      await conn.flush()
      // Token, sync step and state vectors only: the 300 stored rows never went to the server again.
      expect(mainBytes).toBeGreaterThan(10_000)
      expect(counter.sent).toBeLessThan(mainBytes / 4)
    })

    it('an offline edit of a file nobody re-opens reaches the server on the next connection', async () => {
      const { device, write } = await deviceWith('resume-unopened', 2)
      // A file this device has had open (its content doc is in the store), then offline edits.
      const online = await connectWorkspace({
        url: t.url,
        workspace: 'resume-unopened',
        token: write,
        persist: device.persist,
      })
      await online.fs.writeFile('/rows/seen.txt', 'first version\n')
      await online.flush()
      await online.close()
      const down = await connectWorkspace({
        url: await deadUrl(),
        workspace: 'resume-unopened',
        token: write,
        persist: device.persist,
      })
      await down.fs.writeFile('/rows/seen.txt', 'first version\nedited offline\n')
      await down.fs.writeFile('/rows/new.txt', 'created offline\n')
      await down.close(0)
      // The main doc's store lists both content docs as unacknowledged.
      expect(device.meta.get('resume-unopened:yfs.unacknowledged-docs')).toHaveLength(2)

      // Back online: nobody reads the files, yet the edits reach the server and another client.
      const back = await connectWorkspace({
        url: t.url,
        workspace: 'resume-unopened',
        token: write,
        persist: device.persist,
      })
      open.push(back)
      expect(back.status().unacknowledged).toBeGreaterThan(0)
      await back.flush()
      const other = await connectWorkspace({ url: t.url, workspace: 'resume-unopened', token: write })
      open.push(other)
      expect(await other.fs.readFile('/rows/seen.txt')).toBe('first version\nedited offline\n')
      expect(await other.fs.readFile('/rows/new.txt')).toBe('created offline\n')
      await waitFor(() => back.status().unacknowledged === 0, 'nothing left unacknowledged')
      await back.close()
      // Acknowledged: the list is empty again, so the next connection re-opens nothing.
      expect(device.meta.get('resume-unopened:yfs.unacknowledged-docs')).toEqual([])
    })

    it('offline edits in the copy still reach the server through the held sync', async () => {
      const { device, write } = await deviceWith('slow-offline', 3)
      const down = await connectWorkspace({
        url: await deadUrl(),
        workspace: 'slow-offline',
        token: write,
        persist: device.persist,
      })
      await down.fs.writeFile('/rows/offline.txt', 'written without a server\n')
      await down.close(0)

      const slow = createSlowStore(device)
      const connecting = connectWorkspace({
        url: t.url,
        workspace: 'slow-offline',
        token: write,
        persist: slow.persist,
        waitForSync: false,
      })
      setTimeout(() => slow.release(), 100)
      const conn = await connecting
      open.push(conn)
      await conn.flush()
      const other = await connectWorkspace({ url: t.url, workspace: 'slow-offline', token: write })
      open.push(other)
      expect(await other.fs.readFile('/rows/offline.txt')).toBe('written without a server\n')
      expect(await other.fs.readdir('/rows')).toHaveLength(4)
    })

    it('a token refused while the copy loads fails the connect with the server’s reason', async () => {
      const { device } = await deviceWith('slow-refused', 3)
      const slow = createSlowStore(device)
      const started = Date.now()
      const connecting = connectWorkspace({
        url: t.url,
        workspace: 'slow-refused',
        token: 'not-a-token',
        persist: slow.persist,
        waitForSync: false,
        offlineAfterMs: 20_000,
        timeoutMs: 20_000,
      }).catch((e: unknown) => e)
      // Long enough for the refusal to arrive before the copy has loaded.
      await new Promise((resolve) => setTimeout(resolve, 300))
      slow.release()
      const error = await connecting
      expect(error).toBeInstanceOf(ConnectError)
      expect((error as ConnectError).reason).toBe('invalid token')
      expect(Date.now() - started).toBeLessThan(10_000)
    })
  })

  it('property: appends across disconnects, evictions and re-opens all reach the server, in order', async () => {
    type Op =
      | { kind: 'append' }
      | { kind: 'disconnect' }
      | { kind: 'connect' }
      | { kind: 'evict' }
      | { kind: 'reopen' }
    const op = fc.oneof(
      { weight: 4, arbitrary: fc.constant<Op>({ kind: 'append' }) },
      fc.constant<Op>({ kind: 'disconnect' }),
      fc.constant<Op>({ kind: 'connect' }),
      fc.constant<Op>({ kind: 'evict' }),
      fc.constant<Op>({ kind: 'reopen' }),
    )
    let run = 0
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 14 }), async (ops) => {
        const name = `prop-${run++}`
        const { write } = await t.workspace(name)
        const device = createMemoryStore()
        const a = await connectWorkspace({
          url: t.url,
          workspace: name,
          token: write,
          persist: device.persist,
        })
        try {
          let text = ''
          await a.fs.writeFile('/log.txt', text)
          for (const [i, o] of ops.entries()) {
            if (o.kind === 'append') {
              text += `line ${i}\n`
              await a.fs.writeFile('/log.txt', text)
            } else if (o.kind === 'disconnect') {
              a.socket.disconnect()
              await waitFor(() => !a.status().online, 'offline')
            } else if (o.kind === 'connect') {
              a.socket.connect()
              await waitFor(() => a.status().online, 'online')
            } else if (o.kind === 'evict') a.fs.pool.evictIdle(true)
            else {
              const handle = await a.fs.pool.acquire(a.fs.index.lookup('/log.txt')!)
              expect(handle.doc.getText('text').toString()).toBe(text)
              handle.release()
            }
          }
          if (!a.status().online) {
            a.socket.connect()
            await waitFor(() => a.status().online, 'online at the end')
          }
          await a.flush(10_000)
          expect(a.status().unacknowledged).toBe(0)
          const b = await connectWorkspace({ url: t.url, workspace: name, token: write })
          try {
            expect(await b.fs.readFile('/log.txt')).toBe(text)
          } finally {
            await b.close(0)
          }
        } finally {
          await a.close(0)
        }
      }),
      { numRuns: Number(process.env.YFS_PROP_RUNS ?? 12) },
    )
  }, 60_000)

  describe('codecsLoading (codecs from a lazily loaded chunk)', () => {
    it('creates the filesystem with the codecs once they have loaded', async () => {
      const { write } = await t.workspace('lazy-codec')
      let loaded = false
      const codecsLoading = new Promise<(typeof markdownCodec)[]>((resolve) =>
        setTimeout(() => {
          loaded = true
          resolve([markdownCodec])
        }, 50),
      )
      const conn = await connectWorkspace({
        url: t.url,
        workspace: 'lazy-codec',
        token: write,
        codecsLoading,
      })
      open.push(conn)
      expect(loaded).toBe(true)
      expect(conn.fs.codecFor('/notes.md').id).toBe('markdown')
      await conn.fs.writeFile('/notes.md', '- [ ] task\n')
      expect(await conn.fs.readFile('/notes.md')).toBe('- [ ] task\n')
    })

    it('a codec chunk that fails to load fails the connect with its error', async () => {
      const { write } = await t.workspace('lazy-codec-fails')
      const error = await connectWorkspace({
        url: t.url,
        workspace: 'lazy-codec-fails',
        token: write,
        codecsLoading: Promise.reject(new Error('chunk failed to load')),
      }).catch((e: unknown) => e)
      expect(String(error)).toContain('chunk failed to load')
    })
  })
})
