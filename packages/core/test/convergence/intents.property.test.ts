/**
 * Property test (issue 22): concurrent actions never undo each other. 3–5
 * replicas rename, move, chmod, trash, restore and edit a few shared files
 * with random partial syncs between them (through the hub and peer to peer),
 * then sync fully. Afterwards, on every replica and on a fresh one, every
 * action that no later action of the same group on the same file superseded
 * is visible: the newest placement (name and parent), mode and trash state
 * of each file, every edit's text, and a row whose size and content version
 * describe the merged content (`checkIntents`, testing/intent-ops.ts).
 *
 * CI runs 300 cases; YFS_FUZZ_RUNS / YFS_FUZZ_SEED / YFS_FUZZ_PATH as in the
 * other convergence properties (fuzz-parameters.ts).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fuzzParameters } from '../../src/testing/fuzz-parameters.js'
import {
  checkIntents,
  createReplicaNetwork,
  intentOpArbitrary,
  runIntentOp,
  setUpIntentFiles,
} from '../../src/testing/index.js'

const { runs, seed, path } = fuzzParameters(300)

describe('concurrent actions never undo each other', () => {
  it(`holds for ${runs} random runs`, async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 5 }),
        fc.nat(),
        fc.array(intentOpArbitrary(), { minLength: 1, maxLength: 30 }),
        async (n, networkSeed, ops) => {
          // Replica n is the fresh one: it takes part in nothing until the final sync.
          const net = createReplicaNetwork(n + 1, { seed: networkSeed })
          try {
            const state = await setUpIntentFiles(net)
            for (const [seq, op] of ops.entries()) await runIntentOp(net, n, op, seq, state)
            await net.syncAll()
            for (const { fs, index } of net.replicas)
              expect(await checkIntents(fs, state), `replica ${index}`).toEqual([])
          } finally {
            net.destroy()
          }
        },
      ),
      { numRuns: runs, seed, path, verbose: 1 },
    )
  }, 3_600_000)
})
