import { describe, expect, it } from 'vitest'
import { createReplicaNetwork } from './replica-network.js'

describe('createReplicaNetwork', () => {
  it('passes updates peer to peer with deliver, partially and without the hub', async () => {
    const net = createReplicaNetwork(3)
    const [a, b, c] = net.replicas.map((r) => r.fs)
    await a!.mkdir('/d')
    await a!.writeFile('/d/f.txt', 'hi')
    net.deliver(0, 1, 1) // only the mkdir
    expect(b!.getAllPaths()).toContain('/d')
    expect(b!.getAllPaths()).not.toContain('/d/f.txt')
    net.deliver(0, 1)
    expect(await b!.readFile('/d/f.txt')).toBe('hi')
    expect(c!.getAllPaths()).not.toContain('/d')
    expect(net.pending()).toBeGreaterThan(0)
    await net.syncAll()
    expect(net.pending()).toBe(0)
    expect(await c!.readFile('/d/f.txt')).toBe('hi')
    net.destroy()
  })

  it('keeps unsent edits of an evicted content doc, and reopened docs get what others sent meanwhile', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs)
    await a!.writeFile('/f.txt', 'one\n')
    await net.syncAll()
    await a!.appendFile('/f.txt', 'two\n') // not sent yet
    net.evict(0)
    await b!.appendFile('/f.txt', 'three\n')
    net.send(1)
    net.evict(1)
    // A learns of B's change (its row; the content update waits, parked, for the doc to open).
    net.receive(0)
    // Reopened on A: the hub's state (with B's append) plus A's own unsent append.
    expect(await a!.readFile('/f.txt')).toMatch(/^one\n(two\nthree\n|three\ntwo\n)$/)
    await net.syncAll()
    expect(await b!.readFile('/f.txt')).toBe(await a!.readFile('/f.txt'))
    net.destroy()
  })

  it('shuffles deliveries reproducibly from the seed', async () => {
    const order = async (seed: number) => {
      const net = createReplicaNetwork(2, { seed })
      const a = net.replicas[0]!.fs
      for (const name of ['a', 'b', 'c', 'd', 'e', 'f']) await a.mkdir(`/${name}`)
      net.send(0)
      const seen: string[] = []
      for (let k = 0; k < 6; k++) {
        net.receive(1, 1, 'random')
        seen.push(net.replicas[1]!.fs.getAllPaths().join(','))
      }
      net.destroy()
      return seen
    }
    expect(await order(7)).toEqual(await order(7))
  })
})
