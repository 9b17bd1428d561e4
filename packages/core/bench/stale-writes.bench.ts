/**
 * Stale-write benchmarks (issue 11), part of `pnpm bench` for @yfs/core:
 * 1. a read-then-write of a 100 KB file with no concurrent change, against
 *    the write path without stale-write tracking (`mergeStaleWrites: false`,
 *    what every write did before), interleaved; goal ≤ 5% overhead;
 * 2. a stale write of a 1 MB file with one remote edit (merge included),
 *    against the same write when nothing changed; goal ≤ 20 ms.
 * Results are checked equal before timing; the section of docs/benchmarks.md
 * between the stale-writes markers is rewritten.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import { createFileSystem, TEXT_KEY, type YjsFileSystem } from '../src/index.js'
import { createReplicaNetwork } from '../src/testing/index.js'
import { fmtSample, interleave, type Sample, summarize, table, time } from './harness.js'

const RUNS = Number(process.env.YFS_BENCH_RUNS ?? 60)

function text(bytes: number, tag: string): string {
  const lines: string[] = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const line = `${tag} line ${i} lorem ipsum dolor sit amet, consectetur adipiscing\n`
    lines.push(line)
    size += line.length
  }
  return lines.join('')
}

/** Change line `n` of a text. */
const edit = (t: string, n: number, what: string) => {
  const lines = t.split(/(?<=\n)/)
  lines[n] = `${what}\n`
  return lines.join('')
}

async function noConcurrentChange(): Promise<string[]> {
  const tracked = createFileSystem()
  const plain = createFileSystem({ mergeStaleWrites: false })
  const base = text(100 * 1024, 'x')
  for (const fs of [tracked, plain]) await fs.writeFile('/f.txt', base)
  let k = 0
  // Each call reads the file and writes it back with one line changed (an agent's read-modify-write).
  const step = (fs: YjsFileSystem, n: number) => async () => {
    const t = await fs.readFile('/f.txt')
    await fs.writeFile('/f.txt', edit(t, 500 + (n % 50), `edit ${n}`))
  }
  // Warm both paths up (JIT, the content docs' history) before timing.
  for (let i = 0; i < 20; i++) {
    await step(tracked, i)()
    await step(plain, i)()
  }
  if ((await tracked.readFile('/f.txt')) !== (await plain.readFile('/f.txt')))
    throw new Error('outputs differ')
  const [a, b] = await interleave(
    RUNS,
    () => step(tracked, ++k)(),
    () => step(plain, k)(),
  )
  const r = a.median / b.median
  return [
    'read + write of a 100 KB file, no concurrent change',
    fmtSample(a),
    fmtSample(b),
    r.toFixed(3),
    '≤ 1.05',
    r <= 1.05 ? 'yes' : '**no**',
  ]
}

async function staleWrite(): Promise<string[]> {
  const net = createReplicaNetwork(2)
  const [a, b] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
  const base = text(1024 * 1024, 'y')
  await a.writeFile('/big.txt', base)
  await a.writeFile('/fresh.txt', base)
  await net.syncAll()
  const stale: number[] = []
  const fresh: number[] = []
  for (let i = 0; i <= RUNS; i++) {
    // Stale: a reads, b's person types one word in the middle, the edit arrives, a writes its copy.
    const seen = await a.readFile('/big.txt')
    const handle = await b.pool.acquire(b.index.lookup('/big.txt')!)
    const t = handle.doc.getText(TEXT_KEY)
    handle.doc.transact(() => t.insert(Math.floor(t.length / 2), `w${i} `), 'editor')
    handle.release()
    await net.syncAll()
    const ours = edit(seen, 10, `agent ${i}`)
    const ts = await time(async () => {
      const r = await a.write('/big.txt', ours)
      if (!r.merged || r.conflict) throw new Error('expected a clean merge')
    })
    const merged = await a.readFile('/big.txt')
    if (!merged.includes(`agent ${i}\n`) || !merged.includes(`w${i} `)) throw new Error('merge lost an edit')
    // Fresh: the same write when nothing changed since the read.
    const seenFresh = await a.readFile('/fresh.txt')
    // The new text is made before timing, as for the stale write (only the write is timed).
    const oursFresh = edit(seenFresh, 10, `agent ${i}`)
    const tf = await time(() => a.write('/fresh.txt', oursFresh))
    if (i > 0) {
      stale.push(ts)
      fresh.push(tf)
    }
    await net.syncAll()
  }
  net.destroy()
  const s: Sample = summarize(stale)
  const f: Sample = summarize(fresh)
  return [
    'stale write of a 1 MB file with one remote edit (merge)',
    fmtSample(s),
    fmtSample(f),
    (s.median / f.median).toFixed(2),
    '≤ 20 ms',
    s.median <= 20 ? 'yes' : '**no**',
  ]
}

