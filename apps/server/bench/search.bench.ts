/**
 * Search benchmarks (issue 24), all in one run on one generated corpus of
 * 4,000 Markdown files (~31.5 MiB, `markdownCorpus` of @yfs/core/testing):
 *
 * - the in-process index (core `SearchIndex`): build time and memory, p50 and
 *   p99 of rare and common literals and of regexes, the update cost of one
 *   edited 10 KB file;
 * - the PostgreSQL index (`pg_trgm`) through a connected client (a read
 *   token, over the WebSocket), when PostgreSQL is reachable;
 * - `grep -r` through just-bash on the filesystem, with and without the index
 *   (outputs checked equal);
 * - ripgrep on the same texts exported to disk (installed with
 *   `apt-get install -y ripgrep` when missing and possible).
 *
 * Writes the section between `<!-- search:start -->` and `<!-- search:end -->`
 * of docs/benchmarks.md. Run: `node --expose-gc --import tsx bench/search.bench.ts`
 * (`pnpm bench` in apps/server). YFS_BENCH_RUNS sets the runs per query (default 30).
 * `YFS_BENCH_SCOPE=in-process` runs only the in-process index (build, queries, update) and
 * prints its figures without touching docs/benchmarks.md; `YFS_BENCH_DUMP=<file>` also writes
 * every query's first pages (JSON) there, to compare results before and after a change.
 */
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createIndexedGrep } from '@yfs/agent'
import { connectWorkspace } from '@yfs/client'
import { createFileSystem, SearchIndex, type SearchRequest, type YjsFileSystem } from '@yfs/core'
import { markdownCorpus } from '@yfs/core/testing'
import { markdownCodec } from '@yfs/markdown'
import { Bash } from 'just-bash'
import { createPostgresStore } from '../src/persistence/postgres-store.js'
import { startTestServer } from '../test/helpers.js'
import { dropSchema, POSTGRES_URL, postgresAvailable, testSchema } from '../test/services.js'
import { percentile } from './stats.js'

const RUNS = Number(process.env.YFS_BENCH_RUNS ?? 30)
const SCOPE = process.env.YFS_BENCH_SCOPE ?? 'all'
const DUMP = process.env.YFS_BENCH_DUMP
const FILES = 4000
const BYTES = 31.5 * 1024 * 1024

const gc = (globalThis as { gc?: () => void }).gc
// Heap plus array buffers: posting lists are typed arrays, outside the JS heap.
const heap = () => {
  gc?.()
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}
const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2))
const progress = (m: string) => process.stderr.write(`\r\x1b[K${m}`)

interface Timing {
  p50: number
  p99: number
  min: number
}

async function timeIt(runs: number, fn: () => Promise<unknown> | unknown): Promise<Timing> {
  await fn()
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t = performance.now()
    await fn()
    times.push(performance.now() - t)
  }
  times.sort((a, b) => a - b)
  return { p50: percentile(times, 50), p99: percentile(times, 99), min: times[0]! }
}

const fmtT = (t: Timing | undefined) => (t ? `${ms(t.p50)} / ${ms(t.p99)}` : '–')

interface Query {
  name: string
  request: SearchRequest
  /** The same search for ripgrep (files with a match, case-insensitive unless said). */
  rg: string[]
  /** The same search for `grep -r` (lists matching files); none where a full scan takes minutes. */
  grep?: string
  goal: number
}

