/**
 * Activity log and undo (issue 23), against baselines in the same run:
 *
 * 1. Logging overhead per tool call: write_file of a 2 KB file on a registry
 *    that logs (activity entry, before/after versions) against the same call
 *    on a registry with `activity: false`, each on its own filesystem with the
 *    same content; interleaved after a warm-up, results checked equal.
 * 2. Undo of a 1,000-file session (1,000 write_file edits, one file each):
 *    `undo` through the registry against the least a revert must do, writing
 *    the 1,000 old texts back with fs.writeFile. Both must end in the state
 *    before the session.
 *
 * Rewrites its section of docs/benchmarks.md. Run: pnpm --filter @yfs/agent bench
 */
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { attachActivityLog, createFileSystem, type YjsFileSystem } from '@yfs/core'
import { markdownCodec } from '@yfs/markdown'
import { createMcpSession, createToolRegistry, listenMcpHttp } from '../src/index.js'
import { writeFileBody } from './write-file-body.js'

interface Sample {
  median: number
  min: number
  max: number
}
const summarize = (xs: number[]): Sample => {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return { median: s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2, min: s[0]!, max: s.at(-1)! }
}
const fmt = (ms: number) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(3))
const fmtSample = (s: Sample) => `${fmt(s.median)} ms (${fmt(s.min)}–${fmt(s.max)})`
/**
 * A workspace as agents meet it: stored or connected, so something listens to its main doc's
 * updates (the store, the provider). Core defers row writes on a doc nobody watches (there is
 * nobody to tell), which would leave the unlogged side's rows unwritten while the logged side's
 * activity append writes them: a cost that is the write's, not the log's.
 */
const newFs = () => {
  const fs = createFileSystem({ codecs: [markdownCodec], author: 'agent' })
  fs.doc.on('update', () => undefined)
  return fs
}

type Side = { execute(name: string, args: Record<string, unknown>): Promise<CallResult> }
type CallResult = { isError?: boolean; structuredContent: unknown; content: { text: string }[] }

/** An MCP client on an in-process MCP session (in-memory transport) in its own workspace. */
async function mcpSide(logging: boolean): Promise<Side> {
  const fs = newFs()
  const session = await createMcpSession({
    stores: { createPrivate: () => fs, open: () => fs, list: () => [] },
    ...(logging ? {} : { registry: { activity: false } }),
  })
  const [a, b] = InMemoryTransport.createLinkedPair()
  await session.server.connect(a)
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(b)
  return {
    execute: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as unknown as CallResult,
  }
}

/** A `listenMcpHttp` server on loopback with a workspace of its own. */
function serveHttp(logging: boolean) {
  const fs = newFs()
  return listenMcpHttp({
    stores: { createPrivate: () => fs, open: () => fs, list: () => [] },
    ...(logging ? {} : { registry: { activity: false } }),
  })
}

/** An MCP client over Streamable HTTP on loopback, in this process (a server of its own). */
async function httpSide(logging: boolean): Promise<Side & { close(): Promise<void> }> {
  const served = await serveHttp(logging)
  const client = new Client({ name: 'bench', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(served.url), {
      requestInit: { headers: { authorization: `Bearer ${served.token}` } },
    }),
  )
  return {
    execute: async (name, args) =>
      (await client.callTool({ name, arguments: args })) as unknown as CallResult,
    async close() {
      await client.close()
      await served.close()
    },
  }
}

/** The row of one overhead measurement; `roundTrip`: the 5 % share applies (a call over a transport). */
function overheadRow(label: string, logged: number[], plain: number[], roundTrip: boolean): string[] {
  const a = summarize(logged)
  const b = summarize(plain)
  const overhead = a.median - b.median
  const pct = (overhead / b.median) * 100
  return [
    label,
    fmtSample(a),
    fmtSample(b),
    `${fmt(overhead)} ms (${pct.toFixed(1)} %)`,
    roundTrip ? '≤ 0.2 ms and ≤ 5 %' : '≤ 0.2 ms',
    overhead <= 0.2 && (!roundTrip || pct <= 5) ? 'yes' : '**no**',
  ]
}

/**
 * Streamable HTTP on loopback with the MCP client in its own process (bench/mcp-http-client.ts),
 * as agents and IDEs are: the time a caller waits per call, interleaved over both servers.
 */
async function clientProcessOverhead(label: string): Promise<string[]> {
  const [logged, plain] = [await serveHttp(true), await serveHttp(false)]
  const plan = {
    servers: [logged, plain].map((s) => ({ url: s.url, token: s.token })),
    runs: 2000,
    warmup: 200,
  }
  const client = fileURLToPath(new URL('./mcp-http-client.ts', import.meta.url))
  const out = await new Promise<string>((resolve, reject) =>
    execFile(
      process.execPath,
      ['--import', 'tsx', client],
      { env: { ...process.env, BENCH_SERVERS: JSON.stringify(plan) }, maxBuffer: 1 << 26 },
      (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout)),
    ),
  )
  await logged.close()
  await plain.close()
  const [a, b] = JSON.parse(out) as [number[], number[]]
  return overheadRow(label, a, b, true)
}

