/**
 * Index update cost for remote changes (issue 3): how long a replica takes
 * to apply another replica's Yjs update to its path index.
 *
 * Replica A writes rows straight into its files table; three receivers apply
 * the same updates: a bare files table (the Yjs decoding and LWW cost, the
 * baseline), a files table with the path index, and a full `YjsFileSystem`.
 * "index" = (table + index) − (table only). Every scenario runs on a tree of
 * 10,000 files in 100 folders, interleaved over the receivers, after warm-up.
 *
 * Run: `npx tsx bench/index-updates.bench.ts` (from packages/core).
 */
import { cpus } from 'node:os'
import * as Y from 'yjs'
import {
  asFileId,
  createFileSystem,
  createFileSystemIndex,
  createFilesTable,
  type FileId,
  type FileRow,
} from '../src/index.js'

const RUNS = Number(process.env.BENCH_RUNS ?? 15)
const FILES = 10_000
const FOLDERS = 100

const id = (prefix: string, k: number) => asFileId(`${prefix}${String(k).padStart(14, '0')}`)
const folderId = (k: number) => id('d', k)
const fileId = (k: number) => id('f', k)
const row = (
  rowId: FileId,
  name: string,
  parentId: FileId | null,
  type: FileRow['type'],
  t = 1,
): FileRow => ({
  id: rowId,
  name,
  parentId,
  type,
  size: type === 'file' ? 1 : 0,
  createdAt: 1,
  updatedAt: t,
  trashedAt: null,
})

interface Receiver {
  name: string
  doc: Y.Doc
  check(): string[]
}

function setup() {
  const a = new Y.Doc()
  const table = createFilesTable(a)
  const BIG = asFileId('big00000000000')
  const DEST = asFileId('dest0000000000')
  table.batch(() => {
    table.set(row(BIG, 'big', null, 'folder'))
    table.set(row(DEST, 'dest', null, 'folder'))
    for (let d = 0; d < FOLDERS; d++) table.set(row(folderId(d), `d${d}`, BIG, 'folder'))
    for (let k = 0; k < FILES; k++) table.set(row(fileId(k), `f${k}.ts`, folderId(k % FOLDERS), 'file'))
  })
  const base = Y.encodeStateAsUpdate(a)
  const fresh = () => {
    const doc = new Y.Doc()
    Y.applyUpdate(doc, base)
    return doc
  }
  const bare = fresh()
  const bareTable = createFilesTable(bare)
  const indexed = fresh()
  const index = createFileSystemIndex(createFilesTable(indexed))
  const fsDoc = fresh()
  const fs = createFileSystem({ doc: fsDoc })
  const receivers: Receiver[] = [
    { name: 'table only', doc: bare, check: () => [String(bareTable.size)] },
    { name: 'table + index', doc: indexed, check: () => index.allPaths() },
    { name: 'YjsFileSystem', doc: fsDoc, check: () => fs.index.allPaths() },
  ]
  // Name every folder once, as a replica that has listed its tree would have.
  for (const r of receivers) r.check()
  return { a, table, BIG, DEST, receivers }
}

/** Capture the update a change on A produces. */
function updateOf(a: Y.Doc, change: () => void): Uint8Array {
  const updates: Uint8Array[] = []
  const on = (u: Uint8Array) => updates.push(u)
  a.on('update', on)
  change()
  a.off('update', on)
  return Y.mergeUpdates(updates)
}

const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y)
  return s[Math.floor(s.length / 2)]!
}
const fmt = (ms: number) => (ms >= 10 ? ms.toFixed(1) : ms.toFixed(2))

interface Scenario {
  name: string
  /** Make the change on A for run `r` (alternating so repeated runs keep changing something). */
  change(env: ReturnType<typeof setup>, r: number): void
}

