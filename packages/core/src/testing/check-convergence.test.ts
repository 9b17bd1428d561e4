import { describe, expect, it } from 'vitest'
import { checkConvergence } from './check-convergence.js'
import { createReplicaNetwork } from './replica-network.js'
import type { ContentLog } from './replica-ops.js'

describe('checkConvergence', () => {
  it('passes converged replicas and reports replicas that differ', async () => {
    const net = createReplicaNetwork(3)
    await net.replicas[0]!.fs.writeFile('/a.txt', 'one')
    await net.syncAll()
    expect(await checkConvergence(net)).toEqual([])
    await net.replicas[1]!.fs.writeFile('/b.txt', 'two')
    net.send(1)
    net.receive(2) // replica 0 has not received it
    const violations = await checkConvergence(net)
    expect(violations).toHaveLength(2)
    expect(violations[0]).toMatch(/^replica 1 differs from replica 0/)
    expect(violations[1]).toMatch(/^replica 2 differs from replica 0/)
    net.destroy()
  })

  it('reports a logged text that is missing or doubled, and ignores files emptied from the trash', async () => {
    const net = createReplicaNetwork(3)
    const fs = net.replicas[0]!.fs
    await fs.writeFile('/a.txt', 'w1;a2;a2;')
    await fs.writeFile('/gone.txt', 'w3;')
    const gone = fs.index.lookup('/gone.txt')!
    await fs.rm('/gone.txt')
    fs.trash.empty()
    await net.syncAll()
    const a = fs.index.lookup('/a.txt')!
    const log: ContentLog = new Map([
      [
        a,
        [
          { kind: 'write', text: 'w0;' },
          { kind: 'append', text: 'a2;' },
        ],
      ],
      [gone, [{ kind: 'write', text: 'w9;' }]],
    ])
    expect(await checkConvergence(net, log)).toEqual([
      `file ${a}: "w0;" appears 0 times in "w1;a2;a2;"`,
      `file ${a}: "a2;" appears 2 times in "w1;a2;a2;"`,
    ])
    net.destroy()
  })
})