/**
 * CPU per call, the deferred append included: back-to-back calls on the registry in process,
 * total time ÷ calls (the queue is appended every 256 calls here, inside the loop).
 */
async function cpuPerCall(): Promise<string[]> {
  const runs = 4000
  // A fresh workspace per run: the file's history grows with every write.
  const total = async (logging: boolean) => {
    const fs = newFs()
    const registry = createToolRegistry(fs, logging ? {} : { activity: false })
    for (let i = 0; i < 200; i++)
      await registry.execute('write_file', { path: 'vfs:///w.ts', content: writeFileBody(i) })
    const t = performance.now()
    for (let i = 0; i < runs; i++)
      await registry.execute('write_file', { path: 'vfs:///src/one.ts', content: writeFileBody(i) })
    attachActivityLog(fs.doc).flush()
    return (performance.now() - t) / runs
  }
  const a: number[] = []
  const b: number[] = []
  for (let r = 0; r < 3; r++) {
    a.push(await total(true))
    b.push(await total(false))
  }
  const la = summarize(a)
  const lb = summarize(b)
  return [
    `CPU per call, the deferred append included (${runs.toLocaleString('en')} back-to-back calls in process, mean per call; 3 runs)`,
    fmtSample(la),
    fmtSample(lb),
    `${fmt(la.median - lb.median)} ms (${(((la.median - lb.median) / lb.median) * 100).toFixed(1)} %)`,
    '',
    '',
  ]
}

async function loggingOverhead(
  label: string,
  logged: Side,
  plain: Side,
  roundTrip: boolean,
): Promise<string[][]> {
  const runs = 400
  const call = (i: number) => ({ path: 'vfs:///src/one.ts', content: writeFileBody(i) })
  const times = { logged: [] as number[], plain: [] as number[] }
  for (let i = 0; i < runs + 50; i++) {
    const order = i % 2 ? ([plain, logged] as const) : ([logged, plain] as const)
    const out: unknown[] = []
    for (const registry of order) {
      const t = performance.now()
      const r = await registry.execute('write_file', call(i))
      const dt = performance.now() - t
      if (r.isError) throw new Error(r.content[0]!.text)
      out.push(r.structuredContent)
      if (i >= 50) (registry === logged ? times.logged : times.plain).push(dt)
    }
    if (JSON.stringify(out[0]) !== JSON.stringify(out[1])) throw new Error('results differ')
  }
  return [overheadRow(label, times.logged, times.plain, roundTrip)]
}

const FILES = 1000
const text = (i: number) => `file ${i}\n${'hay hay hay\n'.repeat(20)}end\n`

/** A workspace of FILES files and a session that edited each once; returns the registry and what to expect. */
async function sessionOf1000(): Promise<{ fs: YjsFileSystem; session: string; before: string[] }> {
  const fs = newFs()
  await fs.writeTree(Array.from({ length: FILES }, (_, i) => ({ path: `/src/f${i}.txt`, content: text(i) })))
  const tools = createToolRegistry(fs)
  for (let i = 0; i < FILES; i++) {
    const r = await tools.execute('edit_file', {
      path: `vfs:///src/f${i}.txt`,
      old_text: 'end',
      new_text: 'END (agent)',
    })
    if (r.isError) throw new Error(r.content[0]!.text)
  }
  return { fs, session: tools.session, before: Array.from({ length: FILES }, (_, i) => text(i)) }
}

async function check(fs: YjsFileSystem, before: string[]) {
  for (let i = 0; i < FILES; i++)
    if ((await fs.readFile(`/src/f${i}.txt`)) !== before[i]) throw new Error(`f${i} not reverted`)
}

async function undo1000(): Promise<string[][]> {
  const runs = 3
  const times = { undo: [] as number[], dry: [] as number[], base: [] as number[] }
  for (let r = 0; r < runs; r++) {
    process.stderr.write(`\rundo of ${FILES} files: run ${r + 1}/${runs}`)
    {
      const { fs, session, before } = await sessionOf1000()
      const reviewer = createToolRegistry(fs)
      let t = performance.now()
      const dry = await reviewer.execute('undo', { session, dry_run: true })
      times.dry.push(performance.now() - t)
      t = performance.now()
      const res = await reviewer.execute('undo', { session })
      times.undo.push(performance.now() - t)
      if (res.isError || dry.isError) throw new Error(res.content[0]!.text)
      if ((res.structuredContent.reverted as unknown[]).length !== FILES) throw new Error('not all reverted')
      await check(fs, before)
    }
    {
      const { fs, before } = await sessionOf1000()
      const t = performance.now()
      for (let i = 0; i < FILES; i++) await fs.writeFile(`/src/f${i}.txt`, before[i]!)
      times.base.push(performance.now() - t)
      await check(fs, before)
    }
  }
  process.stderr.write('\n')
  const undo = summarize(times.undo)
  const base = summarize(times.base)
  return [
    [
      `undo of a ${FILES.toLocaleString('en')}-file session (${FILES.toLocaleString('en')} edit_file entries)`,
      fmtSample(undo),
      fmtSample(base),
      `${(undo.median / base.median).toFixed(1)}×`,
      '≤ 2 s',
      undo.median <= 2000 ? 'yes' : '**no**',
    ],
    [
      'the same undo, dry run',
      fmtSample(summarize(times.dry)),
      fmtSample(base),
      `${(summarize(times.dry).median / base.median).toFixed(1)}×`,
      '',
      '',
    ],
  ]
}

