// @yfs/client's persistence hook against a real server: a workspace opens from the local store when
// the server is unreachable (tree and content), offline edits are kept by the store and merge with
// another client's edits on reconnect, and the status reports online/offline and unacknowledged docs.
// The store is an in-memory map of real Yjs updates, the shape y-indexeddb gives in a browser.
import { createServer as createNetServer } from 'node:net'
import { connectWorkspace, type PersistDoc, type WorkspaceConnection } from '@yfs/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { startTestServer, type TestServer, waitFor } from './helpers.js'

/** A device-local store: every update of every attached doc, by doc name. */
function createMemoryStore() {
  const updates = new Map<string, Uint8Array[]>()
  const persist: PersistDoc = (name, doc) => {
    const log = updates.get(name) ?? []
    updates.set(name, log)
    const stored = Y.mergeUpdates(log)
    if (log.length > 0) Y.applyUpdate(doc, stored, 'store')
    const onUpdate = (update: Uint8Array, origin: unknown) => {
      if (origin !== 'store') log.push(update)
    }
    doc.on('update', onUpdate)
    return { whenLoaded: Promise.resolve(), destroy: () => doc.off('update', onUpdate) }
  }
  return { persist, updates }
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

    const down = await connectWorkspace({
      url: await deadUrl(),
      workspace: 'off',
      token,
      persist: store.persist,
      timeoutMs: 2_000,
    })
    open.push(down)
    expect(down.openedOffline).toBe(true)
    expect(down.status().online).toBe(false)
    expect(await down.fs.readdir('/notes')).toEqual(['todo.md'])
    expect(await down.fs.readFile('/notes/todo.md')).toBe('- [ ] buy milk\n')
    await down.fs.writeFile('/notes/offline.txt', 'written without a server\n')
    expect(down.status().unacknowledged).toBeGreaterThan(0)
    await down.close(0)

    // The offline edit is in the store: the next offline open shows it too.
    const again = await connectWorkspace({
      url: await deadUrl(),
      workspace: 'off',
      token,
      persist: store.persist,
    })
    open.push(again)
    expect(await again.fs.readFile('/notes/offline.txt')).toBe('written without a server\n')
  })

  it('without a stored copy, an unreachable server still fails the connect', async () => {
    const error = await connectWorkspace({
      url: await deadUrl(),
      workspace: 'off',
      token,
      persist: createMemoryStore().persist,
      timeoutMs: 500,
    }).catch((e: Error) => e)
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
})
