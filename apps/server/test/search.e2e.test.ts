/**
 * The search contract on the server's PostgreSQL index: a client with a read
 * token searches (`ws.searcher`, answered by the server) while a writer
 * changes the workspace; results equal the brute force over the writer's
 * files, after random writes, moves, trash and restore. Plus the bounds of
 * the search message and the SQLite fallback (in process on the client).
 */
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { SearchError } from '@yfs/core'
import {
  applySearchOp,
  checkSearch,
  searchOpArbitrary,
  searchRequestArbitrary,
  workspaceTexts,
} from '@yfs/core/testing'
import { markdownCodec } from '@yfs/markdown'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DocumentStore } from '../src/persistence/document-store.js'
import { createPostgresStore } from '../src/persistence/postgres-store.js'
import { startTestServer, type TestServer } from './helpers.js'
import { dropSchema, POSTGRES_URL, postgresAvailable, testSchema } from './services.js'

const RUNS = Number(process.env.YFS_FUZZ_RUNS ?? 12)
const SEED = Number(process.env.YFS_FUZZ_SEED ?? 20261122)
const up = await postgresAvailable()

const connect = (server: TestServer, workspace: string, token: string) =>
  connectWorkspace({ url: server.url, workspace, token, fs: { codecs: [markdownCodec] } })

// The server answers from an in-memory index over the stored texts (default), or from
// PostgreSQL alone (no memory budget): the same contract either way.
/** A server on a PostgreSQL store of its own schema for the enclosing describe (dropped after it). */
function usePostgresServer(searchMemoryChars?: number) {
  const schema = testSchema()
  const ctx = {} as { store: DocumentStore; server: TestServer }
  beforeAll(async () => {
    ctx.store = await createPostgresStore({ url: POSTGRES_URL, schema, max: 4 })
    ctx.server = await startTestServer({
      store: ctx.store,
      ...(searchMemoryChars === undefined ? {} : { searchMemoryChars }),
    })
  })
  afterAll(async () => {
    await ctx.server.close()
    await ctx.store.close()
    await dropSchema(schema)
  })
  return ctx
}

describe.skipIf(!up).each([
  { mode: 'in memory over PostgreSQL', searchMemoryChars: undefined },
  { mode: 'PostgreSQL alone', searchMemoryChars: 0 },
])('search on PostgreSQL (pg_trgm): $mode', ({ searchMemoryChars }) => {
  const pg = usePostgresServer(searchMemoryChars)

  it('has the trigram index, and a lookup sees only its own workspace', async () => {
    expect((pg.store.plaintext as unknown as { trigramIndex: boolean }).trigramIndex).toBe(true)
    await pg.store.createWorkspace('iso-a')
    await pg.store.createWorkspace('iso-b')
    await pg.store.plaintext!.put('iso-a', [{ file: 'fa', version: 'v', text: 'shared needle here' }])
    await pg.store.plaintext!.put('iso-b', [{ file: 'fb', version: 'v', text: 'shared needle there' }])
    expect(await pg.store.plaintext!.candidates('iso-a', 'needle')).toEqual([
      { file: 'fa', text: 'shared needle here' },
    ])
    expect((await pg.store.plaintext!.candidates('iso-b', true)).map((c) => c.file)).toEqual(['fb'])
  })

  it('equals the brute force for random corpora, queries and edits (read token)', async () => {
    let run = 0
    let withHits = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(searchOpArbitrary, { minLength: 1, maxLength: 10 }),
        fc.array(searchOpArbitrary, { minLength: 1, maxLength: 8 }),
        fc.array(searchRequestArbitrary, { minLength: 1, maxLength: 4 }),
        async (initial, edits, requests) => {
          const id = `search-${run++}`
          const tokens = await pg.server.workspace(id)
          let writer: WorkspaceConnection | undefined
          let reader: WorkspaceConnection | undefined
          try {
            writer = await connect(pg.server, id, tokens.write)
            reader = await connect(pg.server, id, tokens.read)
            for (const op of initial) await applySearchOp(writer.fs, op)
            await writer.flush()
            for (const request of requests)
              expect(
                await checkSearch(reader.searcher, await workspaceTexts(writer.fs), request),
              ).toBeUndefined()
            for (const op of edits) await applySearchOp(writer.fs, op)
            await writer.flush()
            const files = await workspaceTexts(writer.fs)
            for (const request of requests) {
              expect(await checkSearch(reader.searcher, files, request)).toBeUndefined()
              const got = await reader.searcher.search(request).catch(() => undefined)
              if (got?.total) withHits++
            }
            expect(reader.searcher.backend).toBe('server')
          } finally {
            await writer?.close()
            await reader?.close()
          }
        },
      ),
      // A fixed seed (YFS_FUZZ_SEED picks another): the count of runs with hits below is then a
      // property of the cases, not of chance.
      { numRuns: RUNS, seed: SEED },
    )
    // Most runs compare real hits, not two empty pages.
    expect(withHits).toBeGreaterThan(RUNS / 2)
  }, 120_000)

  it('finds Markdown by its text, pages, and refuses bad input with its position', async () => {
    const tokens = await pg.server.workspace('search-bounds')
    const ws = await connect(pg.server, 'search-bounds', tokens.write)
    try {
      await ws.fs.writeFile('/a.md', '# Title\n\nSome **bold** words.\n')
      for (let i = 0; i < 250; i++) await ws.fs.writeFile(`/f${i}.txt`, `line ${i}\n`)
      await ws.flush()
      const md = await ws.searcher.search({ query: '**bold** words' })
      expect(md.hits.map((h) => [h.path, h.matches[0]!.line])).toEqual([['/a.md', 3]])
      const all = await ws.searcher.search({ query: '.', regex: true, limit: 100_000 })
      expect(all).toMatchObject({ total: 251, nextOffset: 200 })
      expect(all.hits).toHaveLength(200)
      await expect(ws.searcher.search({ query: 'x(', regex: true })).rejects.toBeInstanceOf(SearchError)
      await expect(ws.searcher.search({ query: 'x(', regex: true })).rejects.toMatchObject({ position: 1 })
      await expect(ws.searcher.search({ query: 'q'.repeat(1001) })).rejects.toThrow(/longer than 1000/)
      await expect(ws.searcher.search({ query: 'a', include: Array(33).fill('*') })).rejects.toThrow(/32/)
    } finally {
      await ws.close()
    }
  }, 60_000)
})

