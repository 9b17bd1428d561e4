/**
 * Bash through the server's `/mcp` against the same scripts on an in-process
 * YjsFileSystem (issue 25: goal ≤ 1.5× each), in one run: just-bash on a
 * local `createFileSystem()` (the baseline; also with an abort signal, which the
 * tool must give just-bash and which costs just-bash per command), our `bash` tool on a local
 * filesystem (the registry, bash in its worker thread, kept warm as an MCP
 * session keeps it), and the `bash` tool
 * of a `yfs serve` child process (SQLite) called over Streamable HTTP.
 * Each round uses a fresh workspace; p50 over the rounds. Within a round each step is run by
 * every runner in turn (who goes first turns each round) before the next step, so a ratio
 * compares times taken seconds apart. The first `--warmup` rounds (1) run
 * but are not counted: every runner (in process, the worker, the server) compiles its code
 * during its first scripts, and with three rounds the median was a half-warm round (an echo loop
 * at 1.96x in one run, 1.45x in the next). A second table times other commands
 * agents run often (cat, wc, grep -l, touch, chmod of the same files, an append loop, a `sed -i` of
 * one of them in a call of its own), no goal.
 *
 * `--against <checkout>` also runs the /mcp scripts on that checkout's `yfs serve` (its
 * `apps/cli/bin/yfs.js`, dependencies installed), interleaved with this one's, with 2 s of quiet
 * before each server step instead of 0.5 s (a build's background work, compaction or an ending
 * session, must not land on the other's timing), and prints this build ÷ that one. On a machine whose speed
 * drifts, that ratio is steadier than the ratios against just-bash.
 *
 * `--redis URL` runs the servers with Redis (a scaled-out deployment's configuration, one process).
 * `--postgres URL` runs them on PostgreSQL (each in a schema of its own, dropped after) instead of
 * SQLite.
 *
 *   node --import tsx bench/mcp-bash.bench.ts [--rounds N] [--warmup N] [--files N] [--against ../other-checkout] [--redis URL] [--postgres URL]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createToolRegistry, keepShellWorkersWarm } from '@yfs/agent'
import { createFileSystem } from '@yfs/core'
import { Bash } from 'just-bash'
import { type ServerProcess, spawnServer } from '../../cli/test/spawn-server.js'
import { benchStore, openBashSession } from './bash-session.js'
import { fmt, percentile } from './stats.js'

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '5' },
    warmup: { type: 'string', default: '1' },
    files: { type: 'string', default: '1000' },
    against: { type: 'string' },
    redis: { type: 'string' },
    postgres: { type: 'string' },
  },
})
// Each server its own prefix: two deployments on one Redis must not hear each other.
const redisArgs = (who: string) =>
  values.redis ? ['--redis', values.redis, '--redis-prefix', `yfs-bench-${process.pid}-${who}`] : []
const AGAINST = values.against === undefined ? undefined : resolve(values.against, 'apps/cli/bin/yfs.js')
const SETTLE_MS = 2000
const QUIET_MS = 500
const ROUNDS = Number(values.rounds)
const WARMUP = Number(values.warmup)
// False during the warm-up rounds: their times are not recorded.
let counting = false
const N = Number(values.files)

const STEPS: [string, string][] = [
  [
    `${N}-file echo loop`,
    `mkdir -p /many && for i in $(seq 1 ${N}); do echo "line $i" > /many/f$i.txt; done`,
  ],
  [`sed -i over ${N} files`, `sed -i 's/line/LINE/' /many/*.txt`],
  [`cp -r of ${N} files`, 'cp -r /many /copy'],
  [`tar -x of ${N} files`, 'tar -cf /many.tar /many && mkdir -p /untar && tar -xf /many.tar -C /untar'],
]

// Other commands agents run often, over the same files (no goal of their own; the table shows
// where the bash tool stands beside just-bash on them).
const MORE_STEPS: [string, string][] = [
  [`cat of ${N} files`, 'cat /many/*.txt > /all.txt'],
  [`wc -l of ${N} files`, 'wc -l /many/*.txt > /counts.txt'],
  [`grep -l over ${N} files`, 'grep -l LINE /many/*.txt > /hits.txt'],
  [`touch of ${N} files`, 'touch /many/*.txt'],
  [`chmod of ${N} files`, 'chmod 600 /many/*.txt'],
  ['300 appends to one file', 'for i in $(seq 1 300); do echo "x $i" >> /log.txt; done'],
  // An agent's edit of one file in a big folder, in a call of its own; and in a folder of 100
  // (/small, made before these steps, not timed).
  [`sed -i of one file of ${N}`, `sed -i 's/LINE/Line/' /many/f${Math.ceil(N / 2)}.txt`],
  ['sed -i of one file of 100', "sed -i 's/line/Line/' /small/f50.txt"],
]

type Runner = (script: string) => Promise<string>
const times = new Map<string, number[]>()
const record = (who: string, step: string, ms: number) => {
  if (!counting) return
  const key = `${who}\u0000${step}`
  times.set(key, [...(times.get(key) ?? []), ms])
}

/**
 * One round: every step run by each runner in turn before the next step (a ratio compares times
 * taken seconds apart, not a minute apart on a machine whose speed drifts); `quiet` runs before
 * each step (the runner before must not still be at work on the same cores).
 */
