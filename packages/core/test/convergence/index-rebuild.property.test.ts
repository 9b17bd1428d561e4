/**
 * Property test (issue 3, point 6): the path index of every replica equals a
 * from-scratch rebuild after any sequence of local and remote row updates.
 *
 * Rows are written straight to the files table — so parents can be missing,
 * be files, form cycles or arrive after their children — on 3 docs whose
 * updates are delivered pairwise, partially and out of order. After each
 * step a replica may be compared (effective parents, display names, paths,
 * child lists, counters) with an index rebuilt from its doc, or only looked
 * into (the index names folders lazily, so partial reads matter).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { asFileId, createFileSystemIndex, createFilesTable, type FileRow } from '../../src/index.js'
import { fuzzParameters } from '../../src/testing/fuzz-parameters.js'
import { dumpIndex } from '../../src/testing/index.js'

const { runs, seed, path } = fuzzParameters(1000)
const N = 3
const ids = ['i0', 'i1', 'i2', 'i3', 'i4', 'i5'] as const

const rowArb = fc.record({
  id: fc.constantFrom(...ids),
  // '..' and '%2E%2E' (its safe name, names.ts) are shown alike: suffixes must still agree.
  name: fc.constantFrom('a', 'a', 'b', 'a (1)', 'c.md', '..', '%2E%2E'),
  parentId: fc.constantFrom<string | null>(null, null, ...ids),
  type: fc.constantFrom('folder', 'folder', 'file', 'symlink'),
  size: fc.nat(3),
  createdAt: fc.nat(2),
  updatedAt: fc.nat(2),
  trashedAt: fc.constantFrom(null, null, null, 5),
})

type Op =
  | { k: 'set'; r: number; rows: (typeof rowArb extends fc.Arbitrary<infer T> ? T : never)[] }
  | { k: 'delete'; r: number; ids: string[] }
  | { k: 'deliver'; from: number; to: number; count: number; skip: number }
  | { k: 'look'; r: number; id: string }
  | { k: 'check'; r: number }

const replica = fc.nat(N - 1)
const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    arbitrary: fc.record({
      k: fc.constant('set' as const),
      r: replica,
      rows: fc.array(rowArb, { minLength: 1, maxLength: 3 }),
    }),
    weight: 5,
  },
  fc.record({
    k: fc.constant('delete' as const),
    r: replica,
    ids: fc.subarray([...ids], { minLength: 1, maxLength: 2 }),
  }),
  {
    arbitrary: fc.record({
      k: fc.constant('deliver' as const),
      from: replica,
      to: replica,
      count: fc.integer({ min: 1, max: 4 }),
      skip: fc.nat(3),
    }),
    weight: 4,
  },
  fc.record({ k: fc.constant('look' as const), r: replica, id: fc.constantFrom(...ids) }),
  { arbitrary: fc.record({ k: fc.constant('check' as const), r: replica }), weight: 2 },
)

describe('the incremental index equals a rebuild', () => {
  it(`after any sequence of local and remote row updates (${runs} runs)`, () => {
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 40 }), (ops) => {
        const docs = Array.from({ length: N }, () => new Y.Doc())
        // A frozen wall clock: equal timestamps across replicas exercise the tie-break.
        const tables = docs.map((doc) => createFilesTable(doc, { clock: () => 1000 }))
        const indexes = tables.map((t) => createFileSystemIndex(t))
        // queues[from][to]: updates made on `from`, not yet applied on `to`.
        const queues = docs.map(() => docs.map((): Uint8Array[] => []))
        for (const [from, doc] of docs.entries()) {
          doc.on('update', (update: Uint8Array, origin: unknown) => {
            if (origin === 'remote') return
            for (let to = 0; to < N; to++) if (to !== from) queues[from]![to]!.push(update)
          })
        }
        const check = (r: number) => {
          const rebuilt = createFileSystemIndex(createFilesTable(docs[r]!))
          expect(dumpIndex(indexes[r]!, tables[r]!)).toEqual(dumpIndex(rebuilt, tables[r]!))
          rebuilt.destroy()
        }
        for (const op of ops) {
          switch (op.k) {
            case 'set':
              tables[op.r]!.batch(() => {
                for (const row of op.rows) {
                  tables[op.r]!.set({
                    ...row,
                    id: asFileId(row.id),
                    parentId: row.parentId === null ? null : asFileId(row.parentId),
                  } as FileRow)
                }
              })
              break
            case 'delete':
              tables[op.r]!.delete(op.ids.map(asFileId))
              break
            case 'deliver': {
              // Updates may arrive out of order (Yjs holds those whose dependencies are missing).
              const queue = queues[op.from]![op.to]!
              const at = Math.min(op.skip, Math.max(0, queue.length - 1))
              for (const u of queue.splice(at, op.count)) Y.applyUpdate(docs[op.to]!, u, 'remote')
              break
            }
            case 'look':
              indexes[op.r]!.pathOf(asFileId(op.id))
              break
            case 'check':
              check(op.r)
              break
          }
        }
        // Full sync: everyone gets everything, then all indexes equal a rebuild and each other.
        for (let from = 0; from < N; from++)
          for (let to = 0; to < N; to++)
            for (const u of queues[from]![to]!.splice(0)) Y.applyUpdate(docs[to]!, u, 'remote')
        for (let r = 0; r < N; r++) check(r)
        const dumps = indexes.map((index, r) => dumpIndex(index, tables[r]!))
        for (const d of dumps) expect(d).toEqual(dumps[0])
        for (const d of docs) d.destroy()
      }),
      { numRuns: runs, seed, path, verbose: 1 },
    )
  }, 3_600_000)
})
