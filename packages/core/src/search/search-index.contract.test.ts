/**
 * The search contract on the in-process index: results equal the brute force
 * (testing/search-contract.ts) for random queries over random corpora, on one
 * filesystem and on a replica that receives edits, renames, moves, trash and
 * restore made on another replica.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createFileSystem, type YjsFileSystem } from '../fs/yjs-file-system.js'
import { createReplicaNetwork } from '../testing/replica-network.js'
import {
  applySearchOp,
  bruteForceSearch,
  checkSearch,
  searchOpArbitrary,
  searchRequestArbitrary,
  searchTextArbitrary,
  workspaceTexts,
} from '../testing/search-contract.js'
import { SearchIndex } from './search-index.js'

const RUNS = Number(process.env.YFS_FUZZ_RUNS ?? 40)
// A fixed seed (YFS_FUZZ_SEED picks another): the hit counts checked below are then a property of the cases.
const SEED = Number(process.env.YFS_FUZZ_SEED ?? 20261122)

let withHits = 0
const counted = (
  files: Parameters<typeof bruteForceSearch>[0],
  request: Parameters<typeof bruteForceSearch>[1],
) => {
  try {
    if (bruteForceSearch(files, request).total > 0) withHits++
  } catch {
    // An invalid request: checkSearch compares the errors.
  }
}

describe('SearchIndex (contract)', () => {
  it('equals the brute force on one filesystem, also after edits', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(searchOpArbitrary, { minLength: 1, maxLength: 12 }),
        fc.array(searchOpArbitrary, { maxLength: 8 }),
        fc.array(searchRequestArbitrary, { minLength: 1, maxLength: 6 }),
        async (initial, edits, requests) => {
          const fs = createFileSystem()
          for (const op of initial) await applySearchOp(fs, op)
          const index = new SearchIndex(fs)
          await index.ready
          for (const request of requests)
            expect(await checkSearch(index, await workspaceTexts(fs), request)).toBeUndefined()
          for (const op of edits) await applySearchOp(fs, op)
          for (const request of requests)
            expect(await checkSearch(index, await workspaceTexts(fs), request)).toBeUndefined()
          index.destroy()
          fs.destroy()
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })

  it('equals the brute force on a replica after another replica edits, renames, moves, trashes and restores', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(searchOpArbitrary, { minLength: 1, maxLength: 10 }),
        fc.array(searchOpArbitrary, { minLength: 1, maxLength: 10 }),
        fc.array(searchRequestArbitrary, { minLength: 1, maxLength: 5 }),
        async (initial, edits, requests) => {
          const net = createReplicaNetwork(2)
          const [here, there] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
          for (const op of initial) await applySearchOp(there, op)
          await net.syncAll()
          const index = new SearchIndex(here)
          await index.ready
          for (const op of edits) await applySearchOp(there, op)
          await net.syncAll()
          const truth = await workspaceTexts(there)
          expect(await workspaceTexts(here)).toEqual(truth)
          for (const request of requests) {
            counted(truth, request)
            expect(await checkSearch(index, truth, request)).toBeUndefined()
          }
          index.destroy()
          net.destroy()
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
    // The corpus and queries share words: most runs compare real hits, not two empty pages.
    expect(withHits).toBeGreaterThan(RUNS / 2)
  })

  it('equals the brute force when a page holds a few of many candidates (top-k), also after edits and moves', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.array(searchTextArbitrary, { minLength: 1, maxLength: 4 }).map((t) => t.join('\n')),
          { minLength: 8, maxLength: 40 },
        ),
        fc.array(fc.tuple(fc.nat(), searchTextArbitrary), { maxLength: 6 }),
        fc.array(
          fc.tuple(
            searchRequestArbitrary,
            fc.integer({ min: 1, max: 4 }),
            fc.integer({ min: 0, max: 6 }),
            fc.integer({ min: 1, max: 3 }),
          ),
          { minLength: 1, maxLength: 6 },
        ),
        async (texts, edits, pages) => {
          const fs = createFileSystem()
          await fs.mkdir('/a/c', { recursive: true })
          await fs.mkdir('/b', { recursive: true })
          const pathOf = (i: number) =>
            `${['/a/', '/b/', '/a/c/', '/'][i % 4]}${['x', 'the', 'alpha'][i % 3]}${i}.md`
          for (const [i, text] of texts.entries()) await fs.writeFile(pathOf(i), text)
          const index = new SearchIndex(fs)
          await index.ready
          const requests = pages.map(([request, limit, offset, matchesPerFile]) => ({
            ...request,
            limit,
            offset,
            matchesPerFile,
          }))
          for (const request of requests)
            expect(await checkSearch(index, await workspaceTexts(fs), request)).toBeUndefined()
          for (const [pick, text] of edits) await fs.writeFile(pathOf(pick % texts.length), text)
          await fs.mv('/a/c', '/b/c')
          for (const request of requests)
            expect(await checkSearch(index, await workspaceTexts(fs), request)).toBeUndefined()
          index.destroy()
          fs.destroy()
        },
      ),
      { numRuns: RUNS, seed: SEED },
    )
  })

  it('ranks files whose line counts saturate the index (more lines than it counts) exactly', async () => {
    const fs = createFileSystem()
    const lines = (n: number, hits: number) =>
      Array.from({ length: n }, (_, i) => (i < hits ? `the line ${i}` : `other ${i}`)).join('\n')
    await fs.writeFile('/all.txt', lines(300, 300)) // density 1, count saturated
    await fs.writeFile('/half.txt', lines(600, 290)) // density 0.48, count saturated
    await fs.writeFile('/small.txt', lines(10, 5)) // density 0.5
    await fs.writeFile('/one.txt', lines(1000, 1)) // density 0.001
    const index = new SearchIndex(fs)
    for (const limit of [1, 2, 3, 4])
      for (const offset of [0, 1, 2])
        expect(
          await checkSearch(index, await workspaceTexts(fs), { query: 'the line', limit, offset }),
        ).toBeUndefined()
    const page = await index.search({ query: 'the line', limit: 3 })
    expect(page.hits.map((h) => h.path)).toEqual(['/all.txt', '/small.txt', '/half.txt'])
    expect(page.total).toBe(4)
    expect(page.nextOffset).toBe(3)
    index.destroy()
    fs.destroy()
  })

  it('pages a query that matches every line instead of answering everything', async () => {
    const fs = createFileSystem()
    for (let i = 0; i < 300; i++) await fs.writeFile(`/f${i}.txt`, `line ${i}\nmore\n`)
    const index = new SearchIndex(fs)
    const first = await index.search({ query: '.', regex: true, limit: 500 })
    expect(first.total).toBe(300)
    expect(first.hits).toHaveLength(200)
    expect(first.nextOffset).toBe(200)
    const second = await index.search({ query: '.', regex: true, offset: 200, limit: 500 })
    expect(second.hits).toHaveLength(100)
    expect(second.nextOffset).toBeUndefined()
  })

  it('names the position of a regex error', async () => {
    const index = new SearchIndex(createFileSystem())
    await expect(index.search({ query: 'ab(c', regex: true })).rejects.toMatchObject({
      code: 'EINVAL',
      message: expect.stringContaining('position 2'),
    })
    await expect(index.search({ query: 'a**', regex: true })).rejects.toMatchObject({ position: 1 })
    await expect(index.search({ query: 'ab)c', regex: true })).rejects.toMatchObject({ position: 2 })
    await expect(index.search({ query: 'x[(]y(', regex: true })).rejects.toMatchObject({ position: 5 })
    await expect(index.search({ query: 'ab\\', regex: true })).rejects.toMatchObject({ position: 2 })
    await expect(index.search({ query: '(?<=x)y', regex: true })).rejects.toThrow(
      /invalid regular expression/,
    )
  })
})
