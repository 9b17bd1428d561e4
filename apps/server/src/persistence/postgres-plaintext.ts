/**
 * The PostgreSQL plaintext index: table `<schema>.plaintext` (workspace,
 * file, version, body, folded) with row-level security as for `updates`, and
 * a `pg_trgm` GIN index on `folded` (the text folded as core's `foldText`
 * folds it, so one case-sensitive `LIKE` serves every case mode and
 * PostgreSQL's collation never decides what matches). `candidates` looks up
 * each substring of a search requirement (core `Requirement`: AND/OR of
 * folded substrings) with `folded LIKE '%…%'`, which the GIN index answers
 * (PostgreSQL rechecks each row, so the sets are exact), combines them, and
 * reads the texts of the files left; the query itself is verified in
 * JavaScript afterwards (server-search.ts). The lookup runs in a SECURITY
 * DEFINER function that restricts itself to `app.workspace` as the policy
 * does: under row-level security PostgreSQL will not use an index for a
 * non-leakproof operator such as LIKE, and would read every text.
 *
 * `pg_trgm` is created if missing (it is a trusted extension: the database
 * owner may); where that fails the table works without the index (every
 * search scans), and `trigramIndex` says so.
 */
import { foldText, type Requirement } from '@yfs/core'
import type pg from 'pg'
import type { PlaintextIndex, PlaintextRow } from './document-store.js'

/** Tables and policies of the plaintext index (run with the schema set-up). */
export function plaintextSchemaSql(s: string, role: string): string {
  return `
CREATE TABLE IF NOT EXISTS ${s}.plaintext (
  workspace text NOT NULL,
  file text NOT NULL,
  version text NOT NULL,
  body text,
  folded text,
  PRIMARY KEY (workspace, file)
);
-- The folded text stays in the row (compressed): the planner then sees what reading every row
-- costs and takes the trigram index.
ALTER TABLE ${s}.plaintext ALTER COLUMN folded SET STORAGE MAIN;
ALTER TABLE ${s}.plaintext ENABLE ROW LEVEL SECURITY;
-- Not FORCEd (unlike updates): the owner's plaintext_matching below must bypass it.
ALTER TABLE ${s}.plaintext NO FORCE ROW LEVEL SECURITY;
DROP POLICY IF EXISTS plaintext_by_workspace ON ${s}.plaintext;
CREATE POLICY plaintext_by_workspace ON ${s}.plaintext
  USING (workspace = current_setting('app.workspace', true))
  WITH CHECK (workspace = current_setting('app.workspace', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON ${s}.plaintext TO ${role};
-- LIKE is not leakproof, so under row-level security PostgreSQL never evaluates it inside an
-- index: the trigram index would go unused and every text be read. This function (the owner's,
-- so outside RLS) restricts itself to the caller's app.workspace exactly as the policy does.
CREATE OR REPLACE FUNCTION ${s}.plaintext_matching(pattern text) RETURNS SETOF text
  LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp
  AS $fn$ SELECT file FROM ${s}.plaintext
          WHERE workspace = current_setting('app.workspace', true) AND folded LIKE pattern $fn$;
REVOKE ALL ON FUNCTION ${s}.plaintext_matching(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION ${s}.plaintext_matching(text) TO ${role};
`
}

/**
 * Create `pg_trgm` (if it is not there) and the GIN index; resolves whether the index exists.
 * Runs as the owner, after the schema set-up.
 */
