/**
 * Run count and seed of the property tests. CI runs a fixed seed, so a red
 * build is reproducible; YFS_FUZZ_RUNS=100000 runs a long search with a fresh
 * seed (printed), and YFS_FUZZ_SEED / YFS_FUZZ_PATH replay a reported failure.
 */
export function fuzzParameters(ciRuns: number): { runs: number; seed: number; path: string | undefined } {
  const runs = process.env.YFS_FUZZ_RUNS ? Number(process.env.YFS_FUZZ_RUNS) : ciRuns
  const seed = process.env.YFS_FUZZ_SEED
    ? Number(process.env.YFS_FUZZ_SEED)
    : process.env.YFS_FUZZ_RUNS
      ? Date.now() ^ (Math.random() * 0x7fffffff)
      : 20261122
  const path = process.env.YFS_FUZZ_PATH || undefined
  console.log(`fast-check: ${runs} runs, seed ${seed} (replay: YFS_FUZZ_SEED=${seed})`)
  return { runs, seed, path }
}
