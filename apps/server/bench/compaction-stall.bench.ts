/**
 * How long a large document's merge stalls the server's event loop (persistence/update-merger.ts).
 *
 * The main doc of a workspace of `--files` files (default 100,000) is stored as one row, then 256
 * small updates after it (what triggers a compaction). The same log is compacted and loaded by a
 * SQLite store merging inline (the baseline: how it was) and one merging on its worker thread,
 * alternating, `--rounds` times. While each runs, a 1 ms timer measures the event loop's longest
 * stall: the delay every other client of the server waits.
 *
 * Then a backup's read of a workspace of `--docs` content docs (default 20,000, two rows of 2 KB
 * each): one SELECT and every document merged in one go (the baseline: how it was), against the
 * store's `snapshotWorkspace` (pages on a read connection, merging in 10 ms slices).
 *
 *   node --import tsx bench/compaction-stall.bench.ts [--files N] [--docs N] [--rounds N]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { createFileSystem } from '@yfs/core'
import Database from 'better-sqlite3'
import * as Y from 'yjs'
import { createSqliteStore } from '../src/persistence/sqlite-store.js'
import { createUpdateMerger } from '../src/persistence/update-merger.js'
import { fmt, median } from './stats.js'

const { values } = parseArgs({
  options: {
    files: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '5' },
    docs: { type: 'string', default: '20000' },
  },
})
const FILES = Number(values.files)
const ROUNDS = Number(values.rounds)

process.stderr.write(`building a ${FILES.toLocaleString('en')}-file main doc…\n`)
const fs = createFileSystem()
await fs.writeTree(
  Array.from({ length: FILES }, (_, i) => ({ path: `/d${i % 100}/f${i}.txt`, content: 'x' })),
)
const base = Y.encodeStateAsUpdate(fs.doc)
const tail: Uint8Array[] = []
fs.doc.on('update', (u: Uint8Array) => tail.push(u))
for (let i = 0; i < 256; i++) await fs.writeFile(`/d${i % 100}/f${i}.txt`, `y${i}`)

/** Run `fn`, measuring the event loop's longest stall meanwhile (a 1 ms timer's largest gap). */
async function withStallMeter<T>(fn: () => Promise<T>): Promise<{ ms: number; stall: number }> {
  let last = performance.now()
  let stall = 0
  const timer = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last)
    last = now
  }, 1)
  const started = performance.now()
  await fn()
  const ms = performance.now() - started
  const now = performance.now()
  stall = Math.max(stall, now - last)
  clearInterval(timer)
  return { ms, stall }
}

const dir = mkdtempSync(join(tmpdir(), 'yfs-stall-'))
const results = new Map<
  string,
  { compact: number[]; compactStall: number[]; load: number[]; loadStall: number[] }
>()
const builds = [
  { name: 'inline merge (before)', merger: createUpdateMerger({ minBytes: Number.POSITIVE_INFINITY }) },
  { name: 'merge off the event loop', merger: createUpdateMerger() },
]
try {
  for (let r = 0; r < ROUNDS; r++) {
    process.stderr.write(`round ${r + 1}/${ROUNDS}\n`)
    for (const { name, merger } of r % 2 === 0 ? builds : [...builds].reverse()) {
      const store = createSqliteStore({ file: join(dir, `${r}-${name.length}.sqlite`), merger })
      await store.append('w', 'w', base)
      await store.appendMany(
        'w',
        tail.map((update) => ({ name: 'w', update })),
      )
      const res = results.get(name) ?? { compact: [], compactStall: [], load: [], loadStall: [] }
      results.set(name, res)
      // A load merges the same log (a client opening the workspace before any compaction).
      const load = await withStallMeter(() => store.load('w', 'w'))
      res.load.push(load.ms)
      res.loadStall.push(load.stall)
      const compact = await withStallMeter(() => store.compact('w', 'w'))
      res.compact.push(compact.ms)
      res.compactStall.push(compact.stall)
      await store.close()
    }
  }
} finally {
  for (const { merger } of builds) await merger.close()
  rmSync(dir, { recursive: true, force: true })
}

