// The IFileSystem contract (@yfs/core/testing) on just-bash's InMemoryFs (the reference), a local
// YjsFileSystem, and two replicas in sync (written on one, read on the other). The server-connected
// client runs it in apps/server/test/file-system-contract.e2e.test.ts.
import { InMemoryFs } from 'just-bash'
import { describe, expect, it } from 'vitest'
import { createFileSystem } from '../src/index.js'
import { type ContractEnv, createReplicaNetwork, fileSystemContract } from '../src/testing/index.js'

// just-bash's InMemoryFs writes where POSIX (and yfs) refuse: it creates missing parent folders,
// a writeFile onto a folder succeeds, and a missing path moved onto itself is no error. Those
// cases are not run on the reference; the tests below pin the deviations, so the exceptions go
// away once just-bash changes.
const IN_MEMORY_DEVIATES = new Set([
  'writes POSIX refuses change nothing: under a missing folder ENOENT, onto a folder EISDIR',
  'mv onto itself: an existing path stays as it is, a missing one is ENOENT',
])

it('InMemoryFs still writes where POSIX refuses (the deviation the contract skips for it)', async () => {
  const fs = new InMemoryFs()
  await fs.writeFile('/no/such/f.txt', 'x')
  expect(await fs.readFile('/no/such/f.txt')).toBe('x')
  await fs.mkdir('/dir')
  await expect(fs.writeFile('/dir', 'x')).resolves.toBeUndefined()
})

it('InMemoryFs still moves a missing path onto itself without an error (rename(2) says ENOENT)', async () => {
  await expect(new InMemoryFs().mv('/none', '/none')).resolves.toBeUndefined()
})

const environments: [string, () => ContractEnv][] = [
  [
    'InMemoryFs',
    () => {
      const fs = new InMemoryFs()
      return { writer: fs, reader: fs, settle: async () => {} }
    },
  ],
  [
    'YjsFileSystem',
    () => {
      const fs = createFileSystem()
      return { writer: fs, reader: fs, settle: async () => {} }
    },
  ],
  [
    'two replicas',
    () => {
      const net = createReplicaNetwork(2)
      return { writer: net.replicas[0]!.fs, reader: net.replicas[1]!.fs, settle: () => net.syncAll() }
    },
  ],
]

for (const [name, make] of environments) {
  describe(`IFileSystem contract: ${name}`, () => {
    for (const c of fileSystemContract)
      if (!(name === 'InMemoryFs' && IN_MEMORY_DEVIATES.has(c.name))) it(c.name, () => c.run(make()))
  })
}
