// The disk-differential property (@yfs/core/testing, disk-differential.ts): random calls on yfs and
// on a real folder answer alike and leave the same tree. The server-connected client runs it in
// apps/server/test/disk-differential.e2e.test.ts.
import { it } from 'vitest'
import { createFileSystem } from '../src/index.js'
import { checkAgainstDisk, createReplicaNetwork, fuzzParameters } from '../src/testing/index.js'

it('a local YjsFileSystem answers and ends like a real folder, call by call', async () => {
  await checkAgainstDisk(() => ({ writer: createFileSystem() }), fuzzParameters(300))
})

it('the same inside one fs.batch: every call sees the ones before it', async () => {
  await checkAgainstDisk(() => {
    const fs = createFileSystem()
    return { writer: fs, around: (calls) => fs.batch(calls) }
  }, fuzzParameters(200))
})

it('the same written on one replica and read on another once in sync', async () => {
  await checkAgainstDisk(() => {
    const net = createReplicaNetwork(2)
    const writer = net.replicas[0]!.fs
    // A truncation is held back until a write follows or the command ends (held-truncations.ts).
    const settle = () => writer.flushTruncations().then(() => net.syncAll())
    return { writer, reader: net.replicas[1]!.fs, settle }
  }, fuzzParameters(150))
})