const QUERIES: Query[] = [
  {
    name: 'rare literal `quasarflux` (3 files)',
    request: { query: 'quasarflux' },
    rg: ['-i', '-c', '--fixed-strings', 'quasarflux'],
    grep: 'grep -ril quasarflux /notes',
    goal: 10,
  },
  {
    name: 'medium literal `ticket YFS-12` (case-sensitive)',
    request: { query: 'ticket YFS-12', caseSensitive: true },
    rg: ['-c', '--fixed-strings', 'ticket YFS-12'],
    grep: "grep -rlF 'ticket YFS-12' /notes",
    goal: 10,
  },
  {
    name: 'common literal `the` (every file)',
    request: { query: 'the' },
    rg: ['-i', '-c', '--fixed-strings', 'the'],
    grep: 'grep -ril the /notes',
    goal: 10,
  },
  {
    name: 'rare regex `quasar\\w+ regulator`',
    request: { query: 'quasar\\w+ regulator', regex: true },
    rg: ['-i', '-c', 'quasar\\w+ regulator'],
    grep: "grep -rilE 'quasar[a-z]+ regulator' /notes",
    goal: 50,
  },
  {
    name: 'common regex `YFS-\\d+`',
    request: { query: 'YFS-\\d+', regex: true },
    rg: ['-i', '-c', 'YFS-\\d+'],
    goal: 50,
  },
  {
    name: 'regex without trigrams `\\d{4}-\\d+-\\d+`',
    request: { query: '\\d{4}-\\d+-\\d+', regex: true },
    rg: ['-i', '-c', '\\d{4}-\\d+-\\d+'],
    goal: 50,
  },
]

function ensureRipgrep(): string | undefined {
  const found = spawnSync('rg', ['--version'])
  if (found.status === 0) return String(found.stdout).split('\n')[0]
  if (process.getuid?.() !== 0) {
    console.error('ripgrep missing and not root: apt-get install -y ripgrep to compare with it')
    return undefined
  }
  progress('installing ripgrep (apt-get install -y ripgrep)')
  let installed = spawnSync('apt-get', ['install', '-y', 'ripgrep'], { stdio: 'ignore' })
  if (installed.status !== 0) {
    spawnSync('apt-get', ['update'], { stdio: 'ignore' })
    installed = spawnSync('apt-get', ['install', '-y', 'ripgrep'], { stdio: 'ignore' })
  }
  const again = spawnSync('rg', ['--version'])
  if (again.status === 0) return String(again.stdout).split('\n')[0]
  console.error('ripgrep could not be installed (apt-get failed): the ripgrep column stays empty')
  return undefined
}

async function inProcess(fs: YjsFileSystem) {
  const before = heap()
  const t = performance.now()
  const index = new SearchIndex(fs)
  await index.ready
  const build = performance.now() - t
  const memory = heap() - before
  const stats = index.stats()
  const times = new Map<string, Timing>()
  const totals = new Map<string, number>()
  for (const q of QUERIES) {
    progress(`in-process: ${q.name}`)
    const runs = q.name.startsWith('regex without') ? Math.min(RUNS, 3) : RUNS
    times.set(q.name, await timeIt(runs, () => index.search(q.request)))
    totals.set(q.name, (await index.search(q.request)).total)
  }
  // The update cost of one edited 10 KB file: the re-read, fold and trigrams of it.
  const path = '/notes/edited.md'
  const text = readFileSync(fileURLToPath(import.meta.url), 'utf8').slice(0, 10_000)
  await fs.writeFile(path, text)
  await index.refresh()
  const updates: number[] = []
  for (let i = 0; i < RUNS; i++) {
    await fs.writeFile(path, `${text.slice(0, 9_990)} edit ${i}\n`)
    const t0 = performance.now()
    await index.refresh()
    updates.push(performance.now() - t0)
  }
  updates.sort((a, b) => a - b)
  await fs.rm(path)
  await index.refresh()
  return {
    index,
    build,
    memory,
    stats,
    times,
    totals,
    update: { p50: percentile(updates, 50), p99: percentile(updates, 99), min: updates[0]! },
  }
}