export async function createTrigramIndex(client: pg.Client, s: string): Promise<boolean> {
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm')
    const { rows } = await client.query<{ schema: string }>(
      `SELECT extnamespace::regnamespace::text AS schema FROM pg_extension WHERE extname = 'pg_trgm'`,
    )
    const ops = `${rows[0]!.schema}.gin_trgm_ops`
    await client.query(
      `CREATE INDEX IF NOT EXISTS plaintext_trgm ON ${s}.plaintext USING gin (folded ${ops})`,
    )
    return true
  } catch {
    return false
  }
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`)

/** The distinct substrings of a requirement. */
function strings(req: Requirement, out = new Set<string>()): Set<string> {
  if (typeof req === 'string') out.add(req)
  else if (req !== true) for (const r of 'and' in req ? req.and : req.or) strings(r, out)
  return out
}

/** The files satisfying `req`, from the files containing each of its substrings. */
function evaluate(req: Requirement, having: Map<string, Set<string>>): Set<string> {
  if (typeof req === 'string') return having.get(req)!
  if (req === true) throw new Error('unreachable: true inside a requirement tree')
  const sets = ('and' in req ? req.and : req.or).map((r) => evaluate(r, having))
  if ('or' in req) return new Set(sets.flatMap((x) => [...x]))
  let out = sets[0]!
  for (const next of sets.slice(1)) out = new Set([...out].filter((f) => next.has(f)))
  return out
}

// PostgreSQL text cannot hold NUL: such files are stored as unreadable (never hits).
const storable = (text: string | undefined) => (text !== undefined && !text.includes('\0') ? text : undefined)

/** The plaintext index on `withWorkspace` (a pooled client with `app.workspace` set). */
export function createPostgresPlaintext(
  s: string,
  withWorkspace: <T>(workspace: string, fn: (client: pg.PoolClient) => Promise<T>) => Promise<T>,
): PlaintextIndex {
  return {
    async versions(workspace) {
      const { rows } = await withWorkspace(workspace, (client) =>
        client.query<{ file: string; version: string }>(
          `SELECT file, version FROM ${s}.plaintext WHERE workspace = $1`,
          [workspace],
        ),
      )
      return new Map(rows.map((r) => [r.file, r.version]))
    },

    async put(workspace, rows: readonly PlaintextRow[]) {
      if (rows.length === 0) return
      const bodies = rows.map((r) => storable(r.text) ?? null)
      await withWorkspace(workspace, (client) =>
        client.query(
          `INSERT INTO ${s}.plaintext (workspace, file, version, body, folded)
           SELECT $1, file, version, body, folded FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
             AS u(file, version, body, folded)
           ON CONFLICT (workspace, file) DO UPDATE
             SET version = EXCLUDED.version, body = EXCLUDED.body, folded = EXCLUDED.folded`,
          [
            workspace,
            rows.map((r) => r.file),
            rows.map((r) => r.version),
            bodies,
            bodies.map((b) => (b === null ? null : foldText(b))),
          ],
        ),
      )
    },

    async remove(workspace, files) {
      if (files.length === 0) return
      await withWorkspace(workspace, (client) =>
        client.query(`DELETE FROM ${s}.plaintext WHERE workspace = $1 AND file = ANY($2::text[])`, [
          workspace,
          files,
        ]),
      )
    },

    async candidates(workspace, requirement) {
      return withWorkspace(workspace, async (client) => {
        type Row = { file: string; body: string }
        if (requirement === true)
          return (
            await client.query<Row>(
              `SELECT file, body FROM ${s}.plaintext WHERE workspace = $1 AND body IS NOT NULL`,
              [workspace],
            )
          ).rows.map((r) => ({ file: r.file, text: r.body }))
        // One trigram-index lookup per substring; the AND/OR is done here.
        const having = new Map<string, Set<string>>()
        for (const text of strings(requirement)) {
          const { rows } = await client.query<{ file: string }>(
            `SELECT ${s}.plaintext_matching($1) AS file`,
            [`%${escapeLike(text)}%`],
          )
          having.set(text, new Set(rows.map((r) => r.file)))
        }
        const files = [...evaluate(requirement, having)]
        if (files.length === 0) return []
        const { rows } = await client.query<Row>(
          `SELECT file, body FROM ${s}.plaintext WHERE workspace = $1 AND file = ANY($2::text[]) AND body IS NOT NULL`,
          [workspace, files],
        )
        return rows.map((r) => ({ file: r.file, text: r.body }))
      })
    },
  }
}