const mb = (base.byteLength / (1024 * 1024)).toFixed(1)
console.log(
  `\nCompaction and load of a ${FILES.toLocaleString('en')}-file main doc (${mb} MiB + 256 updates), SQLite, ${ROUNDS} rounds, medians in ms\n`,
)
console.log('| merge | load | longest event-loop stall | compaction | longest event-loop stall |')
console.log('| --- | --- | --- | --- | --- |')
for (const [name, r] of results)
  console.log(
    `| ${name} | ${fmt(median(r.load))} | ${fmt(median(r.loadStall))} | ${fmt(median(r.compact))} | ${fmt(median(r.compactStall))} |`,
  )
const [before, after] = [...results.values()]
if (before && after)
  console.log(
    `\nLongest stall during a compaction: ${fmt(median(after.compactStall))} ms against ${fmt(median(before.compactStall))} ms (${(median(after.compactStall) / median(before.compactStall)).toFixed(2)}×); during a load ${fmt(median(after.loadStall))} against ${fmt(median(before.loadStall))} ms.`,
  )

// --- a backup's read of a workspace of many documents ---
const DOCS = Number(values.docs)
process.stderr.write(`storing ${DOCS.toLocaleString('en')} documents…\n`)
const backupDir = mkdtempSync(join(tmpdir(), 'yfs-stall-backup-'))
const file = join(backupDir, 'yfs.sqlite')
const store = createSqliteStore({ file })
try {
  const rows: { name: string; update: Uint8Array }[] = []
  for (let i = 0; i < DOCS; i++) {
    const doc = new Y.Doc({ guid: `d${i}` })
    doc.on('update', (update: Uint8Array) => rows.push({ name: `w/f${String(i).padStart(21, '0')}`, update }))
    doc.getText('t').insert(0, 'x'.repeat(2000))
    doc.getText('t').insert(0, `${i}`)
  }
  for (let i = 0; i < rows.length; i += 5000) await store.appendMany('w', rows.slice(i, i + 5000))
  const reader = new Database(file, { readonly: true })
  const oneGo = async () => {
    const all = reader
      .prepare<[string], { doc: string; data: Buffer }>(
        'SELECT doc, data FROM updates WHERE workspace = ? ORDER BY doc, id',
      )
      .all('w')
    const byDoc = new Map<string, Uint8Array[]>()
    for (const row of all) byDoc.set(row.doc, [...(byDoc.get(row.doc) ?? []), row.data])
    for (const updates of byDoc.values()) Y.mergeUpdates(updates)
  }
  const backup = {
    oneGo: [] as number[],
    oneGoStall: [] as number[],
    store: [] as number[],
    storeStall: [] as number[],
  }
  for (let r = 0; r < ROUNDS; r++) {
    process.stderr.write(`backup round ${r + 1}/${ROUNDS}\n`)
    const a = await withStallMeter(oneGo)
    backup.oneGo.push(a.ms)
    backup.oneGoStall.push(a.stall)
    const b = await withStallMeter(() => store.snapshotWorkspace('w'))
    backup.store.push(b.ms)
    backup.storeStall.push(b.stall)
  }
  reader.close()
  console.log(
    `\nA backup's read of ${DOCS.toLocaleString('en')} documents (two rows of 2 KB each), SQLite, ${ROUNDS} rounds, medians in ms\n`,
  )
  console.log('| read | time | longest event-loop stall |')
  console.log('| --- | --- | --- |')
  console.log(
    `| one SELECT, every merge in one go (before) | ${fmt(median(backup.oneGo))} | ${fmt(median(backup.oneGoStall))} |`,
  )
  console.log(
    `| snapshotWorkspace (pages, 10 ms slices) | ${fmt(median(backup.store))} | ${fmt(median(backup.storeStall))} |`,
  )
} finally {
  await store.close()
  rmSync(backupDir, { recursive: true, force: true })
}
