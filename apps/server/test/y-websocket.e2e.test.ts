// y-websocket compatibility: a plain WebsocketProvider on /yws/<doc> and a Hocuspocus client see each
// other's edits live, share persistence, and get the same auth and hostile-message treatment.
import { asFileId, createFilesTable } from '@yfs/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import { createTestClient, startTestServer, synced, type TestServer, waitFor } from './helpers.js'
import { openRawSocket } from './raw-socket.js'

const FILE = 'ywsfileAAAAAAAA'

function yws(t: TestServer, room: string, token: string, doc = new Y.Doc()): WebsocketProvider {
  return new WebsocketProvider(`${t.url}/yws`, room, doc, {
    WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
    params: { token },
    disableBc: true,
  })
}

const ywsSynced = (p: WebsocketProvider) => waitFor(() => p.synced, `y-websocket sync of ${p.roomname}`)

describe('y-websocket path', () => {
  let t: TestServer
  let tokens: { write: string; read: string }

  beforeAll(async () => {
    t = await startTestServer({ fileWaitMs: 300 })
    tokens = await t.workspace('y')
    const setup = createTestClient(t.url, tokens.write)
    const main = setup.open('y')
    await synced(main)
    createFilesTable(main.document).set({
      id: asFileId(FILE),
      name: 'shared.txt',
      parentId: null,
      type: 'file',
      size: 0,
      createdAt: 1,
      updatedAt: 1,
      trashedAt: null,
    })
    await synced(main)
    setup.destroy()
  })
  afterAll(() => t.close())

  it('a y-websocket client and a Hocuspocus client converge on the same file, live', async () => {
    const hp = createTestClient(t.url, tokens.write)
    const ydoc = new Y.Doc({ gc: false })
    const ywsClient = yws(t, `y/${FILE}`, tokens.write, ydoc)
    try {
      const content = hp.open(`y/${FILE}`, new Y.Doc({ gc: false }))
      await Promise.all([synced(content), ywsSynced(ywsClient)])
      content.document.getText('text').insert(0, 'from hocuspocus. ')
      await waitFor(() => ydoc.getText('text').toString().includes('from hocuspocus'), 'hp → yws')
      ydoc.getText('text').insert(ydoc.getText('text').length, 'from y-websocket.')
      await waitFor(
        () => content.document.getText('text').toString() === 'from hocuspocus. from y-websocket.',
        'yws → hp',
      )
      // Both edits are stored: a fresh Hocuspocus client loads them.
      await waitFor(async () => {
        const doc = new Y.Doc()
        const state = await t.store.load('y', `y/${FILE}`)
        if (state) Y.applyUpdate(doc, state)
        return doc.getText('text').toString() === 'from hocuspocus. from y-websocket.'
      }, 'stored')
      // Awareness crosses over too.
      ywsClient.awareness.setLocalStateField('user', 'yws-user')
      await waitFor(
        () => [...content.awareness!.getStates().values()].some((s) => s.user === 'yws-user'),
        'awareness yws → hp',
      )
    } finally {
      ywsClient.destroy()
      hp.destroy()
    }
  })

  it('two y-websocket clients converge on the main doc', async () => {
    const a = new Y.Doc()
    const b = new Y.Doc()
    const pa = yws(t, 'y', tokens.write, a)
    const pb = yws(t, 'y', tokens.write, b)
    try {
      await Promise.all([ywsSynced(pa), ywsSynced(pb)])
      a.getMap('m').set('a', 1)
      b.getMap('m').set('b', 2)
      await waitFor(() => a.getMap('m').size === 2 && b.getMap('m').size === 2, 'main doc convergence')
      expect(createFilesTable(b).get(asFileId(FILE))?.name).toBe('shared.txt')
    } finally {
      pa.destroy()
      pb.destroy()
    }
  })

  it('refuses bad tokens and unknown files with 4401 and a reason', async () => {
    const cases: [string, string][] = [
      [`/yws/y`, 'missing token'],
      [`/yws/y?token=nope`, 'invalid token'],
      [`/yws/y/nosuchfileAAAAA?token=${tokens.write}`, 'no such file in workspace'],
      [`/yws/other?token=${tokens.write}`, 'token not valid for this workspace'],
    ]
    for (const [path, reason] of cases) {
      const raw = await openRawSocket(`${t.url}${path}`)
      expect(await raw.closed).toEqual({ code: 4401, reason })
    }
  })

  it('drops updates of a read token', async () => {
    const reader = new Y.Doc({ gc: false })
    const pr = yws(t, `y/${FILE}`, tokens.read, reader)
    const hp = createTestClient(t.url, tokens.write)
    try {
      const content = hp.open(`y/${FILE}`, new Y.Doc({ gc: false }))
      await Promise.all([ywsSynced(pr), synced(content)])
      const before = content.document.getText('text').toString()
      reader.getText('text').insert(0, 'EVIL ')
      pr.awareness.setLocalStateField('user', 'reader')
      await waitFor(
        () => [...content.awareness!.getStates().values()].some((s) => s.user === 'reader'),
        'reader awareness (barrier)',
      )
      expect(content.document.getText('text').toString()).toBe(before)
    } finally {
      pr.destroy()
      hp.destroy()
    }
  })

  it('garbage and invalid updates close the socket with 4400', async () => {
    for (const frame of [
      new Uint8Array([0, 2, 5, 1, 2]),
      new Uint8Array([0, 2, 3, 0xff, 0xff, 0xff]),
      new Uint8Array([9]),
    ]) {
      const raw = await openRawSocket(`${t.url}/yws/y?token=${tokens.write}`)
      raw.send(frame)
      expect((await raw.closed).code).toBe(4400)
    }
    const ok = yws(t, 'y', tokens.write)
    await ywsSynced(ok)
    ok.destroy()
  })
})
