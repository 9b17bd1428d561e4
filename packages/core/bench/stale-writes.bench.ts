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
    'Reading: with no concurrent change the two sides run the same code except a map lookup and a',
    'map set per read and write (the last-seen entry is lazy: no snapshot is taken until someone else',
    'changes the file), so row 1 is noise around 1.0 on a shared machine (0.99–1.11 in runs of the same',
    'build). Row 2 adds to the plain write the base (the Y.Text rendered at the snapshot, in place) and a',
    'line merge of three 1 MB texts (split with indexOf, common prefix and suffix trimmed, jsdiff on',
    'the rest): a few ms. The 20 ms goal is missed because the plain 1 MB write alone (the baseline',
    'column: diff against the current text, a history version, the row) takes about that long on this',
    "machine; node-diff3's LCS was not used: 0.7 s for 20k lines with two edits, against 7 ms for jsdiff.",
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
