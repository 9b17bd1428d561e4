/**
 * PostgreSQL DocumentStore (`pg`), for several server processes sharing one
 * database.
 *
 * Schema: created on start (idempotent, under an advisory lock so processes
 * starting together don't race) in its own PostgreSQL schema (default `yfs`):
 * `workspaces`, `tokens` (SHA-256 hashes only) and `updates` (the append-only
 * log: `id bigserial`, `workspace`, `doc`, `data bytea`).
 *
 * Isolation: `updates` has row-level security, enabled and FORCEd, with a
 * policy `workspace = current_setting('app.workspace')`. RLS does not apply
 * to superusers or (without FORCE) the table owner, so every pooled
 * connection runs `SET ROLE <role>` (default `yfs_app`, created NOLOGIN,
 * NOSUPERUSER, NOBYPASSRLS) and sets `app.workspace` with
 * `set_config('app.workspace', $1, false)` before touching documents
 * (`SET app.workspace = $1` cannot take parameters). Start-up verifies that
 * the pooled role really is subject to RLS and refuses to run otherwise.
 *
 * Search: `plaintext` (postgres-plaintext.ts) holds each file's current text
 * with a `pg_trgm` GIN index, under the same row-level security.
 *
 * Heads (`DocumentStore.heads`): as on SQLite, a document's head is its
 * last row's number, which needs rows numbered in commit order: a trigger
 * before every insert into `updates` takes its workspace's lock until the
 * transaction ends, so a workspace's appends take their `bigserial` numbers
 * and commit one after another (whatever inserts: this build, an older server
 * on the same database, a restore). A compaction's merged row takes the last
 * merged row's number (the same state keeps its head); a salvage's a new one.
 *
 * Concurrency: appends are single INSERTs (one after another per workspace:
 * heads, above). Compaction takes a per-document advisory transaction lock
 * (so two processes don't merge the same rows twice), reads the rows, deletes
 * exactly the ids it read and inserts the merged row: a row appended
 * meanwhile is never deleted unread.
 */
import pg from 'pg'
import {
  assertWorkspaceId,
  type CompactResult,
  checkTokenName,
  type DocumentStore,
  grantOf,
  ROLES,
  type Role,
  type SalvageResult,
  StoreError,
  type TokenGrant,
} from './document-store.js'
import { mergeByDoc } from './merge-by-doc.js'
import { createPostgresPlaintext, createTrigramIndex, plaintextSchemaSql } from './postgres-plaintext.js'
import { createTokenSecret, hashToken } from './tokens.js'
import { createUpdateMerger, type UpdateMerger } from './update-merger.js'

export interface PostgresStoreOptions {
  /** Connection string, e.g. `postgres://postgres@127.0.0.1:5432/test`. */
  url: string
  /** PostgreSQL schema for the tables. Default `yfs`. */
  schema?: string
  /** Non-owner role the pool switches to, so RLS applies. Default `yfs_app`. */
  role?: string
  /** Pool size. Default 10. */
  max?: number
  /** Merges logs (large ones off the event loop, update-merger.ts). Default: one of its own, closed with the store. */
  merger?: UpdateMerger
}

const IDENT = /^[a-z_][a-z0-9_]{0,62}$/

function ident(name: string, what: string): string {
  if (!IDENT.test(name)) throw new RangeError(`invalid ${what}: ${JSON.stringify(name)}`)
  return `"${name}"`
}

/** Row-level security on `table`, forced (the owner too): a row is seen and written only under its workspace's setting. */
function workspaceRowSecurity(s: string, table: string, policy: string): string {
  return `ALTER TABLE ${s}.${table} ENABLE ROW LEVEL SECURITY;
ALTER TABLE ${s}.${table} FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS ${policy} ON ${s}.${table};
CREATE POLICY ${policy} ON ${s}.${table}
  USING (workspace = current_setting('app.workspace', true))
  WITH CHECK (workspace = current_setting('app.workspace', true));`
}

