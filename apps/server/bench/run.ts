/**
 * `pnpm bench` for @yfs/server. Starts `yfs serve` child processes (SQLite,
 * and PostgreSQL when reachable), runs the benchmarks against them from this
 * process, prints a table and writes bench/results.md (full runs) or
 * bench/results-quick.md (quick runs, git-ignored).
 *
 *   tsx bench/run.ts            quick: load test 10 s
 *   tsx bench/run.ts --full     the sizes: load test 60 s
 *   --duration N --clients N --docs N --files N --runs N
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { adminSetup, type ServerProcess, spawnServer } from '../../cli/test/spawn-server.js'
import { dropSchema, POSTGRES_URL, postgresAvailable, testSchema } from '../test/services.js'
import { benchIdleMemory } from './idle-memory.bench.js'
import { benchLoad } from './load.bench.js'
import { benchOpenWorkspace, seedWorkspace, summarizeOpen } from './open-workspace.bench.js'
import { fmt, mib, percentile } from './stats.js'

const { values } = parseArgs({
  options: {
    full: { type: 'boolean', default: false },
    duration: { type: 'string' },
    clients: { type: 'string', default: '200' },
    docs: { type: 'string', default: '50' },
    files: { type: 'string', default: '500' },
    runs: { type: 'string', default: '5' },
    rate: { type: 'string', default: '2' },
  },
})
const duration = Number(values.duration ?? (values.full ? 60 : 10))
const ADMIN = 'bench-admin'
const rows: string[] = []
const out = (line: string) => {
  rows.push(line)
  console.log(line)
}

async function withServer<T>(args: string[], fn: (s: ServerProcess) => Promise<T>): Promise<T> {
  const server = await spawnServer([...args, '--admin-token', ADMIN], { nodeArgs: ['--expose-gc'] })
  try {
    return await fn(server)
  } finally {
    await server.stop('SIGTERM')
  }
}

const dir = mkdtempSync(join(tmpdir(), 'yfs-bench-'))
const backends: { name: string; args: string[]; cleanup: () => Promise<void> }[] = [
  {
    name: 'sqlite',
    args: ['--data', dir],
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  },
]
if (await postgresAvailable()) {
  const schema = testSchema('yfs_bench')
  backends.push({
    name: 'postgres',
    args: ['--postgres', POSTGRES_URL, '--pg-schema', schema],
    cleanup: () => dropSchema(schema),
  })
}

const files = Number(values.files)
out(
  `## Open a ${files}-file workspace (second client, loopback, median of ${values.runs} runs after a warm-up)`,
)
out('')
out(
  '| store | main doc synced (goal ≤ 200 ms) | grep -r over all files (goal ≤ 2 s) | grep vs in-memory fs | min–max grep |',
)
out('|---|---|---|---|---|')
for (const b of backends) {
  await withServer(b.args, async (s) => {
    const token = await adminSetup(s.http, ADMIN, 'open500')
    await seedWorkspace(s.url, 'open500', token, files)
    const r = await benchOpenWorkspace(s.url, 'open500', token, files, Number(values.runs))
    const sum = summarizeOpen(r)
    out(
      `| ${b.name} | ${fmt(sum.mainMedian)} ms | ${fmt(sum.grepMedian)} ms | ${fmt(sum.ratio)}× | ${fmt(Math.min(...r.grepMs))}–${fmt(Math.max(...r.grepMs))} ms |`,
    )
  })
}

out('')
out(
  `## Load: ${values.clients} clients editing ${values.docs} docs for ${duration} s at ${values.rate} edits/s each (server in a child process)`,
)
out('')
out(
  '| store | edits | lost (goal 0) | lost after reload | p50 latency | p99 latency (goal ≤ 100 ms) | max | server RSS after |',
)
out('|---|---|---|---|---|---|---|---|')
for (const b of backends) {
  await withServer(b.args, async (s) => {
    const token = await adminSetup(s.http, ADMIN, 'load')
    const r = await benchLoad({
      url: s.url,
      workspace: 'load',
      token,
      clients: Number(values.clients),
      docs: Number(values.docs),
      durationSec: duration,
      rate: Number(values.rate),
    })
    const sorted = r.latenciesMs.sort((a, b) => a - b)
    const health = (await (
      await fetch(`${s.http}/healthz`, { headers: { authorization: `Bearer ${ADMIN}` } })
    ).json()) as { rssBytes: number }
    out(
      `| ${b.name} | ${r.edits} | ${r.lost} | ${r.lostAfterReload} | ${fmt(percentile(sorted, 50))} ms | ${fmt(percentile(sorted, 99))} ms | ${fmt(sorted.at(-1) ?? Number.NaN)} ms | ${fmt(mib(health.rssBytes))} MiB |`,
    )
  })
}

out('')
out('## Memory per idle workspace (20 files, all content docs loaded, one idle client each)')
out('')
out(
  '| store | workspaces | heap per workspace | RSS per workspace | docs loaded while idle | docs loaded after clients left |',
)
out('|---|---|---|---|---|---|')
await withServer(backends[0]!.args, async (s) => {
  const r = await benchIdleMemory(s.http, s.url, ADMIN, 20, 20)
  out(
    `| ${backends[0]!.name} | ${r.workspaces} | ${fmt(r.heapPerWorkspace / 1024)} KiB | ${fmt(r.rssPerWorkspace / 1024)} KiB | ${r.documentsWhileIdle} | ${r.documentsAfterLeave} |`,
  )
})

for (const b of backends) await b.cleanup()
const header = `# @yfs/server benchmark results\n\nGenerated by \`pnpm --filter @yfs/server bench${values.full ? ' -- --full' : ''}\` on ${new Date().toISOString().slice(0, 10)} (Node ${process.version}, ${(await import('node:os')).cpus().length} cores shared with other work).\n\n`
// Only full runs replace the committed results; quick runs go to a git-ignored file.
const target = values.full ? './results.md' : './results-quick.md'
writeFileSync(new URL(target, import.meta.url), `${header}${rows.join('\n')}\n`)
process.exit(0)
