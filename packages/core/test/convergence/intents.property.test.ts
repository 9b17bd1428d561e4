/**
 * Property test (issue 22): concurrent actions never undo each other. 3–5
 * replicas rename, move, chmod, trash, restore and edit a few shared files
 * with random partial syncs between them (through the hub and peer to peer),
 * then sync fully. Afterwards, on every replica and on a fresh one, every
 * action that no later action of the same group on the same file superseded
 * is visible: the newest placement (name and parent), mode and trash state
 * of each file, every edit's text, and a row whose size and content version
 * describe the merged content.
 *
 * "Later" is the order the test runs the actions in: the network's shared
 * clock orders their timestamps the same way, whichever replica acts.
 * Names are unique per action, so no move replaces another file.
 *
 * CI runs 300 cases; YFS_FUZZ_RUNS / YFS_FUZZ_SEED / YFS_FUZZ_PATH as in the
 * other convergence properties (fuzz-parameters.ts).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { coversVersion, decodeContentVersion } from '../../src/content/content-versions.js'
import type { YjsFileSystem } from '../../src/fs/yjs-file-system.js'
import type { FileId } from '../../src/ids.js'
import { createReplicaNetwork } from '../../src/testing/index.js'
import { fuzzParameters } from './fuzz-parameters.js'

const { runs, seed, path } = fuzzParameters(300)

type Op =
  | {
      kind: 'rename' | 'move' | 'chmod' | 'rm' | 'restore' | 'append' | 'rewrite'
      replica: number
      file: number
      arg: number
    }
  | { kind: 'send'; replica: number; count: number }
  | { kind: 'receive'; replica: number; count: number }
  | { kind: 'deliver'; replica: number; to: number; count: number }

const replica = fc.nat(4)
const opArbitrary: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constantFrom(
        'rename' as const,
        'move' as const,
        'chmod' as const,
        'rm' as const,
        'restore' as const,
        'append' as const,
        'rewrite' as const,
      ),
      replica,
      file: fc.nat(2),
      arg: fc.nat(7),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      replica,
      count: fc.integer({ min: 1, max: 6 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('receive' as const),
      replica,
      count: fc.integer({ min: 1, max: 6 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('deliver' as const),
      replica,
      to: replica,
      count: fc.integer({ min: 1, max: 6 }),
    }),
  },
)

/** What the actions that count asked for, per file. */
interface Expected {
  placement: { name: string; parentId: string | null }
  mode: number | undefined
  trashed: boolean
  tokens: string[]
}

const MODES = [0o600, 0o640, 0o644, 0o700, 0o755, 0o444, 0o664, 0o750]

async function textOf(fs: YjsFileSystem, id: FileId): Promise<{ text: string; sv: Map<number, number> }> {
  const row = fs.table.get(id)!
  const handle = await fs.pool.acquire(id)
  try {
    return {
      text: fs.codecFor(row.name).read(handle.doc),
      sv: Y.decodeStateVector(Y.encodeStateVector(handle.doc)),
    }
  } finally {
    handle.release()
  }
}

describe('concurrent actions never undo each other', () => {
  it(`holds for ${runs} random runs`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 5 }),
        fc.nat(),
        fc.array(opArbitrary, { minLength: 1, maxLength: 30 }),
        async (n, networkSeed, ops) => {
          // Replica n is the fresh one: it takes part in nothing until the final sync.
          const net = createReplicaNetwork(n + 1, { seed: networkSeed })
          try {
            const first = net.replicas[0]!.fs
            await first.mkdir('/a')
            await first.mkdir('/b')
            const ids: FileId[] = []
            const expected = new Map<FileId, Expected>()
            for (let k = 0; k < 3; k++) {
              await first.writeFile(`/a/f${k}.txt`, `start ${k}\n`)
              const id = first.index.lookup(`/a/f${k}.txt`)!
              ids.push(id)
              const row = first.table.get(id)!
              expected.set(id, {
                placement: { name: row.name, parentId: row.parentId },
                mode: undefined,
                trashed: false,
                tokens: [`start ${k}`],
              })
            }
            const folders = [first.index.lookup('/a')!, first.index.lookup('/b')!]
            await net.syncAll()

            for (const [seq, op] of ops.entries()) {
              const r = op.replica % n
              if (op.kind === 'send') net.send(r, op.count)
              else if (op.kind === 'receive') net.receive(r, op.count, 'random')
              else if (op.kind === 'deliver') net.deliver(r, op.to % n, op.count)
              else {
                const fs = net.replicas[r]!.fs
                const id = ids[op.file]!
                const want = expected.get(id)!
                const row = fs.table.get(id)
                const where = fs.index.pathOf(id)
                if (!row) continue
                if (op.kind === 'restore') {
                  if (row.trashedAt === null) continue
                  fs.trash.restore(id)
                  const now = fs.table.get(id)!
                  want.trashed = false
                  want.placement = { name: now.name, parentId: now.parentId }
                  continue
                }
                // Every other action goes through the file's path: it must be visible here.
                if (where === undefined) continue
                if (op.kind === 'rename' || op.kind === 'move') {
                  const folder = op.kind === 'move' ? folders[op.arg % 2]! : row.parentId
                  const folderPath = folder === null ? '/' : fs.index.pathOf(folder as FileId)
                  if (folderPath === undefined) continue
                  await fs.mv(where, `${folderPath === '/' ? '' : folderPath}/n${seq}.txt`)
                  const now = fs.table.get(id)!
                  want.placement = { name: now.name, parentId: now.parentId }
                } else if (op.kind === 'chmod') {
                  await fs.chmod(where, MODES[op.arg]!)
                  want.mode = MODES[op.arg]
                } else if (op.kind === 'rm') {
                  await fs.rm(where)
                  want.trashed = true
                } else {
                  const token = `edit ${seq} on ${r}`
                  if (op.kind === 'append') await fs.appendFile(where, `${token}\n`)
                  else await fs.writeFile(where, `${await fs.readFile(where)}${token}\n`)
                  want.tokens.push(token)
                }
              }
            }
            await net.syncAll()

            for (const { fs, index } of net.replicas) {
              for (const id of ids) {
                const want = expected.get(id)!
                const row = fs.table.get(id)
                const at = `replica ${index}, file ${ids.indexOf(id)}`
                expect(row, at).toBeDefined()
                expect({ name: row!.name, parentId: row!.parentId }, at).toEqual(want.placement)
                expect(row!.mode, at).toBe(want.mode)
                expect(row!.trashedAt !== null, at).toBe(want.trashed)
                const { text, sv } = await textOf(fs, id)
                for (const token of want.tokens) expect(text.split('\n'), at).toContain(token)
                // The row describes the merged content: its size and version are not stale.
                expect(row!.size, at).toBe(new TextEncoder().encode(text).byteLength)
                expect(coversVersion(decodeContentVersion(row!.sv ?? ''), sv), at).toBe(true)
              }
            }
          } finally {
            net.destroy()
          }
        },
      ),
      { numRuns: runs, seed, path, verbose: 1 },
    )
  }, 3_600_000)
})
