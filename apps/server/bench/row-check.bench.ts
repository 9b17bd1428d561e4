/**
 * Cost of the server's row check (src/protocol/row-check.ts) on main-doc
 * updates, next to what the server does with every update anyway: the
 * message guard's validity check (`isValidUpdate`, an apply to a scratch
 * doc) and the apply to the live doc.
 *
 *   npx tsx apps/server/bench/row-check.bench.ts [rows]
 *
 * Scenarios: a client writing `rows` files one update each (appended after
 * the server's rows: every item placed through the server's doc), the same
 * rows as one update, and the sync step 2 of a client holding them all
 * (against an empty server doc).
 */
import { createFileId, createFilesTable, type FileRow } from '@yfs/core'
import * as Y from 'yjs'
import { rowUpdateProblem } from '../src/protocol/row-check.js'
import { isValidUpdate } from '../src/protocol/sync-message.js'
import { fmt, median } from './stats.js'

const ROWS = Number(process.argv[2] ?? 10_000)

const newRow = (i: number): FileRow => ({
  id: createFileId(),
  name: `note-${i}.md`,
  parentId: null,
  type: 'file',
  size: 100 + i,
  createdAt: 1_700_000_000_000 + i,
  updatedAt: 1_700_000_000_000 + i,
  trashedAt: null,
  sv: 'AQKE7ZWxDgA=',
})

/** Microseconds per call of `fn` over `updates`, after `prepare` (repeated 5 times; the median). */
function perUpdate(
  updates: Uint8Array[],
  fn: (u: Uint8Array) => void,
  prepare: () => void = () => undefined,
) {
  const runs: number[] = []
  for (let r = 0; r < 5; r++) {
    prepare()
    const started = performance.now()
    for (const u of updates) fn(u)
    runs.push(((performance.now() - started) * 1000) / updates.length)
  }
  return median(runs)
}

// 1. One update per row, as a client writing files one after the other makes them.
const client = new Y.Doc()
const table = createFilesTable(client)
const single: Uint8Array[] = []
const record = (u: Uint8Array) => single.push(u)
client.on('update', record)
for (let i = 0; i < ROWS; i++) table.set(newRow(i))
client.off('update', record)

// The check of update i runs against the server doc holding updates 0..i-1, as live.
let server = new Y.Doc()
const checkThenApply = perUpdate(
  single,
  (u) => {
    if (rowUpdateProblem(u, server) !== undefined) throw new Error('refused a valid row')
    Y.applyUpdate(server, u)
  },
  () => {
    server = new Y.Doc()
  },
)
const applyOnly = perUpdate(
  single,
  (u) => Y.applyUpdate(server, u),
  () => {
    server = new Y.Doc()
  },
)
const guard = perUpdate(single, (u) => {
  if (!isValidUpdate(u)) throw new Error('invalid')
})

// 2. All rows in one update; 3. a client's sync step 2 with everything.
const batchDoc = new Y.Doc()
const batchTable = createFilesTable(batchDoc)
batchTable.batch(() => {
  for (let i = 0; i < ROWS; i++) batchTable.set(newRow(i))
})
const batch = Y.encodeStateAsUpdate(batchDoc)
const full = Y.encodeStateAsUpdate(client)
const once = (fn: () => void) => {
  const runs: number[] = []
  for (let r = 0; r < 5; r++) {
    const started = performance.now()
    fn()
    runs.push(performance.now() - started)
  }
  return median(runs)
}

const out = (line: string) => process.stdout.write(`${line}\n`)
out(`## Row check on main-doc updates (${ROWS} rows, median of 5 runs)`)
out('')
out('| update | row check | guard (isValidUpdate) | apply to the live doc |')
out('|---|---|---|---|')
out(
  `| one row per update (${single.length} updates) | ${fmt(checkThenApply - applyOnly, 1)} µs / update | ${fmt(guard, 1)} µs / update | ${fmt(applyOnly, 1)} µs / update |`,
)
out(
  `| ${ROWS} rows in one update (${fmt(batch.byteLength / 1024, 0)} KiB) | ${fmt(
    once(() => rowUpdateProblem(batch, new Y.Doc())),
  )} ms | ${fmt(once(() => isValidUpdate(batch)))} ms | ${fmt(once(() => Y.applyUpdate(new Y.Doc(), batch)))} ms |`,
)
out(
  `| sync step 2 of ${ROWS} single-row writes (${fmt(full.byteLength / 1024, 0)} KiB) | ${fmt(
    once(() => rowUpdateProblem(full, new Y.Doc())),
  )} ms | ${fmt(once(() => isValidUpdate(full)))} ms | ${fmt(once(() => Y.applyUpdate(new Y.Doc(), full)))} ms |`,
)
