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
 * Heads (`DocumentStore.heads`): row ids are not in commit order here (a
 * `bigserial` is taken before its transaction commits), so a document's head
 * is a counter in `heads`, raised by a trigger on every insert into `updates`
 * in the inserting transaction: whatever inserts a row (this build, an older
 * server on the same database, a restore) moves the head, and the row lock
 * the trigger takes orders the appends of one document. A compaction keeps
 * the head (`yfs.keep_head`: its state is the same), a salvage raises it. The
 * first start with heads counts every stored document once (backfill).
 *
 * Concurrency: appends are single INSERTs. Compaction takes a per-document
 * advisory transaction lock (so two processes don't merge the same rows
 * twice), reads the rows, inserts the merged row and deletes exactly the ids
 * it read: a row appended meanwhile (even one with a smaller id that commits
 * late) is never deleted unread.
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
-- Heads (see the header). Made, and every document already stored counted once, on the first
-- start with heads: the trigger exists before the backfill reads, and creating it waits for every
-- insert in flight, so no append falls between the two. The owner is subject to the forced
-- row-level security: the backfill lifts it for this transaction only (set again below).
DO $heads$ BEGIN
  IF to_regclass('${s}.heads') IS NULL THEN
    CREATE TABLE ${s}.heads (
      workspace text NOT NULL,
      doc text NOT NULL,
      head bigint NOT NULL,
      PRIMARY KEY (workspace, doc)
    );
    CREATE FUNCTION ${s}.raise_heads() RETURNS trigger LANGUAGE plpgsql AS $raise$
    BEGIN
      IF current_setting('yfs.keep_head', true) = 'on' THEN RETURN NULL; END IF;
      -- In key order: two transactions raising the same heads lock them in the same order.
      INSERT INTO ${s}.heads AS h (workspace, doc, head)
        SELECT workspace, doc, count(*) FROM appended GROUP BY workspace, doc ORDER BY workspace, doc
        ON CONFLICT (workspace, doc) DO UPDATE SET head = h.head + EXCLUDED.head;
      RETURN NULL;
    END $raise$;
    CREATE TRIGGER updates_raise_heads AFTER INSERT ON ${s}.updates
      REFERENCING NEW TABLE AS appended FOR EACH STATEMENT EXECUTE FUNCTION ${s}.raise_heads();
    ALTER TABLE ${s}.updates NO FORCE ROW LEVEL SECURITY;
    INSERT INTO ${s}.heads (workspace, doc, head) SELECT workspace, doc, 1 FROM ${s}.updates GROUP BY workspace, doc;
  END IF;
