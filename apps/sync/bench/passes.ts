/**
 * Quick daemon passes for profiling and A/B runs (not a report): N files of
 * 2 KB in 20 folders ingested by one `syncFolder` and materialised into an
 * empty folder by another, through a real `yfs serve` child process. Prints
 * each pass's rate, the CPU time of this process and of the server, and
 * monotonic timestamps (µs, the clock of `--cpu-prof` profiles) to cut
 * profiles by phase.
 *
 *   tsx bench/passes.ts [files]                      EXT=md for Markdown files
 *   SERVER_PROF=<dir> node --cpu-prof --import tsx bench/passes.ts 5000
 *
 * It runs with `yfs sync`'s thread pool (bench/thread-pool.ts: without
 * UV_THREADPOOL_SIZE set it runs itself again with it; set it to profile one
 * process, or to compare sizes).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { processCpuMs } from '@yfs/core/testing'
import { syncFolder } from '../src/sync-folder.js'
import { startEnv, tempDir } from '../test/helpers.js'
import { withSyncThreadPool } from './thread-pool.js'

// `yfs sync`'s thread pool (its launcher sets it); may run this script again with it set.
const threadPool = withSyncThreadPool()
const n = Number(process.argv[2] ?? 2000)
const CONTENT = (i: number) => `${'x'.repeat(2000)}\n\nfile ${i}\n`
const EXT = process.env.EXT ?? 'txt'
const rel = (i: number) => `d${i % 20}/f${i}.${EXT}`
const T0 = performance.now()
const serverTicks = () => processCpuMs(env.server.child.pid!)
let mark = { c: process.cpuUsage(), s: 0 }
const cpu = () => {
  const c = process.cpuUsage(mark.c)
  return `cpu client ${((c.user + c.system) / 1000).toFixed(0)} ms, server ${serverTicks() - mark.s} ms`
}
const reset = () => {
  mark = { c: process.cpuUsage(), s: serverTicks() }
}
const log = (s: string) =>
  console.log(`[${((performance.now() - T0) / 1000).toFixed(1)}s] ${s} @${process.hrtime.bigint() / 1000n}`)
const env = await startEnv(
  process.env.SERVER_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.SERVER_PROF] : [],
)
log(`server up (thread pool ${threadPool})`)
const src = tempDir('yfs-q-src-')
env.dirs.push(src)
for (let i = 0; i < n; i++) {
  mkdirSync(join(src, `d${i % 20}`), { recursive: true })
  writeFileSync(join(src, rel(i)), CONTENT(i))
}
const ws = await env.workspace(`sync-${n}`)
const c1 = await env.connect(ws)
log('connected')
reset()
log('ingest start')
let t = performance.now()
const one = await syncFolder({ fs: c1.fs, dir: src, workspace: ws.id })
const t1 = performance.now() - t
await c1.flush(600_000)
const ingest = performance.now() - t
log(
  `ingest ${Math.round(n / (ingest / 1000))} files/s (${ingest.toFixed(0)} ms; syncFolder ${t1.toFixed(0)} ms) ${cpu()}`,
)
await one.close()
const c2 = await env.connect(ws)
const dst = tempDir('yfs-q-dst-')
env.dirs.push(dst)
reset()
log('mat start')
t = performance.now()
let firstProgress = 0
let lastProgress = 0
const two = await syncFolder({
  fs: c2.fs,
  dir: dst,
  workspace: ws.id,
  onEvent: (e) => {
    if (e.type === 'progress') {
      const now = performance.now() - t
      if (!firstProgress) firstProgress = now
      lastProgress = now
    }
  },
})
log(`mat progress first ${firstProgress.toFixed(0)} last ${lastProgress.toFixed(0)} ms`)
const mat = performance.now() - t
log(`materialise ${Math.round(n / (mat / 1000))} files/s (${mat.toFixed(0)} ms) ${cpu()}`)
for (const i of [0, n >> 1, n - 1])
  if (readFileSync(join(dst, rel(i)), 'utf8') !== CONTENT(i)) throw new Error('bad content')
await two.close()
log('closing')
await env.close()
log('closed')
process.exit(0)
