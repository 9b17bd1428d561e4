/**
 * An agent overwriting the same files call after call, through the server's `/mcp` `bash` tool:
 * `sed -i` over the same 1,000 files, `--calls` times in one session (alternating two
 * substitutions). Every call adds a version to each file, and every version stays in the file's
 * content doc (docs/history.md), so each call decodes, writes and stores more: the table shows
 * the first calls, the last ones, and how much slower the last are. `--files 1 --calls 1000` is
 * an agent editing one file call after call (written through its doc from the second call on:
 * core's rewritten-files.ts).
 *
 * `--against <checkout>` runs the same calls on that checkout's `yfs serve` too, call by call in
 * alternating order (both sessions see the same machine), and prints this build ÷ that one.
 *
 * `--postgres URL` runs the servers on PostgreSQL (each in a schema of its own, dropped after)
 * instead of SQLite.
 *
 *   node --import tsx bench/repeated-overwrites.bench.ts [--calls N] [--files N] [--against ../other-checkout] [--postgres URL]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { spawnServer } from '../../cli/test/spawn-server.js'
import { benchStore, openBashSession } from './bash-session.js'
import { fmt } from './stats.js'

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '16' },
    files: { type: 'string', default: '1000' },
    against: { type: 'string' },
    postgres: { type: 'string' },
  },
})
const CALLS = Number(values.calls)
const N = Number(values.files)
const AGAINST = values.against === undefined ? undefined : resolve(values.against, 'apps/cli/bin/yfs.js')
const SETUP = `mkdir -p /many && for i in $(seq 1 ${N}); do echo "line $i" > /many/f$i.txt; done`
const STEPS = ["sed -i 's/line/LINE/' /many/*.txt", "sed -i 's/LINE/line/' /many/*.txt"]
/** Calls summed at each end. */
const ENDS = 4

interface Session {
  /** Run `script`, resolving with how long the call took (ms); rejects unless it exits 0. */
  call(script: string): Promise<number>
  close(): Promise<void>
}

/** This build's `yfs serve` (or `bin`'s) in a temporary folder, and a session on its `/mcp`. */
async function open(bin?: string): Promise<Session> {
  const data = mkdtempSync(join(tmpdir(), 'yfs-repeated-'))
  const store = benchStore(data, values.postgres)
  const server = await spawnServer([...store.args, '--admin-token', 'bench-admin'], bin ? { bin } : {})
  const session = await openBashSession(server, 'bench-admin', 'repeated')
  return {
    async call(script) {
      const start = performance.now()
      const { exit_code, stderr } = await session.bash(script)
      if (exit_code !== 0) throw new Error(`${script}: exit ${exit_code}: ${stderr.slice(0, 300)}`)
      return performance.now() - start
    },
    async close() {
      await session.close()
      // Ended before its schema is dropped: a server stores what it holds as it stops.
      await server.stop('SIGTERM')
      rmSync(data, { recursive: true, force: true })
      await store.drop()
    },
  }
}

const sessions: [string, Session][] = [['this build', await open()]]
if (AGAINST) sessions.push(['--against build', await open(AGAINST)])
const times = new Map<string, number[]>(sessions.map(([who]) => [who, []]))
try {
  for (const [, session] of sessions) await session.call(SETUP)
  for (let c = 0; c < CALLS; c++) {
    process.stderr.write(`call ${c + 1}/${CALLS}\n`)
    const order = c % 2 === 0 ? sessions : [...sessions].reverse()
    for (const [who, session] of order) times.get(who)!.push(await session.call(STEPS[c % STEPS.length]!))
    // Each file's content is as it was before (LINE, then line again): only its history grew.
    if (c % 2 === 1)
      for (const [, session] of sessions) await session.call(`grep -q '^line ${N}$' /many/f${N}.txt`)
  }
} finally {
  for (const [, session] of sessions) await session.close()
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
console.log(
  `\n\`sed -i\` over the same ${N} files through /mcp, ${CALLS} calls in one session (ms; each call adds a version to every file)\n`,
)
console.log(`| build | first ${ENDS} calls | last ${ENDS} calls | last ÷ first | all calls | every call |`)
console.log('| --- | --- | --- | --- | --- | --- |')
for (const [who, xs] of times) {
  const first = sum(xs.slice(0, ENDS))
  const last = sum(xs.slice(-ENDS))
  console.log(
    `| ${who} | ${fmt(first, 0)} | ${fmt(last, 0)} | ${(last / first).toFixed(2)}× | ${fmt(sum(xs), 0)} | ${xs.map((x) => fmt(x, 0)).join(' ')} |`,
  )
}
if (AGAINST) {
  const a = times.get('this build')!
  const b = times.get('--against build')!
  console.log(
    `\nThis build ÷ the --against build (same run, alternating): first ${ENDS} calls ${(sum(a.slice(0, ENDS)) / sum(b.slice(0, ENDS))).toFixed(2)}×, last ${ENDS} ${(sum(a.slice(-ENDS)) / sum(b.slice(-ENDS))).toFixed(2)}×, all ${(sum(a) / sum(b)).toFixed(2)}×`,
  )
}
