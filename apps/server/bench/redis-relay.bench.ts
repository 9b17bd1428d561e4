/**
 * Row changes between two `yfs serve` processes on PostgreSQL + Redis (a scaled-out deployment):
 * a client on server A changes one file's row at a time (`chmod`, each its own change), a client
 * on server B holds the same workspace; timed until B's client sees the last change, with both
 * servers' CPU time (from /proc) per change. The workspace's main doc carries a history first
 * (`--files` files, then two passes of `chmod` over interleaved halves of them, so its delete set
 * is fragmented as a long-lived workspace's is): the upstream Redis extension's sync step 1 per
 * change made every process compute and apply diffs that carry the whole delete set.
 *
 * `--against <checkout>` runs the same on that checkout's `yfs serve` (its `apps/cli/bin/yfs.js`,
 * dependencies installed), builds alternating by round, each in its own schema and Redis prefix.
 *
 *   node --import tsx bench/redis-relay.bench.ts [--files 20000] [--changes 200] [--rounds 3] [--against ../other]
 */
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { connectWorkspace } from '@yfs/client'
import { processCpuMs, waitFor } from '@yfs/core/testing'
import { adminSetup, type ServerProcess, spawnServer } from '../../cli/test/spawn-server.js'
import { dropSchema, POSTGRES_URL, postgresAvailable, REDIS_URL, redisAvailable } from '../test/services.js'
import { fmt, median } from './stats.js'

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '20000' },
    changes: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    against: { type: 'string' },
  },
})
const FILES = Number(values.files)
const CHANGES = Number(values.changes)
const ROUNDS = Number(values.rounds)
const builds: [string, string | undefined][] = [['this build', undefined]]
if (values.against) builds.push(['--against build', resolve(values.against, 'apps/cli/bin/yfs.js')])

if (!(await postgresAvailable()) || !(await redisAvailable())) {
  console.log('skipped: this benchmark needs PostgreSQL and Redis (see the messages above)')
  process.exit(0)
}

/** Waits of the bench: long (a 20,000-file history crossing servers), checked often. */
const WAIT = { timeoutMs: 120_000, intervalMs: 5 }

interface Result {
  perChangeMs: number
  cpuA: number
  cpuB: number
}

async function run(bin: string | undefined, round: number, who: number): Promise<Result> {
  const tag = `${process.pid}_${round}_${who}`
  const schema = `yfs_relay_bench_${tag}`
  const common = ['--postgres', POSTGRES_URL, '--pg-schema', schema, '--redis', REDIS_URL]
  const args = [...common, '--redis-prefix', `yfs-relay-bench-${tag}`, '--admin-token', 'bench']
  const servers: ServerProcess[] = []
  try {
    servers.push(await spawnServer([...args, '--name', 'a'], bin ? { bin } : {}))
    servers.push(await spawnServer([...args, '--name', 'b'], bin ? { bin } : {}))
    const [a, b] = servers as [ServerProcess, ServerProcess]
    const token = await adminSetup(a.http, 'bench', 'relay')
    const writer = await connectWorkspace({ url: a.url, workspace: 'relay', token })
    const holder = await connectWorkspace({ url: b.url, workspace: 'relay', token })
    try {
      const paths = Array.from({ length: FILES }, (_, i) => `/d${i % 50}/f${i}.txt`)
      await writer.fs.writeTree(paths.map((path) => ({ path, content: 'x' })))
      // A history: each pass changes every other row (or every third), in one batch.
      for (const [step, mode] of [
        [2, 0o600],
        [3, 0o640],
      ] as const)
        await writer.fs.batch(async () => {
          for (let i = 0; i < FILES; i += step) await writer.fs.chmod(paths[i]!, mode)
        })
      await writer.flush()
      const last = paths[FILES - 1 - ((FILES - 1) % 3)]!
      await waitFor(
        async () => (await holder.fs.exists(last)) && ((await holder.fs.stat(last)).mode & 0o777) === 0o640,
        'the history on B',
        WAIT,
      )
      await new Promise((done) => setTimeout(done, 500))
      const before = [processCpuMs(a.child.pid!), processCpuMs(b.child.pid!)]
      const start = performance.now()
      for (let k = 0; k < CHANGES; k++) {
        await writer.fs.chmod(paths[k]!, 0o644 + (k % 2) * 0o100)
        await new Promise((done) => setImmediate(done))
      }
      const target = paths[CHANGES - 1]!
      const mode = 0o644 + ((CHANGES - 1) % 2) * 0o100
      await waitFor(
        async () => ((await holder.fs.stat(target)).mode & 0o777) === mode,
        'the last change on B',
        WAIT,
      )
      const elapsed = performance.now() - start
      const after = [processCpuMs(a.child.pid!), processCpuMs(b.child.pid!)]
      return {
        perChangeMs: elapsed / CHANGES,
        cpuA: (after[0]! - before[0]!) / CHANGES,
        cpuB: (after[1]! - before[1]!) / CHANGES,
      }
    } finally {
      await writer.close()
      await holder.close()
    }
  } finally {
    for (const s of servers) await s.stop('SIGTERM').catch(() => undefined)
    await dropSchema(schema).catch(() => undefined)
  }
}

const results = new Map<string, Result[]>()
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? builds : [...builds].reverse()
  for (const [name, bin] of order) {
    process.stderr.write(`round ${r + 1}/${ROUNDS}: ${name}\n`)
    const result = await run(
      bin,
      r,
      builds.findIndex(([n]) => n === name),
    )
    results.set(name, [...(results.get(name) ?? []), result])
  }
}

console.log(
  `\nRow changes between two servers on Redis (${FILES.toLocaleString('en')} files with a history, ${CHANGES} changes one at a time, ${ROUNDS} rounds, medians)\n`,
)
console.log(
  '| build | until B sees the last, per change (ms) | server A CPU per change (ms) | server B CPU per change (ms) |',
)
console.log('| --- | --- | --- | --- |')
for (const [name] of builds) {
  const rs = results.get(name)!
  console.log(
    `| ${name} | ${fmt(median(rs.map((x) => x.perChangeMs)), 2)} | ${fmt(median(rs.map((x) => x.cpuA)), 2)} | ${fmt(median(rs.map((x) => x.cpuB)), 2)} |`,
  )
}