async function grepRuns(fs: YjsFileSystem, index: SearchIndex) {
  const plain = new Bash({ fs, cwd: '/' })
  const grep = createIndexedGrep(fs, index)
  const fast = new Bash({ fs: grep.view(fs), cwd: '/', customCommands: [grep.command] })
  const rows = new Map<string, { plain: Timing; indexed: Timing }>()
  for (const q of QUERIES) {
    if (!q.grep) continue
    progress(`grep -r: ${q.name}`)
    // A full scan with a regex takes seconds here: regexes are timed on one run each (after the
    // run that checks both outputs equal), literals on a few.
    const times = { plain: [] as number[], indexed: [] as number[] }
    const runs = q.request.regex ? 1 : Math.max(3, Math.round(RUNS / 10))
    for (let i = 0; i <= runs; i++) {
      let t = performance.now()
      const a = await plain.exec(q.grep!)
      const tp = performance.now() - t
      t = performance.now()
      const b = await fast.exec(q.grep!)
      const ti = performance.now() - t
      if (a.stdout !== b.stdout || a.exitCode !== b.exitCode)
        throw new Error(`grep outputs differ for ${q.grep}`)
      // The first pair warms up (and, for the index, may still read files it queued).
      if (i === 0 && runs > 1) continue
      times.plain.push(tp)
      times.indexed.push(ti)
    }
    const sample = (xs: number[]): Timing => {
      xs.sort((x, y) => x - y)
      return { p50: percentile(xs, 50), p99: percentile(xs, 99), min: xs[0]! }
    }
    rows.set(q.name, { plain: sample(times.plain), indexed: sample(times.indexed) })
  }
  return rows
}

