// SQLite store: the DocumentStore contract on a temp file, plus WAL mode.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { expect, it } from 'vitest'
import { describeDocumentStoreContract } from './document-store.contract.js'
import { createSqliteStore } from './sqlite-store.js'

describeDocumentStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-sqlite-'))
  const file = join(dir, 'nested', 'yfs.sqlite')
  return {
    store: createSqliteStore({ file }),
    openPeer: async () => createSqliteStore({ file }),
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
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
