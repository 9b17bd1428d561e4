/**
 * `pnpm bench` for @yfs/sync, through a real `yfs serve` child process on
 * loopback (SQLite):
 *
 * - ingest: N files of 2 KB in 20 folders, from a folder into an empty
 *   workspace by `syncFolder`, until the server acknowledged everything;
 *   baseline: the same files written by a plain `@yfs/client` (`fs.writeFile`,
 *   same concurrency), i.e. core's own write speed through the server.
 * - materialise: the workspace into an empty folder by a second
 *   `syncFolder`; baseline: the same client reading every file
 *   (`fs.readFileBuffer`) and writing it with `fs.promises.writeFile`.
 * - latency: one disk edit in the mirror until another client reads it.
 * - idle CPU of a `yfs sync` child process over the 10,000-file mirror.
 *
 * Both sides produce the same files (checked before timing is reported).
 * The bench runs with the libuv thread pool `yfs sync` gets from its
 * launcher (bench/thread-pool.ts; a UV_THREADPOOL_SIZE you set is kept).
 * Writes its section of docs/benchmarks.md (between `<!-- sync:start -->`
 * and `<!-- sync:end -->`) and prints it.
 *
 *   tsx bench/run.ts [--sizes 1000,10000] [--latency 40] [--idle 10]
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { forEachLimited } from '../src/limit.js'
import { syncFolder } from '../src/sync-folder.js'
import { spawnDaemon, startEnv, tempDir } from '../test/helpers.js'
import { withSyncThreadPool } from './thread-pool.js'

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000' },
    latency: { type: 'string', default: '40' },
    idle: { type: 'string', default: '10' },
  },
})
const sizes = values.sizes.split(',').map(Number)
// `yfs sync`'s thread pool (its launcher sets it); may run this bench again with it set.
const threadPool = withSyncThreadPool()
const CONTENT = (i: number) => `${'x'.repeat(2000)}\nfile ${i}\n`.padEnd(2048, '.')
const rel = (i: number) => `d${i % 20}/f${i}.txt`

const env = await startEnv()
const lines: string[] = []
const out = (line: string) => {
  lines.push(line)
  console.log(line)
}
const rate = (n: number, ms: number) => Math.round(n / (ms / 1000))
const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!

function makeFolder(n: number): string {
  const dir = tempDir('yfs-bench-src-')
  env.dirs.push(dir)
  for (let i = 0; i < n; i++) {
    mkdirSync(join(dir, `d${i % 20}`), { recursive: true })
    writeFileSync(join(dir, rel(i)), CONTENT(i))
  }
  return dir
}

function check(dir: string, n: number): void {
  for (const i of [0, Math.floor(n / 2), n - 1])
    if (readFileSync(join(dir, rel(i)), 'utf8') !== CONTENT(i))
      throw new Error(`bench: wrong content in ${dir}`)
}

interface SizeResult {
  n: number
  ingest: number
  ingestBase: number
  mat: number
  matBase: number
  /** Why a pass failed (the row says so instead of a figure). */
  failed?: string
}

// The client rejects a content doc the server refused outside any awaited promise; record it as the pass's failure.
let lastRefusal: string | undefined
/** Rejects as soon as the server refused a document (a flush would otherwise wait for it forever). */
async function guarded<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const refused = new Promise<never>((_, reject) => {
    const poll = () => {
      if (lastRefusal) reject(new Error(lastRefusal))
      else timer = setTimeout(poll, 100)
    }
    poll()
  })
  try {
    return await Promise.race([work, refused])
  } finally {
    clearTimeout(timer)
  }
}
process.on('unhandledRejection', (error) => {
  lastRefusal = error instanceof Error ? error.message : String(error)
  console.error('bench: unhandled rejection:', lastRefusal)
})

