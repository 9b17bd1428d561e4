// @yfs/core/testing — helpers for tests of yfs and of code built on it.

export type { IndexDump } from './dump-index.js'
export { dumpIndex } from './dump-index.js'
export type { Replica, ReplicaNetwork, ReplicaNetworkOptions } from './replica-network.js'
export { createReplicaNetwork } from './replica-network.js'
export { snapshotFileSystem } from './snapshot.js'
