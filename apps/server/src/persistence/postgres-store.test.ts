// PostgreSQL store: the DocumentStore contract, plus row-level security between workspaces.
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { dropSchema, POSTGRES_URL, postgresAvailable, testSchema } from '../../test/services.js'
import { describeDocumentStoreContract } from './document-store.contract.js'
import { createPostgresStore } from './postgres-store.js'
import { createUpdateMerger } from './update-merger.js'

const up = await postgresAvailable()

if (up) {
  describeDocumentStoreContract('postgres', async () => {
    const schema = testSchema()
    return {
      store: await createPostgresStore({ url: POSTGRES_URL, schema, max: 4 }),
      openPeer: () => createPostgresStore({ url: POSTGRES_URL, schema, max: 4 }),
      cleanup: () => dropSchema(schema),
    }
  })
  // Every merge on the merger's thread: a compaction keeps the document's lock while it merges.
  describeDocumentStoreContract('postgres, every merge off the event loop', async () => {
    const schema = testSchema()
    const mergers = [createUpdateMerger({ minBytes: 0 }), createUpdateMerger({ minBytes: 0 })]
    return {
      store: await createPostgresStore({ url: POSTGRES_URL, schema, max: 4, merger: mergers[0] }),
      openPeer: () => createPostgresStore({ url: POSTGRES_URL, schema, max: 4, merger: mergers[1] }),
      cleanup: async () => {
        for (const m of mergers) await m.close()
        await dropSchema(schema)
      },
    }
  })
}

describe.skipIf(!up)('postgres row-level security', () => {
  it('a query under workspace A sees no rows of B and cannot write rows of B', async () => {
    const schema = testSchema()
    const store = await createPostgresStore({ url: POSTGRES_URL, schema, max: 2 })
    const update = (text: string) => {
      const doc = new Y.Doc()
      doc.getText('t').insert(0, text)
      return Y.encodeStateAsUpdate(doc)
    }
    await store.append('A', 'A', update('a'))
    await store.append('B', 'B', update('b'))
    await store.append('B', 'B/f', update('bf'))

    const client = new pg.Client({ connectionString: POSTGRES_URL })
    await client.connect()
    try {
      await client.query('SET ROLE yfs_app')
      await client.query(`SELECT set_config('app.workspace', $1, false)`, ['A'])
      const all = await client.query<{ workspace: string }>(`SELECT workspace FROM "${schema}".updates`)
      expect(all.rows.map((r) => r.workspace)).toEqual(['A'])
      const b = await client.query(`SELECT 1 FROM "${schema}".updates WHERE workspace = 'B'`)
      expect(b.rowCount).toBe(0)
      await expect(
        client.query(`INSERT INTO "${schema}".updates (workspace, doc, data) VALUES ('B', 'B', '\\x00')`),
      ).rejects.toThrow(/row-level security/)
      // A deletion aimed at B's rows matches nothing.
      const del = await client.query(`DELETE FROM "${schema}".updates WHERE workspace = 'B'`)
      expect(del.rowCount).toBe(0)
      // Without a workspace setting nothing is visible at all.
      await client.query(`SELECT set_config('app.workspace', '', false)`)
      expect((await client.query(`SELECT 1 FROM "${schema}".updates`)).rowCount).toBe(0)
    } finally {
      await client.end()
      await store.close()
    }
    const check = await createPostgresStore({ url: POSTGRES_URL, schema, max: 1 })
    expect(await check.logLength('B', 'B')).toBe(1)
    await check.close()
    await dropSchema(schema)
  })

  it('the table owner is subject to RLS too (FORCE ROW LEVEL SECURITY)', async () => {
    const schema = testSchema()
    const store = await createPostgresStore({ url: POSTGRES_URL, schema, max: 1 })
    const client = new pg.Client({ connectionString: POSTGRES_URL })
    await client.connect()
    const { rows } = await client.query<{ relforcerowsecurity: boolean; relrowsecurity: boolean }>(
      `SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE oid = $1::regclass`,
      [`"${schema}".updates`],
    )
    expect(rows[0]).toEqual({ relrowsecurity: true, relforcerowsecurity: true })
    await client.end()
    await store.close()
    await dropSchema(schema)
  })
})

describe.skipIf(!up)('postgres heads', () => {
  const update = (text: string) => {
    const doc = new Y.Doc()
    doc.getText('t').insert(0, text)
    return Y.encodeStateAsUpdate(doc)
  }
  const textOf = (state: Uint8Array | undefined) => {
    const doc = new Y.Doc()
    if (state) Y.applyUpdate(doc, state)
    return doc.getText('t').toString()
  }

  it("a workspace's appends commit in the order of their row numbers, whoever inserts (an older server on the same database)", async () => {
    const schema = testSchema()
    const store = await createPostgresStore({ url: POSTGRES_URL, schema, max: 2 })
    const [first] = await store.heads!.appendMany('A', [{ name: 'A/f', update: update('a') }])
    const other = new pg.Client({ connectionString: POSTGRES_URL })
    await other.connect()
    try {
      await other.query('SET ROLE yfs_app')
      await other.query(`SELECT set_config('app.workspace', 'A', false)`)
      // A plain insert, held open: it took its row number first.
      await other.query('BEGIN')
      const held = await other.query<{ id: string }>(
        `INSERT INTO "${schema}".updates (workspace, doc, data) VALUES ('A', 'A/f', $1) RETURNING id::text AS id`,
        [Buffer.from(update('b'))],
      )
      // Another workspace's appends do not wait for it; this workspace's do.
      await store.heads!.appendMany('B', [{ name: 'B/g', update: update('c') }])
      let done = false
      const appending = store.heads!.appendMany('A', [{ name: 'A/f', update: update('d') }]).finally(() => {
        done = true
      })
      const probe = await store.heads!.of('A', ['A/f'])
      expect(probe).toEqual([first!.after])
      expect(done).toBe(false)
      await other.query('COMMIT')
      const [appended] = await appending
      // Built on the held insert, numbered after it.
      expect(appended!.before).toBe(held.rows[0]!.id)
      expect(BigInt(appended!.after) > BigInt(held.rows[0]!.id)).toBe(true)
      const loaded = await store.heads!.load('A', 'A/f')
      expect(loaded?.head).toBe(appended!.after)
      expect(textOf(loaded?.state).length).toBe(3)
    } finally {
      await other.end()
      await store.close()
      await dropSchema(schema)
    }
  })

  it('a head is the last row by number, also where the numbers gain a digit (9, then 10)', async () => {
    const schema = testSchema()
    const store = await createPostgresStore({ url: POSTGRES_URL, schema, max: 2 })
    const owner = new pg.Client({ connectionString: POSTGRES_URL })
    await owner.connect()
    try {
      await owner.query(`SELECT setval(pg_get_serial_sequence('"${schema}".updates', 'id'), 8)`)
      const [nine] = await store.heads!.appendMany('A', [{ name: 'A/f', update: update('a') }])
      const [ten] = await store.heads!.appendMany('A', [{ name: 'A/f', update: update('b') }])
      expect([nine!.after, ten!.before, ten!.after]).toEqual(['9', '9', '10'])
      expect(await store.heads!.of('A', ['A/f'])).toEqual(['10'])
      const loaded = await store.heads!.load('A', 'A/f')
      expect(loaded?.head).toBe('10')
      expect(textOf(loaded?.state).length).toBe(2)
      // Compacted, the merged row keeps the head.
      await store.compact('A', 'A/f')
      expect((await store.heads!.load('A', 'A/f'))?.head).toBe('10')
    } finally {
      await owner.end()
      await store.close()
      await dropSchema(schema)
    }
  })
})
