/**
 * Property test (issue 3): 3–5 replicas apply random operations (write,
 * append, mkdir, mv, cp, rm, restore, empty-trash, crossed folder moves) with
 * random partial syncs through a hub, peer-to-peer deliveries, shuffled
 * delivery orders and content-doc evictions, then sync fully. Afterwards the
 * invariants of `checkConvergence` must hold: same tree and contents
 * everywhere, indexes equal a rebuild, unique paths, every active row
 * reachable, no written text lost or duplicated.
 *
 * CI runs 1,000 cases with a fixed seed; YFS_FUZZ_RUNS=100000 runs a long
 * search with a fresh seed, YFS_FUZZ_OPS=40 makes cases longer, and
 * YFS_FUZZ_SEED / YFS_FUZZ_PATH replay a reported failure (see
 * fuzz-parameters.ts).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fuzzParameters } from '../../src/testing/fuzz-parameters.js'
import {
  type ContentLog,
  checkConvergence,
  checkIndexes,
  createReplicaNetwork,
  replicaOpArbitrary,
  runReplicaOp,
} from '../../src/testing/index.js'

const { runs, seed, path } = fuzzParameters(1000)
// Operations per case; long runs may go deeper (YFS_FUZZ_OPS=40).
const maxOps = Number(process.env.YFS_FUZZ_OPS ?? 25)

// Frozen and skewed wall clocks make timestamps and createdAt tie across replicas,
// so the deterministic tie-breaks are exercised; 'shared' is one counter for all.
const clocks = {
  frozen: () => () => 1000,
  skewed: (i: number) => () => 1000 + (i % 2) * 3,
  shared: undefined,
}

describe('replicas converge whatever the operations and delivery order', () => {
  it(`holds for ${runs} random runs`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 5 }),
        fc.constantFrom('frozen' as const, 'skewed' as const, 'shared' as const),
        fc.nat(),
        fc.array(replicaOpArbitrary({ sharedFiles: ['/a/x'] }), { minLength: 1, maxLength: maxOps }),
        async (n, clock, networkSeed, ops) => {
          const net = createReplicaNetwork(n, { seed: networkSeed, clock: clocks[clock] })
          try {
            // A common starting tree, so crossed moves and writes into shared folders happen often.
            const first = net.replicas[0]!.fs
            await first.mkdir('/a/c', { recursive: true })
            await first.mkdir('/b')
            await first.writeFile('/a/x', 'base;')
            await net.syncAll()
            const log: ContentLog = new Map([
              [first.index.lookup('/a/x')!, [{ kind: 'write', text: 'base;' }]],
            ])
            for (const [seq, op] of ops.entries()) {
              await runReplicaOp(net, op, seq, log)
              // Indexes equal a rebuild at every step, not only once everything has arrived.
              expect(checkIndexes(net)).toEqual([])
            }
            await net.syncAll()
            expect(await checkConvergence(net, log)).toEqual([])
          } finally {
            net.destroy()
          }
        },
      ),
      { numRuns: runs, seed, path, verbose: 1 },
    )
  }, 3_600_000)
})