const results: SizeResult[] = []
let mirror: { ws: { id: string; token: string }; dir: string; n: number } | undefined
try {
  for (const n of sizes) {
    const partial: SizeResult = {
      n,
      ingest: Number.NaN,
      ingestBase: Number.NaN,
      mat: Number.NaN,
      matBase: Number.NaN,
    }
    try {
      await runSize(n, partial)
    } catch (error) {
      partial.failed = lastRefusal ?? (error instanceof Error ? error.message : String(error))
      console.error('bench: pass failed:', partial.failed)
    }
    results.push(partial)
    console.log(partial)
  }

  async function runSize(n: number, r: SizeResult): Promise<void> {
    lastRefusal = undefined
    const src = makeFolder(n)
    // Baseline ingest: a plain client writes the same files.
    const wsBase = await env.workspace(`base-${n}`)
    const client = await env.connect(wsBase)
    let t = performance.now()
    for (let f = 0; f < 20; f++) await client.fs.mkdir(`/d${f}`, { recursive: true })
    await forEachLimited(
      Array.from({ length: n }, (_, i) => i),
      16,
      async (i) => client.fs.writeFile(`/${rel(i)}`, await readFile(join(src, rel(i)), 'utf8')),
    )
    await guarded(client.flush(600_000))
    r.ingestBase = performance.now() - t

    // Daemon ingest.
    const ws = await env.workspace(`sync-${n}`)
    const daemonConn = await env.connect(ws)
    t = performance.now()
    const one = await guarded(syncFolder({ fs: daemonConn.fs, dir: src, workspace: ws.id }))
    await guarded(daemonConn.flush(600_000))
    r.ingest = performance.now() - t
    await one.close()

    // Baseline materialise: a fresh client reads every file and writes it to disk.
    const reader = await env.connect(wsBase)
    const baseDir = tempDir('yfs-bench-base-')
    env.dirs.push(baseDir)
    t = performance.now()
    for (let f = 0; f < 20; f++) mkdirSync(join(baseDir, `d${f}`), { recursive: true })
    await forEachLimited(
      Array.from({ length: n }, (_, i) => i),
      16,
      async (i) => writeFile(join(baseDir, rel(i)), await reader.fs.readFileBuffer(`/${rel(i)}`)),
    )
    r.matBase = performance.now() - t
    check(baseDir, n)

    // Daemon materialise into an empty folder.
    const matConn = await env.connect(ws)
    const dst = tempDir('yfs-bench-dst-')
    env.dirs.push(dst)
    t = performance.now()
    const two = await guarded(syncFolder({ fs: matConn.fs, dir: dst, workspace: ws.id }))
    r.mat = performance.now() - t
    check(dst, n)
    await two.close()
    mirror = { ws, dir: dst, n }
  }

  // Latency: a disk edit in a mirror → another client sees it.
  const ws = await env.workspace('latency')
  const dir = tempDir('yfs-bench-lat-')
  env.dirs.push(dir)
  writeFileSync(join(dir, 'edit.txt'), 'start\n')
  const daemon = await env.startSync(ws, dir)
  const other = await env.connect(ws)
  const samples: number[] = []
  for (let i = 0; i < Number(values.latency); i++) {
    const text = `edit ${i}\n`
    const seen = new Promise<void>((resolve) => {
      const poll = async () => {
        if ((await other.fs.readFile('/edit.txt').catch(() => '')) === text) resolve()
        else setTimeout(poll, 2)
      }
      void poll()
    })
    const t = performance.now()
    writeFileSync(join(dir, 'edit.txt'), text)
    await seen
    samples.push(performance.now() - t)
    await new Promise((r) => setTimeout(r, 50))
  }
  await daemon.stop()
  samples.sort((a, b) => a - b)

  // Idle CPU of a `yfs sync` process over the largest mirror.
  let idleCpu = Number.NaN
  if (mirror) {
    const proc = spawnDaemon(env.server, mirror.ws, mirror.dir)
    await proc.ready
    await new Promise((r) => setTimeout(r, 2000))
    const ticks = () => {
      const f = readFileSync(`/proc/${proc.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
      return Number(f[11]) + Number(f[12])
    }
    const before = ticks()
    const t = performance.now()
    await new Promise((r) => setTimeout(r, Number(values.idle) * 1000))
    idleCpu = ((ticks() - before) / 100 / ((performance.now() - t) / 1000)) * 100
    proc.child.kill('SIGTERM')
    await proc.exited
  }

  const goal = (ok: boolean) => (ok ? 'met' : '**not met**')
  out('<!-- sync:start -->')
  out('## Disk sync daemon (`apps/sync/bench/run.ts`: `syncFolder` against a real `yfs serve` on loopback)')
  out('')
  out(
    `Run: ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}; ` +
      `libuv thread pool ${threadPool} (what \`yfs sync\` runs with); ` +
      'one run per size (a 10,000-file pass takes minutes on this shared machine), files of 2 KB in 20 folders. ' +
      'Baseline: a plain `@yfs/client` doing the same work (ingest: `fs.writeFile` of every file; materialise: ' +
      '`fs.readFileBuffer` + `fs.promises.writeFile`), 16 in flight like the daemon. The copies were checked equal.',
  )
  out('')
  out(
    '| files | ingest (daemon) | ingest (client baseline) | ratio | materialise (daemon) | materialise (baseline) | ratio | goal ≥ 2,000 files/s |',
  )
  out('|---|---|---|---|---|---|---|---|')
  const cell = (n: number, ms: number) =>
    Number.isNaN(ms) ? 'failed' : `${rate(n, ms)} files/s (${(ms / 1000).toFixed(1)} s)`
  for (const r of results)
    if (r.failed)
      out(
        `| ${r.n.toLocaleString('en')} | ${cell(r.n, r.ingest)} | ${cell(r.n, r.ingestBase)} | | ${cell(r.n, r.mat)} | ${cell(r.n, r.matBase)} | | **failed**: ${r.failed} |`,
      )
    else
      out(
        `| ${r.n.toLocaleString('en')} | ${rate(r.n, r.ingest)} files/s (${(r.ingest / 1000).toFixed(1)} s) | ${rate(r.n, r.ingestBase)} files/s | ${(r.ingest / r.ingestBase).toFixed(2)}× | ${rate(r.n, r.mat)} files/s (${(r.mat / 1000).toFixed(1)} s) | ${rate(r.n, r.matBase)} files/s | ${(r.mat / r.matBase).toFixed(2)}× | ${goal(rate(r.n, r.ingest) >= 2000 && rate(r.n, r.mat) >= 2000)} |`,
      )
  out('')
  out(
    `- Disk edit → another client (${samples.length} edits): p50 ${pct(samples, 50).toFixed(0)} ms, p95 ${pct(samples, 95).toFixed(0)} ms, max ${samples.at(-1)!.toFixed(0)} ms (goal p95 ≤ 300 ms: ${goal(pct(samples, 95) <= 300)}).`,
  )
  out(
    `- Idle CPU of \`yfs sync\` over the ${mirror ? mirror.n.toLocaleString('en') : '?'}-file mirror: ${idleCpu.toFixed(2)} % of a core over ${values.idle} s (goal < 1 %: ${goal(idleCpu < 1)}).`,
  )
  out('<!-- sync:end -->')

  const file = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url))
  const existing = readFileSync(file, 'utf8')
  const start = existing.indexOf('<!-- sync:start -->')
  const end = existing.indexOf('<!-- sync:end -->')
  const section = lines.join('\n')
  const next =
    start >= 0 && end > start
      ? existing.slice(0, start) + section + existing.slice(end + '<!-- sync:end -->'.length)
      : `${existing.trimEnd()}\n\n${section}\n`
  writeFileSync(file, next)
} finally {
  await env.close()
}
