// Markdown codec benchmarks (issue 4). Run: pnpm --filter @yfs/markdown bench
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import * as Y from 'yjs'
import { markdownCodec } from '../src/index.js'

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const fmt = (ms: number) => (ms < 1 ? ms.toFixed(3) : ms.toFixed(1))

// 1. A ~50 KB document: write then read, 100 times (each write after the first changes one paragraph).
const corpusDir = fileURLToPath(new URL('../test/corpus/', import.meta.url))
const corpus = readdirSync(corpusDir)
  .filter((f) => f.endsWith('.md') && !f.startsWith('02') && !f.startsWith('15'))
  .map((f) => readFileSync(corpusDir + f, 'utf8'))
  .join('\n\n')
let big = ''
for (let i = 0; big.length < 50_000; i++) big += `\n\n## Section ${i}\n\n${corpus}`
const doc = new Y.Doc({ gc: false })
const writes: number[] = []
const reads: number[] = []
let text = big
for (let i = 0; i < 100; i++) {
  text = text.replace(/Section \d+/, `Section changed ${i}`)
  let t = performance.now()
  markdownCodec.write(doc, text)
  writes.push(performance.now() - t)
  t = performance.now()
  markdownCodec.read(doc)
  reads.push(performance.now() - t)
  if (i % 10 === 9) process.stderr.write(`\r50 KB round ${i + 1}/100`)
}
process.stderr.write('\n')

// 2. One-paragraph change to a 500-paragraph document.
const paragraphs = Array.from(
  { length: 500 },
  (_, i) => `Paragraph ${i}: ${'lorem ipsum dolor sit amet '.repeat(4)}`,
)
const doc2 = new Y.Doc({ gc: false })
markdownCodec.write(doc2, `${paragraphs.join('\n\n')}\n`)
const docSize = Y.encodeStateAsUpdate(doc2).byteLength
const times: number[] = []
const sizes: number[] = []
for (let i = 0; i < 30; i++) {
  paragraphs[(i * 37) % 500] = `Paragraph changed in round ${i}.`
  let bytes = 0
  const onUpdate = (u: Uint8Array) => {
    bytes += u.byteLength
  }
  doc2.on('update', onUpdate)
  const t = performance.now()
  markdownCodec.write(doc2, `${paragraphs.join('\n\n')}\n`)
  times.push(performance.now() - t)
  doc2.off('update', onUpdate)
  sizes.push(bytes)
}

console.log(`| workload | median | min–max | goal | met |`)
console.log('|---|---|---|---|---|')
console.log(
  `| write ${(big.length / 1024).toFixed(0)} KB Markdown (one section renamed) | ${fmt(median(writes))} ms | ${fmt(Math.min(...writes))}–${fmt(Math.max(...writes))} ms | | |`,
)
console.log(
  `| read ${(big.length / 1024).toFixed(0)} KB Markdown | ${fmt(median(reads))} ms | ${fmt(Math.min(...reads))}–${fmt(Math.max(...reads))} ms | | |`,
)
const m = median(times)
console.log(
  `| one-paragraph change to a 500-paragraph document | ${fmt(m)} ms | ${fmt(Math.min(...times))}–${fmt(Math.max(...times))} ms | ≤ 10 ms | ${m <= 10 ? 'yes' : '**no**'} |`,
)
console.log(
  `| Yjs update size of that change | ${median(sizes)} B | ${Math.min(...sizes)}–${Math.max(...sizes)} B | proportional to the change (document: ${docSize.toLocaleString('en')} B) | ${median(sizes) < docSize / 50 ? 'yes' : '**no**'} |`,
)
