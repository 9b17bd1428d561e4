/**
 * Benchmark (issue 15): many files through a real server on loopback, batched
 * vs one document at a time, in the same run (SQLite in a temp folder, the
 * server in this process). Prints a Markdown table; figures go to
 * docs/benchmarks.md by hand (`tsx bench/remote-bulk.bench.ts [files]`).
 *
 * - remote writes: a client creates N new 2 KB files and flushes, through
 *   `fs.writeFile` one by one (outside a batch: each new file's content goes to
 *   the bulk store at the end of the event loop's turn), the same
 *   `fs.writeFile` calls inside one `fs.batch` (a write batch: bulk stores, issue
 *   25) and through `fs.writeTree` (batched stores) — files/s, goal ≥ 2,000;
 * - a second client: from connecting until its main doc holds every row
 *   (goal ≤ 200 ms for 5,000 files);
 * - remote reads: a fresh client runs `grep -rl` over them, once with batched
 *   loads and once opening every doc (goal ≤ 2 s for 5,000), then a second
 *   `grep -rl` after every content doc was evicted (warm, goal ≤ 0.5 s), with
 *   the memory held by the plaintext cache.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectWorkspace } from '@yfs/client'
import { Bash } from 'just-bash'
import { createLogger } from '../src/logger.js'
import { createSqliteStore } from '../src/persistence/sqlite-store.js'
import { createServer } from '../src/server.js'

const files = Number(process.argv[2] ?? 5000)
const dir = mkdtempSync(join(tmpdir(), 'yfs-bulk-bench-'))
const store = createSqliteStore({ file: join(dir, 'yfs.sqlite') })
const server = createServer({ store, adminToken: 'bench', logger: createLogger({ level: 'error' }) })
const { port } = await server.listen(0)
const url = `ws://127.0.0.1:${port}`
const body = (i: number) =>
  `${i % 97 === 0 ? 'NEEDLE ' : ''}${'lorem ipsum dolor sit amet '.repeat(76).slice(0, 2000)}\n`
const pathOf = (prefix: string, i: number) => `/${prefix}/d${i % 70}/f${i}.txt`
const expected = Array.from({ length: files }, (_, i) => i).filter((i) => i % 97 === 0).length

async function workspace(id: string) {
  await store.createWorkspace(id)
  return store.createToken(id, 'write')
}

const ms = (t: number) => `${t.toFixed(0)} ms`
const rows: string[] = []
try {
  // Writes: batched first, then one by one (the server compacts the one-by-one docs after, which would slow a later run).
  const tokenB = await workspace('bulk')
  const b = await connectWorkspace({ url, workspace: 'bulk', token: tokenB, timeoutMs: 120_000 })
  let t = performance.now()
  await b.fs.writeTree(Array.from({ length: files }, (_, i) => ({ path: pathOf('w', i), content: body(i) })))
  const stored = performance.now() - t
  await b.flush(600_000)
  const batched = performance.now() - t
  await b.close()
  const tokenC = await workspace('batch')
  const inBatchClient = await connectWorkspace({ url, workspace: 'batch', token: tokenC, timeoutMs: 120_000 })
  for (let d = 0; d < 70; d++) await inBatchClient.fs.mkdir(`/w/d${d}`, { recursive: true })
  t = performance.now()
  await inBatchClient.fs.batch(async () => {
    for (let i = 0; i < files; i++) await inBatchClient.fs.writeFile(pathOf('w', i), body(i))
  })
  const inBatchStored = performance.now() - t
  await inBatchClient.flush(600_000)
  const inBatch = performance.now() - t
  await inBatchClient.close()
  const tokenA = await workspace('one')
  const a = await connectWorkspace({ url, workspace: 'one', token: tokenA, timeoutMs: 120_000 })
  for (let d = 0; d < 70; d++) await a.fs.mkdir(`/w/d${d}`, { recursive: true })
  t = performance.now()
  for (let i = 0; i < files; i++) await a.fs.writeFile(pathOf('w', i), body(i))
  await a.flush(600_000)
  const oneByOne = performance.now() - t
  await a.close()

  rows.push(
    `| remote writes: ${files} × 2 KB new files + flush | fs.writeFile one by one (awaited each, no batch) | ${ms(oneByOne)} (${((files * 1000) / oneByOne).toFixed(0)} files/s) | ≥ 2,000 files/s | ${(files * 1000) / oneByOne >= 2000 ? 'yes' : '**no**'} |`,
    `| | fs.writeFile calls in one fs.batch (batch ended after ${ms(inBatchStored)}) | ${ms(inBatch)} (${((files * 1000) / inBatch).toFixed(0)} files/s) | ≥ 2,000 files/s | ${(files * 1000) / inBatch >= 2000 ? 'yes' : '**no**'} |`,
    `| | fs.writeTree (batched stores; content stored after ${ms(stored)}) | ${ms(batched)} (${((files * 1000) / batched).toFixed(0)} files/s) | ≥ 2,000 files/s | ${(files * 1000) / batched >= 2000 ? 'yes' : '**no**'} |`,
  )

  // Reads on fresh clients: every doc opened one by one vs batched loads; then warm after eviction.
  const grep = 'grep -rl NEEDLE /w | wc -l'
  const check = (out: { stdout: string; stderr: string }) => {
    if (Number(out.stdout.trim()) !== expected)
      throw new Error(`grep found ${out.stdout} (${out.stderr}), expected ${expected}`)
  }
  const single = await connectWorkspace({
    url,
    workspace: 'bulk',
    token: tokenB,
    timeoutMs: 120_000,
    fs: { loadContent: undefined },
  })
  t = performance.now()
  check(await new Bash({ fs: single.fs, cwd: '/' }).exec(grep))
  const coldSingle = performance.now() - t
  await single.close()

  // A second client opens the workspace: its main doc (every row) is there when connect resolves.
  t = performance.now()
  const c = await connectWorkspace({ url, workspace: 'bulk', token: tokenB, timeoutMs: 120_000 })
  const mainDoc = performance.now() - t
  const rowsSeen = c.fs.getAllPaths().filter((p) => p.endsWith('.txt')).length
  if (rowsSeen !== files)
    throw new Error(`the second client saw ${rowsSeen} files at connect, expected ${files}`)
  t = performance.now()
  check(await new Bash({ fs: c.fs, cwd: '/' }).exec(grep))
  const cold = performance.now() - t
  c.fs.pool.evictIdle(true)
  t = performance.now()
  check(await new Bash({ fs: c.fs, cwd: '/' }).exec(grep))
  const warm = performance.now() - t
  const cache = c.fs.index.plaintext
  await c.close()
  rows.push(
    `| second client: connect until its main doc holds all ${files} rows | one sync of the main doc | ${ms(mainDoc)} | ≤ 200 ms | ${mainDoc <= 200 ? 'yes' : '**no**'} |`,
    `| fresh client: grep -rl over ${files} files | every doc opened one by one | ${ms(coldSingle)} | | |`,
    `| | batched loads (a folder per round trip) | ${ms(cold)} | ≤ 2 s | ${cold <= 2000 ? 'yes' : '**no**'} |`,
    `| second grep -rl, content docs evicted | plaintext cache (${cache.size} files, ${(cache.bytes / 1024 / 1024).toFixed(1)} MiB) | ${ms(warm)} | ≤ 0.5 s | ${warm <= 500 ? 'yes' : '**no**'} |`,
  )
  console.log(
    ['| figure | path | time | goal | met |', '| --- | --- | --- | --- | --- |', ...rows].join('\n'),
  )
} catch (error) {
  console.error('benchmark failed:', error)
  process.exitCode = 1
} finally {
  await server.close()
  await store.close()
  rmSync(dir, { recursive: true, force: true })
  process.exit(process.exitCode ?? 0)
}