const load = () => loadavg()[0]!.toFixed(1)

async function main(): Promise<void> {
  const rows = [await noConcurrentChange(), await staleWrite()]
  const section = [
    '<!-- stale-writes:start -->',
    '## Stale writes (`packages/core/bench/stale-writes.bench.ts`)',
    '',
    `Interleaved after a warm-up, ${RUNS} runs, medians with (min–max). Row 1 compares the write path with`,
    'stale-write tracking to the same filesystem with `mergeStaleWrites: false` (the write path before',
    'issue 11); row 2 times a write that merges one remote edit (reconstructing the base from the last-seen',
    'snapshot, a line merge, the write) against the same write with nothing to merge.',
    '',
    table(['case', 'yfs', 'baseline', 'ratio', 'goal', 'met'], rows),
    '',
    `The table above is the last run of the bench (load ${load()} on a 2-core machine shared by 4 agents;`,
    'medians swing by 2× between runs at that load, so read the ratios and the summary below).',
    '',
    'Before/after the 2026-11-23 speed-up of the big-text write path, same bench, six interleaved runs of',
    'each build (load average 6.9–8.0 on 2 cores throughout, so far from quiet): medians of the six',
    'medians, with the lowest single write in brackets.',
    '',
    '| case | before (6ebaea9) | after | goal | met |',
    '| --- | --- | --- | --- | --- |',
    '| stale write of a 1 MB file with one remote edit (merge) | 57.6 ms (min 20.2) | 13.7 ms (min 5.3) | ≤ 20 ms | yes |',
    '| the same write with nothing to merge (baseline column) | 34.0 ms (min 12.1) | 3.0 ms (min 1.6) | | |',
    '| read + write of a 100 KB file, ratio tracked / untracked | 1.01 (0.61–1.08) | 1.00 (0.84–1.12) | ≤ 1.05 | yes |',
    '',
    'Reading: the goal is met, with room under load. Where the time went before (CPU profiles of the',
    'bench case): character loops over the megabyte, not Yjs. lib0 `simpleDiffString` compared the',
    'old and new text one character at a time (~6 ms per MB) and `utf8Length` counted bytes in a',
    'loop (~3 ms per MB, twice per write); both now work in chunks (`content/common-affix.ts`: slices',
    'compared with `===`, i.e. memcmp; `utf8Length`: `TextEncoder.encodeInto` 16 K characters at a',
    'time), under 0.2 ms per MB. The line merge no longer splits the three 1 MB texts',
    "into arrays of lines: each side's unchanged prefix and suffix are found on the characters, only",
    'the changed middles become lines for jsdiff, and unchanged runs are copied as slices of the base',
    '(a property test keeps it equal to the unit-array merge). A stale write also diffs against the',
    'text the merge already read instead of rendering the Y.Text again. What remains of a stale write',
    '(≈ 4× the plain write): rendering the base at the snapshot and the current text (two 1 MB strings',
    'built from Yjs items), indexing the lines of three texts, and joining the result. Row 1 runs the',
    'same code on both sides except a map lookup and a map set per read and write, so it is noise',
    'around 1.0 on this machine. (Until this change the baseline column also timed the making of the',
    "new 1 MB text in the bench itself; it now times the write only.) node-diff3's LCS was not used:",
    '0.7 s for 20k lines with two edits, against 7 ms for jsdiff.',
    '<!-- stale-writes:end -->',
  ].join('\n')
  process.stdout.write(`${section}\n`)
  const out = fileURLToPath(new URL('../../../docs/benchmarks.md', import.meta.url))
  const doc = readFileSync(out, 'utf8')
  const start = doc.indexOf('<!-- stale-writes:start -->')
  const end = doc.indexOf('<!-- stale-writes:end -->')
  const next =
    start >= 0 && end > start
      ? doc.slice(0, start) + section + doc.slice(end + '<!-- stale-writes:end -->'.length)
      : `${doc.trimEnd()}\n\n${section}\n`
  writeFileSync(out, next)
}

await main()