END $heads$;
${workspaceRowSecurity(s, 'updates', 'updates_by_workspace')}
${workspaceRowSecurity(s, 'heads', 'heads_by_workspace')}
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
GRANT SELECT, INSERT, UPDATE ON ${s}.heads TO ${role};
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

  /** Replace `rows` of the log of `name` by one row holding `state` (none: the log is left empty). */
  async function replaceLog(
    client: pg.PoolClient,
    workspace: string,
    name: string,
    rows: readonly { id: string }[],
    state: Uint8Array | undefined,
  ): Promise<void> {
    if (state)
      await client.query(`INSERT INTO ${s}.updates (workspace, doc, data) VALUES ($1, $2, $3)`, [
        workspace,
        name,
        Buffer.from(state.buffer, state.byteOffset, state.byteLength),
      ])
    await client.query(`DELETE FROM ${s}.updates WHERE id = ANY($1::bigint[])`, [rows.map((r) => r.id)])
  }

  /** Append `updates` to their documents' logs in one statement, in order. */
  async function insertMany(
    client: pg.PoolClient,
    workspace: string,
    updates: readonly { name: string; update: Uint8Array }[],
  ): Promise<void> {
    await client.query(
      `INSERT INTO ${s}.updates (workspace, doc, data) SELECT $1, doc, data FROM unnest($2::text[], $3::bytea[]) WITH ORDINALITY AS u(doc, data, n) ORDER BY n`,
      [
        workspace,
        updates.map((u) => u.name),
        updates.map((u) => Buffer.from(u.update.buffer, u.update.byteOffset, u.update.byteLength)),
      ],
    )
  }

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
          client.query<{ doc: string; head: string }>(
            `SELECT doc, head::text AS head FROM ${s}.heads WHERE workspace = $1 AND doc = ANY($2::text[])`,
            [workspace, names],
          ),
        )
        const headOf = new Map(rows.map((row) => [row.doc, row.head]))
        return names.map((name) => headOf.get(name))
      },
      async load(workspace, name) {
        // One statement sees one snapshot: the rows and the head they make, together.
        const { rows } = await withWorkspace(workspace, (client) =>
          client.query<{ head: string; data: Buffer }>(
            `SELECT h.head::text AS head, u.data FROM ${s}.updates u
             JOIN ${s}.heads h ON h.workspace = u.workspace AND h.doc = u.doc
             WHERE u.workspace = $1 AND u.doc = $2 ORDER BY u.id`,
            [workspace, name],
          ),
        )
        if (rows.length === 0) return undefined
        const head = rows[0]!.head
        if (rows.length === 1) return { state: new Uint8Array(rows[0]!.data), head }
        return { state: await merger.merge(rows.map((row) => row.data)), head }
      },
      async appendMany(workspace, updates) {
        if (updates.length === 0) return []
        const names = [...new Set(updates.map((u) => u.name))]
        const after = await withWorkspace(workspace, async (client) => {
          await client.query('BEGIN')
          try {
            await insertMany(client, workspace, updates)
            // Read in the same transaction, whose trigger holds these heads' row locks: no other
            // append of these documents falls between the inserts and this read.
            const { rows } = await client.query<{ doc: string; head: string }>(
              `SELECT doc, head::text AS head FROM ${s}.heads WHERE workspace = $1 AND doc = ANY($2::text[])`,
              [workspace, names],
            )
            await client.query('COMMIT')
            return new Map(rows.map((row) => [row.doc, BigInt(row.head)]))
          } catch (error) {
            await client.query('ROLLBACK').catch(() => undefined)
            throw error
          }
        })
        // Each document's head went up by one per update of it, in order: the head before the
        // first is the last less their number.
        const count = new Map<string, bigint>()
        for (const { name } of updates) count.set(name, (count.get(name) ?? 0n) + 1n)
        const next = new Map<string, bigint>()
        return updates.map(({ name }) => {
          const last = after.get(name)
          if (last === undefined) throw new Error(`no head for ${name} after appending to it`)
          const before = next.get(name) ?? last - count.get(name)!
          next.set(name, before + 1n)
          return { before: before === 0n ? undefined : String(before), after: String(before + 1n) }
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
      await withWorkspace(workspace, (client) => insertMany(client, workspace, updates))
    },

    async load(workspace, name) {
      const { rows } = await withWorkspace(workspace, (client) =>
        client.query<{ data: Buffer }>(
          `SELECT data FROM ${s}.updates WHERE workspace = $1 AND doc = $2 ORDER BY id`,
          [workspace, name],
        ),
      )
      if (rows.length === 0) return undefined
      if (rows.length === 1) return new Uint8Array(rows[0]!.data)
      return merger.merge(rows.map((row) => row.data))
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
        // The same state: its head stays (for this transaction's insert only).
        await client.query(`SELECT set_config('yfs.keep_head', 'on', true)`)
        await replaceLog(client, workspace, name, rows, merged)
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
        await replaceLog(client, workspace, name, rows, state)
        // Nothing inserted (nothing of the log applied), so the trigger did not raise the head: a
        // head is never used for two states, even an empty one.
        if (!state)
          await client.query(`UPDATE ${s}.heads SET head = head + 1 WHERE workspace = $1 AND doc = $2`, [
            workspace,
            name,
          ])
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
