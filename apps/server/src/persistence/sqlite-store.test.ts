// SQLite store: the DocumentStore contract on a temp file, plus WAL mode.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { expect, it } from 'vitest'
import * as Y from 'yjs'
import { describeDocumentStoreContract } from './document-store.contract.js'
import { createSqliteStore } from './sqlite-store.js'
import { createUpdateMerger } from './update-merger.js'

describeDocumentStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-sqlite-'))
  const file = join(dir, 'nested', 'yfs.sqlite')
  return {
    store: createSqliteStore({ file }),
    openPeer: async () => createSqliteStore({ file }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  }
})

// Every merge on the merger's thread (minBytes 0): a compaction reads, merges off the event loop,
// then replaces what it read only if none of it is gone (the property of concurrent compactions).
describeDocumentStoreContract('sqlite, every merge off the event loop', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-sqlite-'))
  const file = join(dir, 'yfs.sqlite')
  const mergers = [createUpdateMerger({ minBytes: 0 }), createUpdateMerger({ minBytes: 0 })]
  return {
    store: createSqliteStore({ file, merger: mergers[0] }),
    openPeer: async () => createSqliteStore({ file, merger: mergers[1] }),
    cleanup: async () => {
      for (const m of mergers) await m.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
})

it('sqlite store runs in WAL mode', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-sqlite-'))
  const file = join(dir, 'yfs.sqlite')
  const store = createSqliteStore({ file })
  const db = new Database(file, { readonly: true })
  expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
  db.close()
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

it('adds the token name column to a store made before tokens had names, keeping its tokens', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-sqlite-'))
  const file = join(dir, 'yfs.sqlite')
  const store = createSqliteStore({ file })
  await store.createWorkspace('old')
  const token = await store.createToken('old', 'write')
  await store.close()
  // The table as it was: no name column.
  const db = new Database(file)
  db.exec('ALTER TABLE tokens DROP COLUMN name')
  db.close()
  const reopened = createSqliteStore({ file })
  expect(await reopened.resolveToken(token)).toEqual({ workspace: 'old', role: 'write' })
  const named = await reopened.createToken('old', 'read', 'reviewer')
  expect(await reopened.resolveToken(named)).toEqual({ workspace: 'old', role: 'read', name: 'reviewer' })
  await reopened.close()
  rmSync(dir, { recursive: true, force: true })
})

it('a compaction whose rows another compaction or a salvage replaced while it merged writes nothing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-sqlite-'))
  const file = join(dir, 'yfs.sqlite')
  // A merger that holds its answer until told: the compaction waits between reading and writing.
  let release!: () => void
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const slow = {
    async merge(updates: readonly Uint8Array[]) {
      await gate
      return Y.mergeUpdates(updates as Uint8Array[])
    },
    async close() {},
  }
  const a = createSqliteStore({ file, merger: slow })
  const b = createSqliteStore({ file })
  const doc = new Y.Doc()
  const updates: Uint8Array[] = []
  doc.on('update', (u: Uint8Array) => updates.push(u))
  for (const c of 'abc') doc.getText('t').insert(0, c)
  for (const u of updates) await b.append('ws', 'ws/d', u)
  const waiting = a.compact('ws', 'ws/d')
  // Meanwhile the other handle replaces the same rows (a salvage would too), and a peer appends.
  expect((await b.compact('ws', 'ws/d')).merged).toBe(3)
  doc.getText('t').insert(0, 'd')
  await b.append('ws', 'ws/d', updates.at(-1)!)
  release()
  expect(await waiting).toEqual({ merged: 0, bytes: 0 })
  // One merged row and the append: the stale merge was not written back.
  expect(await a.logLength('ws', 'ws/d')).toBe(2)
  const state = (await a.load('ws', 'ws/d'))!
  const check = new Y.Doc()
  Y.applyUpdate(check, state)
  expect(check.getText('t').toString()).toBe('dcba')
  await a.close()
  await b.close()
  rmSync(dir, { recursive: true, force: true })
})

it('a snapshot reads page by page, the event loop turning between pages, and sees one commit whatever is appended meanwhile', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-sqlite-'))
  const file = join(dir, 'yfs.sqlite')
  const store = createSqliteStore({ file, snapshotPageRows: 10 })
  const update = (text: string) => {
    const doc = new Y.Doc()
    doc.getText('t').insert(0, text)
    return Y.encodeStateAsUpdate(doc)
  }
  try {
    for (let i = 0; i < 50; i++) await store.append('ws', `ws/d${String(i).padStart(2, '0')}`, update(`${i}`))
    // Appends while the snapshot reads: a document sorting after every page, and one before.
    let appended = 0
    const appendMeanwhile = () => {
      if (appended >= 5) return
      appended++
      void store.append('ws', `ws/z${appended}`, update('late'))
      void store.append('ws', 'ws/a', update('late'))
      setImmediate(appendMeanwhile)
    }
    setImmediate(appendMeanwhile)
    const documents = await store.snapshotWorkspace('ws')
    expect(appended).toBeGreaterThan(0)
    expect(documents.map((d) => d.name)).toEqual(
      Array.from({ length: 50 }, (_, i) => `ws/d${String(i).padStart(2, '0')}`),
    )
    // The next snapshot sees them.
    const after = await store.snapshotWorkspace('ws')
    expect(after.map((d) => d.name)).toContain('ws/z1')
    expect(after.map((d) => d.name)).toContain('ws/a')
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