async function round(runners: [string, Runner][], quiet: (who: string) => Promise<unknown>): Promise<void> {
  const timed = async (steps: [string, string][]) => {
    for (const [step, script] of steps)
      for (const [who, runner] of runners) {
        await quiet(who)
        const start = performance.now()
        const out = await runner(script)
        record(who, step, performance.now() - start)
        if (out.trim() !== '') throw new Error(`${who}: ${step} printed ${out.slice(0, 300)}`)
      }
  }
  await timed(STEPS)
  // Every step did its work: the last file went through echo, sed, cp and tar.
  for (const [who, runner] of runners) {
    const check = await runner(`cat /copy/f${N}.txt /untar/many/f${N}.txt`)
    if (check !== `LINE ${N}\nLINE ${N}\n`) throw new Error(`${who}: wrong result ${JSON.stringify(check)}`)
  }
  for (const [, runner] of runners)
    await runner('mkdir -p /small && for i in $(seq 1 100); do echo "line $i" > /small/f$i.txt; done')
  await timed(MORE_STEPS)
  for (const [who, runner] of runners) {
    const more = await runner(
      `wc -l < /all.txt; wc -l < /hits.txt; wc -l < /log.txt; stat -c %a /many/f${N}.txt; cat /many/f${Math.ceil(N / 2)}.txt /small/f50.txt`,
    )
    if (more !== `${N}\n${N}\n300\n600\nLine ${Math.ceil(N / 2)}\nLine 50\n`)
      throw new Error(`${who}: wrong result ${JSON.stringify(more)}`)
  }
}

// As an MCP session does (the server's sessions below do it themselves): a warm worker per call.
const releaseWorkers = keepShellWorkersWarm()
const data = mkdtempSync(join(tmpdir(), 'yfs-mcp-bash-'))
const store = benchStore(data, values.postgres)
const server = await spawnServer([...store.args, '--admin-token', 'bench-admin', ...redisArgs('this')])
const otherData = AGAINST ? mkdtempSync(join(tmpdir(), 'yfs-mcp-bash-against-')) : undefined
const otherStore = otherData === undefined ? undefined : benchStore(otherData, values.postgres)
const other = otherStore
  ? await spawnServer([...otherStore.args, '--admin-token', 'bench-admin', ...redisArgs('against')], {
      bin: AGAINST,
    })
  : undefined

/** A runner on `target`'s `/mcp`: a fresh workspace and session, ended by `close`. */
async function mcpRunner(
  target: ServerProcess,
  workspace: string,
): Promise<{ run: Runner; close(): Promise<void> }> {
  const session = await openBashSession(target, 'bench-admin', workspace)
  return {
    run: async (script) => {
      const { stdout, stderr } = await session.bash(script)
      return stdout + stderr
    },
    close: () => session.close(),
  }
}

const SERVER_RUNNERS = new Set(['bash tool, server /mcp', 'server /mcp, --against build'])
// Quiet before every step: the runner before may still be busy (an in-process filesystem's timers,
// a server storing, the collector), on the same two cores; longer before a server's with --against.
const quiet = (who: string) =>
  new Promise((done) => setTimeout(done, other && SERVER_RUNNERS.has(who) ? SETTLE_MS : QUIET_MS))

