// Hocuspocus clients over real sockets: convergence of main and content docs, durability of acked
// changes, the auth matrix and the content-doc rule.
import { asFileId, createFilesTable } from '@yfs/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import {
  authFailure,
  createTestClient,
  startTestServer,
  synced,
  type TestServer,
  waitFor,
} from './helpers.js'

function addFileRow(doc: Y.Doc, id: string, name: string): void {
  const now = Date.now()
  createFilesTable(doc).set({
    id: asFileId(id),
    name,
    parentId: null,
    type: 'file',
    size: 0,
    createdAt: now,
    updatedAt: now,
    trashedAt: null,
  })
}

function storedText(state: Uint8Array | undefined): string {
  const doc = new Y.Doc()
  if (state) Y.applyUpdate(doc, state)
  return doc.getText('text').toString()
}

describe('sync over Hocuspocus', () => {
  let t: TestServer
  let tokens: { write: string; read: string }
  let other: { write: string; read: string }

  beforeAll(async () => {
    t = await startTestServer({ fileWaitMs: 500 })
    tokens = await t.workspace('w1')
    other = await t.workspace('w2')
  })
  afterAll(async () => {
    await t.close()
  })

  it('two clients edit the tree and contents over one socket each and converge', async () => {
    const a = createTestClient(t.url, tokens.write)
    const b = createTestClient(t.url, tokens.write)
    try {
      const mainA = a.open('w1')
      const mainB = b.open('w1')
      await Promise.all([synced(mainA), synced(mainB)])

      addFileRow(mainA.document, 'fileAAAAAAAAAAA', 'a.txt')
      addFileRow(mainB.document, 'fileBBBBBBBBBBB', 'b.txt')
      const tableA = createFilesTable(mainA.document)
      const tableB = createFilesTable(mainB.document)
      await waitFor(() => tableA.size === 2 && tableB.size === 2, 'both rows on both clients')

      const docA = a.open('w1/fileAAAAAAAAAAA', new Y.Doc({ gc: false }))
      const docB = b.open('w1/fileAAAAAAAAAAA', new Y.Doc({ gc: false }))
      await Promise.all([synced(docA), synced(docB)])
      docA.document.getText('text').insert(0, 'hello')
      docB.document.getText('text').insert(0, 'world ')
      await waitFor(
        () =>
          docA.document.getText('text').toString() === docB.document.getText('text').toString() &&
          docA.document.getText('text').length === 11,
        'content convergence',
      )
      expect(Y.encodeStateVector(docA.document)).toEqual(Y.encodeStateVector(docB.document))
      expect([...tableA.rows()].map((r) => r.name).sort()).toEqual(['a.txt', 'b.txt'])
    } finally {
      a.destroy()
      b.destroy()
    }
  })

  it('a change the provider counts as synced is already in the store', async () => {
    const a = createTestClient(t.url, tokens.write)
    try {
      const main = a.open('w1')
      await synced(main)
      addFileRow(main.document, 'durableAAAAAAAA', 'd.txt')
      const content = a.open('w1/durableAAAAAAAA', new Y.Doc({ gc: false }))
      await synced(content)
      for (let i = 0; i < 20; i++) {
        content.document.getText('text').insert(content.document.getText('text').length, `${i};`)
        await synced(content)
        // No waiting beyond the ack: the store must have it now.
        expect(storedText(await t.store.load('w1', 'w1/durableAAAAAAAA'))).toBe(
          content.document.getText('text').toString(),
        )
      }
    } finally {
      a.destroy()
    }
  })

  it('refuses a missing token, an unknown token and a token of another workspace', async () => {
    const noToken = createTestClient(t.url, '')
    const wrong = createTestClient(t.url, 'yfs_not-a-token')
    const otherWs = createTestClient(t.url, other.write)
    try {
      expect(await authFailure(noToken.open('w1'))).toBe('missing token')
      expect(await authFailure(wrong.open('w1'))).toBe('invalid token')
      expect(await authFailure(otherWs.open('w1'))).toBe('token not valid for this workspace')
      expect(await authFailure(otherWs.open('w1/fileAAAAAAAAAAA'))).toBe('token not valid for this workspace')
      expect(await authFailure(otherWs.open('../w1'))).toBe('invalid document name')
    } finally {
      noToken.destroy()
      wrong.destroy()
      otherWs.destroy()
    }
  })

  it('opens a content doc only for a file of the workspace, waiting briefly for a new row', async () => {
    const a = createTestClient(t.url, tokens.write)
    try {
      const main = a.open('w1')
      await synced(main)
      expect(await authFailure(a.open('w1/nosuchfileXXXXX'))).toBe('no such file in workspace')
      // A folder has no content doc.
      createFilesTable(main.document).set({
        id: asFileId('folderFFFFFFFFF'),
        name: 'dir',
        parentId: null,
        type: 'folder',
        size: 0,
        createdAt: 1,
        updatedAt: 1,
        trashedAt: null,
      })
      expect(await authFailure(a.open('w1/folderFFFFFFFFF'))).toBe('no such file in workspace')
      // Core writes content before the row: opening first and adding the row just after works.
      const early = a.open('w1/lateRowAAAAAAAA', new Y.Doc({ gc: false }))
      early.document.getText('text').insert(0, 'content first')
      setTimeout(() => addFileRow(main.document, 'lateRowAAAAAAAA', 'late.txt'), 100)
      await synced(early)
      expect(storedText(await t.store.load('w1', 'w1/lateRowAAAAAAAA'))).toBe('content first')
    } finally {
      a.destroy()
    }
  })

  it('a read token reads but its updates are neither applied nor stored', async () => {
    const writer = createTestClient(t.url, tokens.write)
    const reader = createTestClient(t.url, tokens.read)
    try {
      const main = writer.open('w1')
      await synced(main)
      addFileRow(main.document, 'readonlyAAAAAAA', 'r.txt')
      const w = writer.open('w1/readonlyAAAAAAA', new Y.Doc({ gc: false }))
      await synced(w)
      w.document.getText('text').insert(0, 'from writer')
      await synced(w)

      const r = reader.open('w1/readonlyAAAAAAA', new Y.Doc({ gc: false }))
      await waitFor(() => r.document.getText('text').toString() === 'from writer', 'reader sees writer')
      expect(r.authorizedScope).toBe('readonly')
      r.document.getText('text').insert(0, 'EVIL ')
      // Barrier: the reader's later awareness message reaching the writer means the update was handled.
      r.setAwarenessField('user', 'reader')
      await waitFor(
        () => [...w.awareness!.getStates().values()].some((s) => s.user === 'reader'),
        'reader awareness at writer',
      )
      await new Promise((r) => setTimeout(r, 100))
      expect(w.document.getText('text').toString()).toBe('from writer')
      expect(storedText(await t.store.load('w1', 'w1/readonlyAAAAAAA'))).toBe('from writer')
      expect(r.unsyncedChanges).toBeGreaterThan(0)
    } finally {
      writer.destroy()
      reader.destroy()
    }
  })
})