async function ripgrep(fs: YjsFileSystem) {
  const version = ensureRipgrep()
  if (!version) return undefined
  const dir = mkdtempSync(join(tmpdir(), 'yfs-rg-'))
  try {
    for (const row of fs.table.rows()) {
      const path = fs.index.pathOf(row.id)
      if (row.type !== 'file' || path === undefined) continue
      const file = join(dir, path)
      mkdirSync(dirname(file), { recursive: true })
      writeFileSync(file, (await fs.readPlaintext(row.id)) ?? '')
    }
    spawnSync('rg', ['-c', 'warm', dir], { stdio: 'ignore' }) // page cache warm (exit 1: no match)
    const times = new Map<string, Timing>()
    for (const q of QUERIES) {
      progress(`ripgrep: ${q.name}`)
      const runs = Math.max(5, Math.round(RUNS / 3))
      times.set(
        q.name,
        await timeIt(runs, () => spawnSync('rg', [...q.rg, dir], { maxBuffer: 64 * 1024 * 1024 })),
      )
    }
    return { version, times }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function postgres(files: { path: string; text: string }[]) {
  if (!(await postgresAvailable())) return undefined
  const schema = testSchema('yfs_bench')
  const store = await createPostgresStore({ url: POSTGRES_URL, schema, max: 8 })
  const server = await startTestServer({ store })
  try {
    const tokens = await server.workspace('bench')
    // Bulk stores of 2 MiB chunks on a loaded 2-core machine: more than the default 10 s each.
    const writer = await connectWorkspace({
      url: server.url,
      workspace: 'bench',
      token: tokens.write,
      timeoutMs: 300_000,
      fs: { codecs: [markdownCodec] },
    })
    progress('PostgreSQL: uploading the corpus')
    await writer.fs.writeTree(files.map((f) => ({ path: f.path, content: f.text })))
    await writer.flush(600_000)
    await writer.close()
    const reader = await connectWorkspace({
      url: server.url,
      workspace: 'bench',
      token: tokens.read,
      timeoutMs: 300_000,
      fs: { codecs: [markdownCodec] },
    })
    try {
      progress('PostgreSQL: first search (builds the plaintext index and the in-memory one)')
      const t = performance.now()
      await reader.searcher.search({ query: 'warm' })
      const build = performance.now() - t
      const times = new Map<string, Timing>()
      for (const q of QUERIES) {
        progress(`PostgreSQL: ${q.name}`)
        const runs = q.name.startsWith('regex without') ? Math.min(RUNS, 3) : RUNS
        times.set(q.name, await timeIt(runs, () => reader.searcher.search(q.request)))
      }
      return { build, times }
    } finally {
      await reader.close()
    }
  } finally {
    await server.close()
    await store.close()
    await dropSchema(schema)
  }
}

async function main(): Promise<void> {
  progress('generating the corpus')
  const corpus = markdownCorpus(FILES, BYTES)
  const fs = createFileSystem({ codecs: [markdownCodec] })
  progress('loading it into a filesystem (Markdown codec)')
  await fs.writeTree(corpus.map((f) => ({ path: f.path, content: f.text })))
  const texts: { path: string; text: string }[] = []
  let chars = 0
  for (const row of fs.table.rows()) {
    const path = fs.index.pathOf(row.id)
    const text = row.type === 'file' ? await fs.readPlaintext(row.id) : undefined
    if (path !== undefined && text !== undefined) {
      texts.push({ path, text })
      chars += Buffer.byteLength(text)
    }
  }
  const local = await inProcess(fs)
  if (DUMP) {
    const pages: unknown[] = []
    for (const q of QUERIES)
      for (const page of [{}, { offset: 20 }, { offset: 195, limit: 10 }, { limit: 200, matchesPerFile: 20 }])
        pages.push({
          request: { ...q.request, ...page },
          result: await local.index.search({ ...q.request, ...page }),
        })
    writeFileSync(DUMP, JSON.stringify(pages))
  }
  if (SCOPE === 'in-process') {
    progress('')
    const rows = QUERIES.map(
      (q) =>
        `| ${q.name} | ${local.totals.get(q.name)} | ${fmtT(local.times.get(q.name))} | ≤ ${q.goal} ms |`,
    )
    process.stdout.write(
      [
        `in-process only: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}, load ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')} at the end, ${RUNS} runs`,
        '| query | files | p50 / p99 ms | goal |',
        '| --- | --- | --- | --- |',
        ...rows,
        `| update after editing one 10 KB file | | ${fmtT(local.update)} | ≤ 1 ms |`,
        `build ${ms(local.build)} ms, memory ${(local.memory / 1024 / 1024).toFixed(1)} MiB (posting lists ${(local.stats.postingBytes / 1024 / 1024).toFixed(1)} MiB)`,
        '',
      ].join('\n'),
    )
    fs.destroy()
    return
  }
  const rg = await ripgrep(fs).catch((error: unknown) => {
    console.error(`ripgrep failed: ${(error as Error).message}`)
    return undefined
  })
  const pg = await postgres(texts).catch((error: unknown) => {
    console.error(`PostgreSQL failed: ${(error as Error).message}`)
    return undefined
  })
  const greps = await grepRuns(fs, local.index)
  progress('')

  const met = (ok: boolean) => (ok ? 'yes' : '**no**')
  const ratio = (a: number, b: number | undefined) =>
    b === undefined ? '–' : `${a / b >= 0.1 ? (a / b).toFixed(2) : (a / b).toPrecision(2)}×`
  const rows = QUERIES.map((q) => {
    const mine = local.times.get(q.name)!
    const pgt = pg?.times.get(q.name)
    const rgt = rg?.times.get(q.name)
    const goal = `≤ ${q.goal} ms`
    return [
      q.name,
      String(local.totals.get(q.name)),
      fmtT(mine),
      fmtT(pgt),
      rgt ? ms(rgt.p50) : '–',
      ratio(mine.p50, rgt?.p50),
      goal,
      met(mine.p50 <= q.goal),
      pg ? met(pgt!.p50 <= q.goal) : '–',
      rgt ? met(mine.p50 < rgt.p50) : '–',
    ]
  })
  const grepRows = QUERIES.filter((q) => q.grep).map((q) => {
    const g = greps.get(q.name)!
    const rgt = rg?.times.get(q.name)
    return [
      `\`${q.grep}\``,
      ms(g.plain.p50),
      ms(g.indexed.p50),
      ratio(g.indexed.p50, g.plain.p50),
      rgt ? ms(rgt.p50) : '–',
      ratio(g.indexed.p50, rgt?.p50),
    ]
  })
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  const table = (head: string[], body: string[][]) =>
    [line(head), line(head.map(() => '---')), ...body.map(line)].join('\n')
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`
  const section = [
    '<!-- search:start -->',
    '## Search (`apps/server/bench/search.bench.ts`, issue 24)',
    '',
    `Run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model.trim()}, load ${loadavg()[0]!.toFixed(1)} at the end.`,
    `Corpus: ${texts.length} generated Markdown files (\`markdownCorpus\`: Zipf prose, headings, lists, links, code), ${mib(chars)} of text, stored with the Markdown codec.`,
    `Times are p50 / p99 over ${RUNS} runs after a warm-up (regexes without trigrams: 3 runs), in ms. A search is ranked and paged: in process, candidates are scanned in full best first by a bound on their matching lines (line counts kept in the trigram index) until the first 20 files are certain, the others only checked for one match (for the total). The server does the same on PostgreSQL with an in-memory index per workspace searched (built at its first search from the stored texts, within its memory budget).`,
    '',
    '### Search latency',
    '',
    table(
      [
        'query',
        'files',
        'in-process',
        `PostgreSQL${pg ? '' : ' (unreachable)'}`,
        `ripgrep${rg ? '' : ' (missing)'} p50`,
        'in-process / rg',
        'goal (p50)',
        'met in-process',
        'met PostgreSQL',
        'beats rg',
      ],
      rows,
    ),
    '',
    `ripgrep: \`${rg?.version ?? 'not installed'}\` over the same texts exported to a temporary folder (page cache warm), \`rg -c\` (-i unless the query is case-sensitive), timed from spawn to exit. PostgreSQL: a client with a read token asks the server (\`yfs.search.1\` over the WebSocket); the server checks that every text is current, then ranks in its in-memory index of the workspace (past its memory budget: the \`pg_trgm\` query, fetching the candidates' texts and ranking them all).`,
    '',
    '### Index',
    '',
    table(
      ['what', 'value', 'goal', 'met'],
      [
        ['in-process build (read, fold, trigrams of every file)', `${ms(local.build)} ms`, '', ''],
        [
          'in-process memory (heap + array buffers growth after GC; the texts are shared with the plaintext cache)',
          `${mib(local.memory)} (posting lists ${mib(local.stats.postingBytes)}, ${local.stats.trigrams} trigrams, ${(local.stats.chars / 1e6).toFixed(1)} M characters)`,
          '',
          '',
        ],
        [
          'update after editing one 10 KB file (index.refresh: re-read, fold, trigrams)',
          `${ms(local.update.p50)} / ${ms(local.update.p99)} ms`,
          '≤ 1 ms',
          met(local.update.p50 <= 1),
        ],
        pg
          ? [
              'PostgreSQL first search (server reads every file into the plaintext table and its memory index)',
              `${ms(pg.build)} ms`,
              '',
              '',
            ]
          : ['PostgreSQL', 'unreachable: not measured', '', ''],
      ],
    ),
    '',
    '### `grep -r` through just-bash (outputs checked equal)',
    '',
    "just-bash's grep reads and matches every file of a full scan in JavaScript: a full scan of the corpus takes seconds with `-i` and minutes with an `-E` regex that every file matches, so the common and trigram-less regexes are not run here. p50 in ms (regexes: one run).",
    '',
    table(['command', 'full scan', 'through the index', 'ratio', 'ripgrep', 'indexed / rg'], grepRows),
    '<!-- search:end -->',
  ].join('\n')
  process.stdout.write(`${section}\n`)
  const out = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url))
  const doc = readFileSync(out, 'utf8')
  const start = doc.indexOf('<!-- search:start -->')
  const end = doc.indexOf('<!-- search:end -->')
  writeFileSync(
    out,
    start >= 0 && end > start
      ? doc.slice(0, start) + section + doc.slice(end + '<!-- search:end -->'.length)
      : `${doc.trimEnd()}\n\n${section}\n`,
  )
  fs.destroy()
}

await main()
process.exit(0)