/** What the figures mean; kept here so a rerun rewrites it with the table. */
const READING = `
Reading: **the logging overhead goal is met where it is defined, on a round trip**: an MCP client
in its own process (as agents and IDEs are) waits no longer for a logged write_file than for an
unlogged one, within the noise of a 3–4 ms loopback round trip (three runs of 2,000 calls a side,
2026-11-27 at load 2–5: +0.010, −0.018 and +0.002 ms, ≤ 0.3 %; before this change the same
set-up measured +0.30 ms, 8 %). In process, where a call has no round trip, the overhead is
0.13–0.17 ms a call (≤ 0.2 ms in all three runs; 0.23 ms before). Two rows are **not** within the
goal and say what logging costs in the end: with the client in the server's own event loop (row 4:
0.46–0.51 ms, 11–13 %), the deferred append runs before the client reads its answer; and the CPU a
call costs, the append included, is 0.10–0.19 ms (row 5). What changed (2026-11-27): the entry is
built and appended after the call's result is on its way (\`log.enqueue\`: entries of one turn of
the event loop in one transaction; reads, a connection's flush and close, and \`fs.destroy\` append
what is queued first), the recording view and recorder are classes rather than a dozen closures a
call, a written path needs no \`realpath\` unless a symlink is on it, and a version keeps its state
vector so the next call's "changed since?" check does not decode its snapshot. What is left on the
call's path: the version before the call (\`saveVersion\`, ~20 µs), the newest version after it
(~8 µs), turning change events on for the call (~15 µs with the index's path walks) and the
recorder itself. The undo goal is met with room: 1,000 files in about 1 s, about 2× the bare
writes.`.split('\n')

const table = (head: string[], rows: string[][]) =>
  [head, head.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n')

const rows = [
  ...(await loggingOverhead(
    'write_file, 2 KB, registry in process (logged vs `activity: false`)',
    createToolRegistry(newFs()),
    createToolRegistry(newFs(), { activity: false }),
    false,
  )),
  ...(await loggingOverhead(
    'write_file, 2 KB, MCP client ↔ server (in-memory transport, one process)',
    await mcpSide(true),
    await mcpSide(false),
    false,
  )),
]
rows.push(
  await clientProcessOverhead(
    'write_file, 2 KB, MCP over Streamable HTTP (loopback), the client its own process',
  ),
)
{
  const [logged, plain] = [await httpSide(true), await httpSide(false)]
  rows.push(
    ...(await loggingOverhead(
      'the same, the client in the server’s process (one event loop for both)',
      logged,
      plain,
      true,
    )),
  )
  await logged.close()
  await plain.close()
}
rows.push(await cpuPerCall())
rows.push(...(await undo1000()))
const section = [
  '<!-- activity:start -->',
  '## Activity log and undo (`packages/agent/bench/activity.bench.ts`, issue 23)',
  '',
  `Run: ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, load ${loadavg()[0]!.toFixed(1)}. Medians with (min–max).`,
  'Rows 1, 2 and 4: 400 interleaved write_file calls on each side after 50 warm-up calls, results checked',
  'equal; the overhead is the difference of the medians, and its share of the unlogged call (row 1: a call',
  'on the registry in process; row 2: from an MCP client in process, JSON-RPC included; row 4: from an MCP',
  'client over Streamable HTTP on loopback in the servers’ own process, each side its own server). Row 3:',
  'the same over HTTP from an MCP client that is its own process (bench/mcp-http-client.ts), 2,000 calls',
  'per side after 200 warm-up calls: the round trip as an agent or IDE waits for it. The 5 % share is of a',
  'round trip (rows 3 and 4); an in-process call has none. Row 5: what logging costs in CPU, the deferred',
  'append included. Rows 6–7: three runs each; the baseline writes the 1,000 old texts back with',
  'fs.writeFile (the least a revert must do);',
  'both sides are checked to end in the state before the session.',
  '',
  table(['case', 'yfs', 'baseline', 'overhead / ratio', 'goal', 'met'], rows),
  ...READING,
  '<!-- activity:end -->',
].join('\n')
process.stdout.write(`${section}\n`)
const out = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url))
const doc = readFileSync(out, 'utf8')
const start = doc.indexOf('<!-- activity:start -->')
const end = doc.indexOf('<!-- activity:end -->')
writeFileSync(
  out,
  start >= 0 && end > start
    ? doc.slice(0, start) + section + doc.slice(end + '<!-- activity:end -->'.length)
    : `${doc.trimEnd()}\n\n${section}\n`,
)