try {
  for (let r = 0; r < WARMUP + ROUNDS; r++) {
    counting = r >= WARMUP
    process.stderr.write(
      r < WARMUP ? `warm-up round ${r + 1}/${WARMUP}\n` : `round ${r + 1 - WARMUP}/${ROUNDS}\n`,
    )
    const bash = new Bash({ fs: createFileSystem(), cwd: '/' })
    // The same, with an abort signal given to just-bash (the bash tool must give one: time limits,
    // interruptions): just-bash then makes and revokes an AbortController per command.
    const signalled = new Bash({ fs: createFileSystem(), cwd: '/' })
    const tools = createToolRegistry(createFileSystem())
    const sessions = [await mcpRunner(server, `mcp-bash-${r}`)]
    if (other) sessions.push(await mcpRunner(other, `mcp-bash-${r}`))
    const runners: [string, Runner][] = [
      [
        'just-bash, in process',
        async (script) => {
          const res = await bash.exec(script)
          return res.stdout + res.stderr
        },
      ],
      [
        'just-bash with a signal, in process',
        async (script) => {
          const res = await signalled.exec(script, { signal: new AbortController().signal })
          return res.stdout + res.stderr
        },
      ],
      [
        'bash tool, in process',
        async (script) => {
          const res = (await tools.execute('bash', { script, timeout_ms: 120_000 })) as unknown as {
            isError?: boolean
            structuredContent?: { stdout: string; stderr: string }
          }
          if (res.isError) throw new Error(JSON.stringify(res.structuredContent))
          return (res.structuredContent?.stdout ?? '') + (res.structuredContent?.stderr ?? '')
        },
      ],
      ['bash tool, server /mcp', sessions[0]!.run],
    ]
    if (sessions[1]) runners.push(['server /mcp, --against build', sessions[1].run])
    // Who goes first turns each round.
    for (let k = 0; k < r % runners.length; k++) runners.push(runners.shift()!)
    try {
      await round(runners, quiet)
    } finally {
      for (const session of sessions) await session.close()
    }
  }
} finally {
  releaseWorkers()
  // Ended before their stores go: a server stores what it holds as it stops.
  await server.stop('SIGTERM')
  await other?.stop('SIGTERM')
  rmSync(data, { recursive: true, force: true })
  if (otherData) rmSync(otherData, { recursive: true, force: true })
  await store.drop()
  await otherStore?.drop()
}

const p50 = (who: string, step: string) => percentile(times.get(`${who}\u0000${step}`) ?? [], 50)
console.log(
  `\nBash via /mcp vs in process (${ROUNDS} rounds after ${WARMUP} not counted, p50 ms; goal ≤ 1.5× the just-bash baseline)\n`,
)
console.log(
  '| script | just-bash, in process | just-bash with a signal | bash tool, in process | bash tool, server /mcp | /mcp ÷ baseline | goal | met | /mcp ÷ just-bash with a signal |',
)
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |')
for (const [step] of STEPS) {
  const base = p50('just-bash, in process', step)
  const signal = p50('just-bash with a signal, in process', step)
  const tool = p50('bash tool, in process', step)
  const mcp = p50('bash tool, server /mcp', step)
  const ratio = mcp / base
  console.log(
    `| ${step} | ${fmt(base)} | ${fmt(signal)} | ${fmt(tool)} | ${fmt(mcp)} | ${ratio.toFixed(2)}× | ≤ 1.5× | ${ratio <= 1.5 ? 'yes' : '**no**'} | ${(mcp / signal).toFixed(2)}× |`,
  )
}

console.log(`\nOther common commands, same files, same rounds (p50 ms; no goal of their own)\n`)
console.log(
  '| script | just-bash, in process | just-bash with a signal | bash tool, in process | bash tool, server /mcp | /mcp ÷ just-bash |',
)
console.log('| --- | --- | --- | --- | --- | --- |')
for (const [step] of MORE_STEPS) {
  const base = p50('just-bash, in process', step)
  const mcp = p50('bash tool, server /mcp', step)
  console.log(
    `| ${step} | ${fmt(base)} | ${fmt(p50('just-bash with a signal, in process', step))} | ${fmt(p50('bash tool, in process', step))} | ${fmt(mcp)} | ${(mcp / base).toFixed(2)}× |`,
  )
}

if (other) {
  console.log(`\nThis build's /mcp against ${values.against} (same run, interleaved; p50 ms)\n`)
  console.log('| script | that build | this build | this ÷ that |')
  console.log('| --- | --- | --- | --- |')
  for (const [step] of [...STEPS, ...MORE_STEPS]) {
    const that = p50('server /mcp, --against build', step)
    const now = p50('bash tool, server /mcp', step)
    console.log(`| ${step} | ${fmt(that)} | ${fmt(now)} | ${(now / that).toFixed(2)}× |`)
  }
}
