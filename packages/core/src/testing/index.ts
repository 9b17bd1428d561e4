// @yfs/core/testing — helpers for tests of yfs and of code built on it.

export { checkConvergence, checkIndexes } from './check-convergence.js'
export type { CodecCase } from './codec-contract.js'
export { binaryAsCodec, codecContract, latin1Texts } from './codec-contract.js'
export type { DiskDifferentialSetup } from './disk-differential.js'
export { checkAgainstDisk } from './disk-differential.js'
export type { IndexDump } from './dump-index.js'
export { dumpIndex } from './dump-index.js'
export { FileRowSchema } from './file-row-schema.js'
export type { ContractCase, ContractEnv } from './file-system-contract.js'
export { fileSystemContract } from './file-system-contract.js'
export { fuzzParameters } from './fuzz-parameters.js'
export type { IntentExpectation, IntentOp, IntentState } from './intent-ops.js'
export { checkIntents, contentOf, intentOpArbitrary, runIntentOp, setUpIntentFiles } from './intent-ops.js'
export type { CorpusFile } from './markdown-corpus.js'
export { markdownCorpus } from './markdown-corpus.js'
export type { Replica, ReplicaNetwork, ReplicaNetworkOptions } from './replica-network.js'
export { createReplicaNetwork } from './replica-network.js'
export type { ContentEntry, ContentLog, ReplicaOp, ReplicaOpOptions } from './replica-ops.js'
export { replicaOpArbitrary, runReplicaOp } from './replica-ops.js'
export type { SearchFile } from './search-contract.js'
export {
  applySearchOp,
  bruteForceSearch,
  checkSearch,
  SEARCH_WORDS,
  type SearchOp,
  searchOpArbitrary,
  searchPathArbitrary,
  searchRequestArbitrary,
  searchTextArbitrary,
  workspaceTexts,
} from './search-contract.js'
export { snapshotFileSystem } from './snapshot.js'
export type { SpawnedProcess, SpawnProcessOptions } from './spawn-process.js'
export { processCpuMs, spawnProcess, stopSpawned } from './spawn-process.js'
export { typeInto } from './type-into.js'
export type { WaitForOptions } from './wait-for.js'
export { waitFor } from './wait-for.js'