describe.skipIf(!up)('search on PostgreSQL: the memory budget', () => {
  // Room for one of the two workspaces below at a time: searching one evicts the other's index.
  const pg = usePostgresServer(3000)

  it('answers alike when a workspace’s index was evicted, rebuilt, or too big to hold', async () => {
    const open: WorkspaceConnection[] = []
    try {
      const ws = async (id: string, files: number) => {
        const tokens = await pg.server.workspace(id)
        const c = await connect(pg.server, id, tokens.write)
        open.push(c)
        for (let i = 0; i < files; i++)
          await c.fs.writeFile(`/f${i}.txt`, `${id} needle ${i}\n${'x'.repeat(90)}\n`)
        await c.flush()
        return c
      }
      const a = await ws('budget-a', 20) // ~2,000 characters
      const b = await ws('budget-b', 20)
      const big = await ws('budget-big', 40) // ~4,000: never held
      for (let round = 0; round < 2; round++)
        for (const [c, id, n] of [
          [a, 'budget-a', 20],
          [b, 'budget-b', 20],
          [big, 'budget-big', 40],
        ] as const) {
          const r = await c.searcher.search({ query: `${id} needle`, limit: 200 })
          expect(r.total).toBe(n)
          expect(r.hits.map((h) => h.path).sort()).toEqual(
            Array.from({ length: n }, (_, i) => `/f${i}.txt`).sort(),
          )
          expect(c.searcher.backend).toBe('server')
        }
      // A held index that outgrows the budget with new texts is let go; searches stay right.
      for (let i = 20; i < 40; i++)
        await b.fs.writeFile(`/f${i}.txt`, `budget-b needle ${i}\n${'x'.repeat(90)}\n`)
      await b.flush()
      const grown = await b.searcher.search({ query: 'budget-b needle', limit: 200 })
      expect(grown.total).toBe(40)
      // An edit, a rename and a trash after the index was built are seen by the next search.
      await a.fs.writeFile('/f0.txt', 'budget-a changed\n')
      await a.fs.mv('/f1.txt', '/g1.txt')
      await a.fs.rm('/f2.txt')
      await a.flush()
      const r = await a.searcher.search({ query: 'budget-a needle', limit: 200 })
      expect(r.total).toBe(18)
      expect(r.hits.map((h) => h.path)).toContain('/g1.txt')
      expect(r.hits.map((h) => h.path)).not.toContain('/f0.txt')
      expect(r.hits.map((h) => h.path)).not.toContain('/f2.txt')
    } finally {
      for (const c of open) await c.close()
    }
  }, 60_000)
})

describe('search on SQLite', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => server.close())

  it('falls back to the in-process index on the client', async () => {
    const tokens = await server.workspace('lite')
    const ws = await connect(server, 'lite', tokens.write)
    try {
      await ws.fs.writeFile('/n.md', 'hello *world*\n')
      const r = await ws.searcher.search({ query: 'world' })
      expect(r.hits.map((h) => h.path)).toEqual(['/n.md'])
      expect(ws.searcher.backend).toBe('local')
    } finally {
      await ws.close()
    }
  })
})