const scenarios: Scenario[] = [
  {
    name: 'move of a folder with 10,100 descendants',
    change: ({ table, BIG, DEST }, r) =>
      table.update(BIG, { parentId: r % 2 === 0 ? DEST : null, updatedAt: r + 2 }),
  },
  {
    name: '1,000 row updates in one transaction (size, mtime)',
    change: ({ table }, r) =>
      table.batch(() => {
        for (let k = 0; k < 1000; k++) table.update(fileId(k), { size: r + 2, updatedAt: r + 2 })
      }),
  },
  {
    name: '1,000 renames in one transaction',
    change: ({ table }, r) =>
      table.batch(() => {
        for (let k = 0; k < 1000; k++) table.update(fileId(k), { name: `r${r}-${k}.ts`, updatedAt: r + 2 })
      }),
  },
  {
    name: '1,000 moves across folders in one transaction',
    change: ({ table }, r) =>
      table.batch(() => {
        for (let k = 0; k < 1000; k++) table.update(fileId(k), { parentId: folderId((k + r + 1) % FOLDERS) })
      }),
  },
  {
    // The previous run's rows go in the same transaction, so the folder keeps its size.
    name: '1,000 creates (names clash) + 1,000 deletes in one listed folder',
    change: ({ table }, r) =>
      table.batch(() => {
        table.delete(Array.from({ length: 1000 }, (_, k) => id(`n${r - 1}x`, k)))
        for (let k = 0; k < 1000; k++) table.set(row(id(`n${r}x`, k), `f${k}.ts`, folderId(0), 'file', r + 2))
      }),
  },
  {
    name: 'crossed folder moves (a cycle broken by the index)',
    change: ({ table }, r) =>
      table.batch(() => {
        // d1 into d2 and d2 into d1 in one update, as two replicas' moves meet.
        const [x, y] = r % 2 === 0 ? [folderId(1), folderId(2)] : [folderId(2), folderId(1)]
        table.update(x, { parentId: y, updatedAt: 100 + r })
        table.update(y, { parentId: x, updatedAt: 100 + r })
      }),
  },
]

function main(): void {
  const env = setup()
  const rows: string[][] = []
  for (const scenario of scenarios) {
    process.stderr.write(`${scenario.name}…\n`)
    const times = new Map<string, number[]>(env.receivers.map((r) => [r.name, []]))
    for (let r = -2; r < RUNS; r++) {
      // The same update to every receiver, in a rotating order so none is always first.
      const update = updateOf(env.a, () => scenario.change(env, r + 2 + rows.length * 100))
      const order = [...env.receivers.keys()].map((k) => env.receivers[(k + r + 3) % env.receivers.length]!)
      for (const receiver of order) {
        const t = performance.now()
        Y.applyUpdate(receiver.doc, update)
        const ms = performance.now() - t
        if (r >= 0) times.get(receiver.name)!.push(ms)
      }
    }
    const [bare, indexed, fs] = env.receivers.map((r) => median(times.get(r.name)!))
    rows.push([
      scenario.name,
      fmt(bare!),
      fmt(indexed!),
      fmt(Math.max(0, indexed! - bare!)),
      fmt(fs!),
      indexed! - bare! <= 5 ? 'yes' : 'no',
    ])
  }
  // The receivers agree with each other and with a rebuild.
  const [, indexed, fs] = env.receivers.map((r) => JSON.stringify(r.check()))
  const rebuilt = JSON.stringify(createFileSystemIndex(createFilesTable(env.receivers[1]!.doc)).allPaths())
  if (indexed !== fs || indexed !== rebuilt) throw new Error('receivers differ')
  const head = ['remote change', 'table only', 'table + index', 'index', 'YjsFileSystem', 'index ≤ 5 ms']
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`
  console.log(
    [
      `Index update cost, median of ${RUNS} runs (ms), tree of ${FILES.toLocaleString('en')} files in ${FOLDERS} folders.`,
      `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}.`,
      '',
      line(head),
      line(head.map(() => '---')),
      ...rows.map(line),
    ].join('\n'),
  )
}

main()