function schemaSql(s: string, role: string): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${s};
CREATE TABLE IF NOT EXISTS ${s}.workspaces (
  id text PRIMARY KEY,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE IF NOT EXISTS ${s}.tokens (
  hash text PRIMARY KEY,
  workspace text NOT NULL REFERENCES ${s}.workspaces(id) ON DELETE CASCADE,
  role text NOT NULL CHECK (role IN ('read', 'write')),
  created_at timestamptz NOT NULL DEFAULT now()
);
-- Stores made before tokens had names.
ALTER TABLE ${s}.tokens ADD COLUMN IF NOT EXISTS name text;
CREATE TABLE IF NOT EXISTS ${s}.updates (
  id bigserial PRIMARY KEY,
  workspace text NOT NULL,
  doc text NOT NULL,
  data bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS updates_by_doc ON ${s}.updates (workspace, doc, id);
-- Heads (see the header): a workspace's appends commit in the order of their row numbers. The
-- lock is the workspace's (row-level security keeps every inserted row in it); without a setting
-- (an owner's insert by hand) one shared lock.
CREATE OR REPLACE FUNCTION ${s}.lock_appends() RETURNS void LANGUAGE sql AS $fn$
  SELECT pg_advisory_xact_lock(hashtext('yfs-appends'), hashtext(coalesce(current_setting('app.workspace', true), '')))
$fn$;
CREATE OR REPLACE FUNCTION ${s}.appends_in_commit_order() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM ${s}.lock_appends();
  RETURN NULL;
END $fn$;
DROP TRIGGER IF EXISTS updates_in_commit_order ON ${s}.updates;
CREATE TRIGGER updates_in_commit_order BEFORE INSERT ON ${s}.updates
  FOR EACH STATEMENT EXECUTE FUNCTION ${s}.appends_in_commit_order();
${workspaceRowSecurity(s, 'updates', 'updates_by_workspace')}
-- Rows a salvage set aside (salvage.ts): they did not load; kept for inspection, never loaded.
CREATE TABLE IF NOT EXISTS ${s}.quarantined_updates (
  id bigserial PRIMARY KEY,
  workspace text NOT NULL,
  doc text NOT NULL,
  data bytea NOT NULL,
  reason text NOT NULL,
  quarantined_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS quarantined_by_doc ON ${s}.quarantined_updates (workspace, doc, id);
${workspaceRowSecurity(s, 'quarantined_updates', 'quarantined_by_workspace')}
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '${role.slice(1, -1)}') THEN
    CREATE ROLE ${role} NOLOGIN NOSUPERUSER NOBYPASSRLS;
  END IF;
END $$;
GRANT USAGE ON SCHEMA ${s} TO ${role};
GRANT SELECT, INSERT, DELETE ON ${s}.workspaces, ${s}.tokens, ${s}.updates TO ${role};
GRANT USAGE ON SEQUENCE ${s}.updates_id_seq TO ${role};
GRANT SELECT, INSERT ON ${s}.quarantined_updates TO ${role};
GRANT USAGE ON SEQUENCE ${s}.quarantined_updates_id_seq TO ${role};
`
}

/** Connect, create the schema if needed, and return a store. Throws when the pool's role bypasses RLS. */
export async function createPostgresStore(options: PostgresStoreOptions): Promise<DocumentStore> {
  const s = ident(options.schema ?? 'yfs', 'schema')
  const role = ident(options.role ?? 'yfs_app', 'role')

  let trigramIndex = false
  // Schema set-up runs as the connecting (owner) user, once.
  const admin = new pg.Client({ connectionString: options.url })
  await admin.connect()
  try {
    await admin.query('BEGIN')
    await admin.query(`SELECT pg_advisory_xact_lock(hashtext('yfs-schema-setup'))`)
    await admin.query(schemaSql(s, role))
    await admin.query(plaintextSchemaSql(s, role))
    await admin.query('COMMIT')
    // Outside the transaction: a failure (no pg_trgm on this server) leaves the rest in place.
    trigramIndex = await createTrigramIndex(admin, s)
  } catch (error) {
    await admin.query('ROLLBACK').catch(() => undefined)
    throw error
  } finally {
    await admin.end()
  }

  const pool = new pg.Pool({ connectionString: options.url, max: options.max ?? 10 })
  // Queries on a client run in order, so SET ROLE lands before any query of ours.
  pool.on('connect', (client) => {
    client.query(`SET ROLE ${role}`).catch((error: unknown) => client.emit('error', error))
  })
  // An idle client erroring (server restart) must not crash the process; the pool drops it.
  pool.on('error', () => undefined)

  const check = await pool.query<{ rls: boolean }>(
    'SELECT NOT (rolsuper OR rolbypassrls) AS rls FROM pg_roles WHERE rolname = current_user',
  )
  if (!check.rows[0]?.rls) {
    await pool.end()
    throw new Error(`postgres role ${role} is not subject to row-level security`)
  }

  const merger = options.merger ?? createUpdateMerger()
  // Which workspace each pooled connection's app.workspace is set to.
  const current = new WeakMap<pg.PoolClient, string>()
  let closed = false

  async function withWorkspace<T>(workspace: string, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    if (closed) throw new Error('store is closed')
    const client = await pool.connect()
    try {
      if (current.get(client) !== workspace) {
        current.delete(client)
        await client.query(`SELECT set_config('app.workspace', $1, false)`, [workspace])
        current.set(client, workspace)
      }
      return await fn(client)
    } finally {
      client.release()
    }
  }

  /**
   * Run `fn` on the log rows of `name` in one transaction, holding the document's advisory lock:
   * compactions and salvages of one document run one at a time, and each deletes exactly the ids
   * it read (an append meanwhile is kept).
   */
  async function withLockedLog<T>(
    workspace: string,
    name: string,
    fn: (client: pg.PoolClient, rows: { id: string; data: Buffer }[]) => Promise<T>,
  ): Promise<T> {
    return withWorkspace(workspace, async (client) => {
      await client.query('BEGIN')
      try {
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))', [workspace, name])
        const { rows } = await client.query<{ id: string; data: Buffer }>(
          `SELECT id, data FROM ${s}.updates WHERE workspace = $1 AND doc = $2 ORDER BY id`,
          [workspace, name],
        )
        const result = await fn(client, rows)
        await client.query('COMMIT')
        return result
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw error
      }
    })
  }

  /**
   * Replace `rows` of the log of `name` by one row holding `state` (none: the log is left empty),
   * numbered `id` (one of `rows`': its head stays) or a new number.
   */
  async function replaceLog(
    client: pg.PoolClient,
    workspace: string,
    name: string,
    rows: readonly { id: string }[],
    state: Uint8Array | undefined,
    id?: string,
  ): Promise<void> {
    await client.query(`DELETE FROM ${s}.updates WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)])
    if (state)
      await client.query(
        `INSERT INTO ${s}.updates (id, workspace, doc, data) VALUES (coalesce($4::bigint, nextval(pg_get_serial_sequence('${s}.updates', 'id'))), $1, $2, $3)`,
        [workspace, name, Buffer.from(state.buffer, state.byteOffset, state.byteLength), id ?? null],
      )
  }

  /** The head (last row's number) of each of the documents in parameter `names` that has rows. */
  const headsOf = (names: string) =>
    `SELECT doc, max(id) AS id FROM ${s}.updates WHERE workspace = $1 AND doc = ANY(${names}::text[]) GROUP BY doc`

  /** The stored log of `name` merged, with its head; one statement: one point in time. */
  async function loadLog(workspace: string, name: string) {
    const { rows } = await withWorkspace(workspace, (client) =>
      // The number as pg gives a bigint (a string), ordered as a number (a text alias named in
      // ORDER BY would order as text: '10' before '9').
      client.query<{ id: string; data: Buffer }>(
        `SELECT id, data FROM ${s}.updates WHERE workspace = $1 AND doc = $2 ORDER BY id`,
        [workspace, name],
      ),
    )
    if (rows.length === 0) return undefined
    const head = rows.at(-1)!.id
    if (rows.length === 1) return { state: new Uint8Array(rows[0]!.data), head }
    return { state: await merger.merge(rows.map((row) => row.data)), head }
  }

  /** Appends `$2`'s documents `$3`'s updates, in order (their rows are numbered in that order). */
  const INSERT_MANY = `INSERT INTO ${s}.updates (workspace, doc, data) SELECT $1, doc, data FROM unnest($2::text[], $3::bytea[]) WITH ORDINALITY AS u(doc, data, n) ORDER BY n`
  const insertManyParams = (workspace: string, updates: readonly { name: string; update: Uint8Array }[]) => [
    workspace,
    updates.map((u) => u.name),
    updates.map((u) => Buffer.from(u.update.buffer, u.update.byteOffset, u.update.byteLength)),
  ]

  async function query<R extends pg.QueryResultRow>(
    sql: string,
    params: unknown[],
  ): Promise<pg.QueryResult<R>> {
    if (closed) throw new Error('store is closed')
    return pool.query<R>(sql, params)
  }

  return {
    kind: 'postgres',
    plaintext: Object.assign(createPostgresPlaintext(s, withWorkspace), { trigramIndex }),

    heads: {
      async of(workspace, names) {
        const { rows } = await withWorkspace(workspace, (client) =>
          client.query<{ doc: string; id: string }>(headsOf('$2'), [workspace, names]),
        )
        const headOf = new Map(rows.map((row) => [row.doc, String(row.id)]))
        return names.map((name) => headOf.get(name))
      },
      load: loadLog,
      async appendMany(workspace, updates) {
        if (updates.length === 0) return []
        const names = [...new Set(updates.map((u) => u.name))]
        const { before, made } = await withWorkspace(workspace, async (client) => {
          await client.query('BEGIN')
          try {
            // The workspace's append lock first (the insert's trigger takes it again), so the
            // heads read next are the last before these appends: no append commits between.
            await client.query(`SELECT ${s}.lock_appends()`)
            const { rows } = await client.query<{ doc: string; id: string; appended: boolean }>(
              `WITH before AS (${headsOf('$4')}), appended AS (
                 ${INSERT_MANY} RETURNING doc, id
               )
               SELECT doc, id::text AS id, false AS appended FROM before
               UNION ALL SELECT doc, id::text AS id, true AS appended FROM appended`,
              [...insertManyParams(workspace, updates), names],
            )
            await client.query('COMMIT')
            return {
              before: new Map(rows.filter((r) => !r.appended).map((r) => [r.doc, r.id])),
              made: rows.filter((r) => r.appended),
            }
          } catch (error) {
            await client.query('ROLLBACK').catch(() => undefined)
            throw error
          }
        })
        // Each document's new rows in number order are its updates in call order (inserted so).
        const ids = new Map<string, bigint[]>()
        for (const { doc, id } of made) {
          const list = ids.get(doc)
          if (list) list.push(BigInt(id))
          else ids.set(doc, [BigInt(id)])
        }
        for (const list of ids.values()) list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        const taken = new Map<string, number>()
        return updates.map(({ name }) => {
          const k = taken.get(name) ?? 0
          taken.set(name, k + 1)
          const list = ids.get(name)
          if (!list || list[k] === undefined)
            throw new Error(`no row number for ${name} after appending to it`)
          return { before: k === 0 ? before.get(name) : String(list[k - 1]), after: String(list[k]) }
        })
      },
    },

    async append(workspace, name, update) {
      await withWorkspace(workspace, (client) =>
        client.query(`INSERT INTO ${s}.updates (workspace, doc, data) VALUES ($1, $2, $3)`, [
          workspace,
          name,
          Buffer.from(update.buffer, update.byteOffset, update.byteLength),
        ]),
      )
    },

    async appendMany(workspace, updates) {
      if (updates.length === 0) return
      // One statement: atomic without an explicit transaction.
      await withWorkspace(workspace, (client) =>
        client.query(INSERT_MANY, insertManyParams(workspace, updates)),
      )
    },

    async load(workspace, name) {
      return (await loadLog(workspace, name))?.state
    },

    async logLength(workspace, name) {
      const { rows } = await withWorkspace(workspace, (client) =>
        client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM ${s}.updates WHERE workspace = $1 AND doc = $2`,
          [workspace, name],
        ),
      )
      return rows[0]?.n ?? 0
    },

    async compact(workspace, name): Promise<CompactResult> {
      return withLockedLog(workspace, name, async (client, rows) => {
        if (rows.length <= 1) return { merged: 0, bytes: rows[0]?.data.byteLength ?? 0 }
        // The document's lock is held while the merge runs off this thread.
        const merged = await merger.merge(rows.map((row) => row.data))
        // The same state keeps its head: the merged row takes the last merged row's number.
        await replaceLog(client, workspace, name, rows, merged, rows.at(-1)!.id)
        return { merged: rows.length, bytes: merged.byteLength }
      })
    },

    async salvage(workspace, name, repair): Promise<SalvageResult> {
      return withLockedLog(workspace, name, async (client, rows) => {
        if (rows.length === 0) return { rows: 0, quarantined: 0, bytes: 0 }
        const { state, bad } = repair(rows.map((row) => new Uint8Array(row.data)))
        for (const { index, reason } of bad)
          await client.query(
            `INSERT INTO ${s}.quarantined_updates (workspace, doc, data, reason) VALUES ($1, $2, $3, $4)`,
            [workspace, name, rows[index]!.data, reason],
          )
        // A new row number: the repaired state gets a head of its own.
        await replaceLog(client, workspace, name, rows, state)
        return { rows: rows.length, quarantined: bad.length, bytes: state?.byteLength ?? 0 }
      })
    },

    async quarantined(workspace, name) {
      const { rows } = await withWorkspace(workspace, (client) =>
        client.query<{ doc: string; data: Buffer; reason: string; at: string }>(
          `SELECT doc, data, reason, (extract(epoch FROM quarantined_at) * 1000)::bigint AS at
           FROM ${s}.quarantined_updates WHERE workspace = $1 AND ($2::text IS NULL OR doc = $2) ORDER BY id`,
          [workspace, name ?? null],
        ),
      )
      return rows.map((row) => ({
        doc: row.doc,
        data: new Uint8Array(row.data),
        reason: row.reason,
        at: Number(row.at),
      }))
    },

    async snapshotWorkspace(workspace) {
      // One statement sees one snapshot of the database (READ COMMITTED).
      const { rows } = await withWorkspace(workspace, (client) =>
        client.query<{ doc: string; data: Buffer }>(
          `SELECT doc, data FROM ${s}.updates WHERE workspace = $1 ORDER BY doc COLLATE "C", id`,
          [workspace],
        ),
      )
      return mergeByDoc(rows, merger)
    },

    async restoreWorkspace(workspace, documents) {
      assertWorkspaceId(workspace)
      await withWorkspace(workspace, async (client) => {
        await client.query('BEGIN')
        try {
          // Two restores of one workspace wait for each other; the second then sees rows.
          await client.query(`SELECT pg_advisory_xact_lock(hashtext('yfs-restore'), hashtext($1))`, [
            workspace,
          ])
          await client.query(`INSERT INTO ${s}.workspaces (id) VALUES ($1) ON CONFLICT DO NOTHING`, [
            workspace,
          ])
          const { rows } = await client.query(`SELECT 1 FROM ${s}.updates WHERE workspace = $1 LIMIT 1`, [
            workspace,
          ])
          if (rows.length > 0) throw new StoreError('EEXIST', `workspace '${workspace}' is not empty`)
          if (documents.length > 0) {
            await client.query(
              `INSERT INTO ${s}.updates (workspace, doc, data) SELECT $1, doc, data FROM unnest($2::text[], $3::bytea[]) AS u(doc, data)`,
              [
                workspace,
                documents.map((d) => d.name),
                documents.map((d) => Buffer.from(d.state.buffer, d.state.byteOffset, d.state.byteLength)),
              ],
            )
          }
          await client.query('COMMIT')
        } catch (error) {
          await client.query('ROLLBACK').catch(() => undefined)
          throw error
        }
      })
    },

    async createWorkspace(workspace) {
      assertWorkspaceId(workspace)
      const result = await query(`INSERT INTO ${s}.workspaces (id) VALUES ($1) ON CONFLICT DO NOTHING`, [
        workspace,
      ])
      return result.rowCount === 1
    },

    async hasWorkspace(workspace) {
      const { rows } = await query(`SELECT 1 FROM ${s}.workspaces WHERE id = $1`, [workspace])
      return rows.length === 1
    },

    async listWorkspaces() {
      const { rows } = await query<{ id: string }>(
        `SELECT id FROM ${s}.workspaces ORDER BY id COLLATE "C"`,
        [],
      )
      return rows.map((row) => row.id)
    },

    async createToken(workspace, role: Role, name?: string) {
      if (!ROLES.includes(role)) throw new RangeError(`invalid role: ${JSON.stringify(role)}`)
      checkTokenName(name)
      const token = createTokenSecret()
      try {
        await query(`INSERT INTO ${s}.tokens (hash, workspace, role, name) VALUES ($1, $2, $3, $4)`, [
          hashToken(token),
          workspace,
          role,
          name ?? null,
        ])
      } catch (error) {
        // 23503: foreign_key_violation, i.e. the workspace does not exist.
        if ((error as { code?: string }).code === '23503') {
          throw new StoreError('ENOENT', `no such workspace '${workspace}'`)
        }
        throw error
      }
      return token
    },

    async resolveToken(token): Promise<TokenGrant | undefined> {
      const { rows } = await query<{ workspace: string; role: Role; name: string | null }>(
        `SELECT workspace, role, name FROM ${s}.tokens WHERE hash = $1`,
        [hashToken(token)],
      )
      const row = rows[0]
      return row ? grantOf(row) : undefined
    },

    async revokeToken(token) {
      const result = await query(`DELETE FROM ${s}.tokens WHERE hash = $1`, [hashToken(token)])
      return result.rowCount === 1
    },

    async close() {
      if (closed) return
      closed = true
      await pool.end()
      if (!options.merger) await merger.close()
    },
  }
}
