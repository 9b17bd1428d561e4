/**
 * SQLite DocumentStore (better-sqlite3, WAL): the embedded default.
 *
 * One file holds workspaces, token hashes and the update log. Each `append`
 * (and each `appendMany`, however many rows) is its own committed transaction, so once it returns the update survives a
 * crash of the process (`synchronous=NORMAL` in WAL mode: a power loss may
 * drop the last transactions; pass `synchronous: 'FULL'` to rule that out).
 * Compaction runs in a `BEGIN IMMEDIATE` transaction and deletes the ids it
 * merged, so several processes may share one file.
 *
 * better-sqlite3 is synchronous: every method does its work before returning
 * a settled promise. Statements are small (one row), so the event loop is
 * blocked for microseconds, not milliseconds.
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import {
  assertWorkspaceId,
  type CompactResult,
  checkTokenName,
  type DocumentStore,
  grantOf,
  ROLES,
  type Role,
  type SalvageResult,
  type StoredDocument,
  StoreError,
  type TokenGrant,
} from './document-store.js'
import { mergeByDoc } from './merge-by-doc.js'
import type { LogRepair } from './salvage.js'
import { createTokenSecret, hashToken } from './tokens.js'
import { createUpdateMerger, type UpdateMerger } from './update-merger.js'

export interface SqliteStoreOptions {
  /** Database file; `:memory:` for a throwaway store. Parent folders are created. */
  file: string
  /** SQLite `synchronous` pragma. Default `NORMAL` (crash-safe in WAL mode). */
  synchronous?: 'NORMAL' | 'FULL'
  /** Merges logs (large ones off the event loop, update-merger.ts). Default: one of its own, closed with the store. */
  merger?: UpdateMerger
  /** Rows a snapshot (backup) reads before it lets the event loop turn. Default 2,000. */
  snapshotPageRows?: number
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS workspaces (
  id TEXT PRIMARY KEY,
  created_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tokens (
  hash TEXT PRIMARY KEY,
  workspace TEXT NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('read', 'write')),
  created_at INTEGER NOT NULL,
  name TEXT
);
CREATE TABLE IF NOT EXISTS updates (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace TEXT NOT NULL,
  doc TEXT NOT NULL,
  data BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS updates_by_doc ON updates (workspace, doc, id);
-- Rows a salvage set aside (salvage.ts): they did not load; kept for inspection, never loaded.
CREATE TABLE IF NOT EXISTS quarantined_updates (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace TEXT NOT NULL,
  doc TEXT NOT NULL,
  data BLOB NOT NULL,
  reason TEXT NOT NULL,
  quarantined_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS quarantined_by_doc ON quarantined_updates (workspace, doc, id);
`

interface UpdateRow {
  id: number
  data: Buffer
}

/** The bytes of `update` as a Buffer, without a copy. */
function bufferOf(update: Uint8Array): Buffer {
  return Buffer.from(update.buffer, update.byteOffset, update.byteLength)
}

/** Open (and create if needed) a SQLite store. */
export function createSqliteStore(options: SqliteStoreOptions): DocumentStore {
  if (options.file !== ':memory:') mkdirSync(dirname(options.file), { recursive: true })
  const db = new Database(options.file)
  const merger = options.merger ?? createUpdateMerger()
  db.pragma('journal_mode = WAL')
  db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`)
  db.pragma('busy_timeout = 10000')
  db.pragma('foreign_keys = ON')
  db.exec(SCHEMA)
  // Stores made before tokens had names.
  const tokenColumns = db.prepare<[], { name: string }>('PRAGMA table_info(tokens)').all()
  if (!tokenColumns.some((c) => c.name === 'name')) db.exec('ALTER TABLE tokens ADD COLUMN name TEXT')

  const insertUpdate = db.prepare<[string, string, Buffer]>(
    'INSERT INTO updates (workspace, doc, data) VALUES (?, ?, ?)',
  )
  const selectUpdates = db.prepare<[string, string], UpdateRow>(
    'SELECT id, data FROM updates WHERE workspace = ? AND doc = ? ORDER BY id',
  )
  const countUpdates = db.prepare<[string, string], { n: number }>(
    'SELECT count(*) AS n FROM updates WHERE workspace = ? AND doc = ?',
  )
  const selectWorkspaceUpdates = db.prepare<[string], { doc: string; data: Buffer }>(
    'SELECT doc, data FROM updates WHERE workspace = ? ORDER BY doc, id',
  )
  const hasUpdates = db.prepare<[string], { one: number }>(
    'SELECT 1 AS one FROM updates WHERE workspace = ? LIMIT 1',
  )
  const deleteUpdate = db.prepare<[number]>('DELETE FROM updates WHERE id = ?')
  const insertWorkspace = db.prepare<[string, number]>(
    'INSERT INTO workspaces (id, created_at) VALUES (?, ?) ON CONFLICT DO NOTHING',
  )
  const selectWorkspace = db.prepare<[string], { id: string }>('SELECT id FROM workspaces WHERE id = ?')
  const selectWorkspaces = db.prepare<[], { id: string }>('SELECT id FROM workspaces ORDER BY id')
  const insertToken = db.prepare<[string, string, string, number, string | null]>(
    'INSERT INTO tokens (hash, workspace, role, created_at, name) VALUES (?, ?, ?, ?, ?)',
  )
  const selectToken = db.prepare<[string], { workspace: string; role: Role; name: string | null }>(
    'SELECT workspace, role, name FROM tokens WHERE hash = ?',
  )
  const deleteToken = db.prepare<[string]>('DELETE FROM tokens WHERE hash = ?')

  const selectHead = db.prepare<[string, string], { id: number | null }>(
    'SELECT max(id) AS id FROM updates WHERE workspace = ? AND doc = ?',
  )
  const headOf = (workspace: string, name: string): string | undefined => {
    const id = selectHead.get(workspace, name)?.id
    return id === null || id === undefined ? undefined : String(id)
  }
  const appendManyWithHeadsTx = db.transaction(
    (workspace: string, updates: readonly { name: string; update: Uint8Array }[]) =>
      updates.map(({ name, update }) => {
        const before = headOf(workspace, name)
        const after = String(insertUpdate.run(workspace, name, bufferOf(update)).lastInsertRowid)
        return { before, after }
      }),
  )

  const appendManyTx = db.transaction(
    (workspace: string, updates: readonly { name: string; update: Uint8Array }[]) => {
      for (const { name, update } of updates) insertUpdate.run(workspace, name, bufferOf(update))
    },
  )

  /** Replace `rows` of the log of `name` by one row holding `state` (none: the log is left empty). */
  const replaceLog = (workspace: string, name: string, rows: readonly UpdateRow[], state?: Uint8Array) => {
    if (state) insertUpdate.run(workspace, name, bufferOf(state))
    for (const row of rows) deleteUpdate.run(row.id)
  }

  const countUpTo = db.prepare<[string, string, number], { n: number }>(
    'SELECT count(*) AS n FROM updates WHERE workspace = ? AND doc = ? AND id <= ?',
  )
  const insertUpdateAt = db.prepare<[number, string, string, Buffer]>(
    'INSERT INTO updates (id, workspace, doc, data) VALUES (?, ?, ?, ?)',
  )
  /**
   * Replace `rows` (read before a merge that ran off this thread) by `merged`, unless one of them
   * is gone meanwhile (another compaction or a salvage replaced it): then nothing. Ids only grow
   * (AUTOINCREMENT), so the rows up to the last one read are exactly those read while none is gone.
   * The merged row takes the last one's id: the same state keeps its head (`heads`), and it stays
   * before any row appended since.
   */
  const replaceIfUnchangedTx = db.transaction(
    (workspace: string, name: string, rows: readonly UpdateRow[], merged: Uint8Array): CompactResult => {
      const last = rows.at(-1)!.id
      if (countUpTo.get(workspace, name, last)?.n !== rows.length) return { merged: 0, bytes: 0 }
      for (const row of rows) deleteUpdate.run(row.id)
      insertUpdateAt.run(last, workspace, name, bufferOf(merged))
      return { merged: rows.length, bytes: merged.byteLength }
    },
  )

  const insertQuarantined = db.prepare<[string, string, Buffer, string, number]>(
    'INSERT INTO quarantined_updates (workspace, doc, data, reason, quarantined_at) VALUES (?, ?, ?, ?, ?)',
  )
  // One document's rows, or (doc NULL) all of the workspace's.
  const selectQuarantined = db.prepare<
    [{ workspace: string; doc: string | null }],
    { doc: string; data: Buffer; reason: string; quarantined_at: number }
  >(
    `SELECT doc, data, reason, quarantined_at FROM quarantined_updates
     WHERE workspace = @workspace AND (@doc IS NULL OR doc = @doc) ORDER BY id`,
  )

  const salvageTx = db.transaction(
    (workspace: string, name: string, repair: (rows: readonly Uint8Array[]) => LogRepair): SalvageResult => {
      const rows = selectUpdates.all(workspace, name)
      if (rows.length === 0) return { rows: 0, quarantined: 0, bytes: 0 }
      const { state, bad } = repair(rows.map((row) => row.data))
      const now = Date.now()
      for (const { index, reason } of bad)
        insertQuarantined.run(workspace, name, rows[index]!.data, reason, now)
      replaceLog(workspace, name, rows, state)
      return { rows: rows.length, quarantined: bad.length, bytes: state?.byteLength ?? 0 }
    },
  )

  const restoreTx = db.transaction((workspace: string, documents: readonly StoredDocument[]) => {
    insertWorkspace.run(workspace, Date.now())
    if (hasUpdates.get(workspace)) {
      throw new StoreError('EEXIST', `workspace '${workspace}' is not empty`)
    }
    for (const { name, state } of documents) insertUpdate.run(workspace, name, bufferOf(state))
  })

  let closed = false
  const open = () => {
    if (closed) throw new Error('store is closed')
  }

  // Snapshots (backups) read through a connection of their own, page by page in one read
  // transaction: in WAL mode it sees one commit whatever the server writes meanwhile through
  // `db`, and the event loop turns between pages (one SELECT of a large workspace's rows, 80 MB
  // for 20,000 files, stalled every client ~0.2 s). One snapshot at a time on it.
  let reader:
    | {
        conn: Database.Database
        page: Database.Statement<[string, string, number, number], { doc: string; id: number; data: Buffer }>
      }
    | undefined
  let readerQueue: Promise<unknown> = Promise.resolve()
  const pageRows = options.snapshotPageRows ?? 2000
  const openReader = () => {
    const conn = new Database(options.file, { readonly: true, fileMustExist: true })
    const page = conn.prepare<[string, string, number, number], { doc: string; id: number; data: Buffer }>(
      'SELECT doc, id, data FROM updates WHERE workspace = ? AND (doc, id) > (?, ?) ORDER BY doc, id LIMIT ?',
    )
    return { conn, page }
  }
  const readWorkspaceRows = async (workspace: string): Promise<{ doc: string; data: Buffer }[]> => {
    if (options.file === ':memory:') return selectWorkspaceUpdates.all(workspace)
    reader ??= openReader()
    const { conn, page } = reader
    conn.exec('BEGIN')
    try {
      const rows: { doc: string; data: Buffer }[] = []
      let after: { doc: string; id: number } = { doc: '', id: -1 }
      for (;;) {
        const got = page.all(workspace, after.doc, after.id, pageRows)
        for (const row of got) rows.push(row)
        if (got.length < pageRows) return rows
        after = got.at(-1)!
        await new Promise((resolve) => setImmediate(resolve))
        open()
      }
    } finally {
      conn.exec('COMMIT')
    }
  }

  /** The stored log of `name` merged, with its head; one statement: one point in time. */
  const loadLog = async (workspace: string, name: string) => {
    open()
    const rows = selectUpdates.all(workspace, name)
    if (rows.length === 0) return undefined
    const head = String(rows.at(-1)!.id)
    if (rows.length === 1) return { state: new Uint8Array(rows[0]!.data), head }
    return { state: await merger.merge(rows.map((row) => row.data)), head }
  }

  return {
    kind: 'sqlite',

    heads: {
      async of(workspace, names) {
        open()
        return names.map((name) => headOf(workspace, name))
      },
      load: loadLog,
      async appendMany(workspace, updates) {
        open()
        return appendManyWithHeadsTx.immediate(workspace, updates)
      },
    },

    async append(workspace, name, update) {
      open()
      insertUpdate.run(workspace, name, bufferOf(update))
    },

    async appendMany(workspace, updates) {
      open()
      appendManyTx.immediate(workspace, updates)
    },

    async load(workspace, name) {
      return (await loadLog(workspace, name))?.state
    },

    async logLength(workspace, name) {
      open()
      return countUpdates.get(workspace, name)?.n ?? 0
    },

    async compact(workspace, name) {
      open()
      const rows = selectUpdates.all(workspace, name)
      if (rows.length <= 1) return { merged: 0, bytes: rows[0]?.data.byteLength ?? 0 }
      const merged = await merger.merge(rows.map((row) => row.data))
      open()
      return replaceIfUnchangedTx.immediate(workspace, name, rows, merged)
    },

    async salvage(workspace, name, repair) {
      open()
      return salvageTx.immediate(workspace, name, repair)
    },

    async quarantined(workspace, name) {
      open()
      return selectQuarantined.all({ workspace, doc: name ?? null }).map((row) => ({
        doc: row.doc,
        data: new Uint8Array(row.data),
        reason: row.reason,
        at: row.quarantined_at,
      }))
    },

    async snapshotWorkspace(workspace) {
      open()
      const read = readerQueue.then(() => readWorkspaceRows(workspace))
      readerQueue = read.catch(() => undefined)
      return mergeByDoc(await read, merger)
    },

    async restoreWorkspace(workspace, documents) {
      open()
      assertWorkspaceId(workspace)
      restoreTx.immediate(workspace, documents)
    },

    async createWorkspace(workspace) {
      open()
      assertWorkspaceId(workspace)
      return insertWorkspace.run(workspace, Date.now()).changes === 1
    },

    async hasWorkspace(workspace) {
      open()
      return selectWorkspace.get(workspace) !== undefined
    },

    async listWorkspaces() {
      open()
      return selectWorkspaces.all().map((row) => row.id)
    },

    async createToken(workspace, role, name) {
      open()
      if (!ROLES.includes(role)) throw new RangeError(`invalid role: ${JSON.stringify(role)}`)
      checkTokenName(name)
      if (!selectWorkspace.get(workspace)) throw new StoreError('ENOENT', `no such workspace '${workspace}'`)
      const token = createTokenSecret()
      insertToken.run(hashToken(token), workspace, role, Date.now(), name ?? null)
      return token
    },

    async resolveToken(token): Promise<TokenGrant | undefined> {
      open()
      const row = selectToken.get(hashToken(token))
      return row ? grantOf(row) : undefined
    },

    async revokeToken(token) {
      open()
      return deleteToken.run(hashToken(token)).changes === 1
    },

    async close() {
      if (closed) return
      closed = true
      await readerQueue
      reader?.conn.close()
      db.close()
      if (!options.merger) await merger.close()
    },
  }
}
