/**
 * The plaintext cache outlives content-doc eviction and stays exact: size
 * checks, peers' row entries (winning the LWW or not) and the content
 * versions rows announce. Real replicas over the test network (providers
 * that sync content docs on open), no mocks.
 */
import { describe, expect, it } from 'vitest'
import { asFileId } from '../ids.js'
import { createReplicaNetwork } from '../testing/replica-network.js'
import { PlaintextCache } from './plaintext-cache.js'

describe('PlaintextCache', () => {
  it('misses and drops an entry whose size no longer matches the row, and keeps memory within maxBytes', () => {
    const cache = new PlaintextCache(40)
    const a = asFileId('a')
    cache.set(a, 'hello', 5)
    expect(cache.lookup(a, 5)).toBe('hello')
    expect(cache.bytes).toBe(10)
    expect(cache.lookup(a, 6)).toBeUndefined()
    expect(cache.has(a)).toBe(false)
    for (const n of ['1', '2', '3']) cache.set(asFileId(n), 'x'.repeat(8), 8)
    // 3 × 16 bytes > 40: the oldest went.
    expect([cache.has(asFileId('1')), cache.has(asFileId('2')), cache.has(asFileId('3'))]).toEqual([
      false,
      true,
      true,
    ])
    expect(cache.bytes).toBe(32)
  })
})

describe('plaintext cache of a synced filesystem', () => {
  it('survives eviction of the content doc: a warm read opens no doc', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs)
    await a!.writeFile('/f.txt', 'one')
    await net.syncAll()
    expect(await b!.readFile('/f.txt')).toBe('one')
    net.evict(1)
    const id = b!.index.lookup('/f.txt')!
    expect(b!.pool.peek(id)).toBeUndefined()
    expect(await b!.readFile('/f.txt')).toBe('one')
    expect(b!.pool.peek(id)).toBeUndefined() // served from the cache
    expect(b!.index.plaintext.bytes).toBeGreaterThan(0)
    net.destroy()
  })

  it('a peer change that arrives while the doc is evicted is read, not the cached text', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs)
    await a!.writeFile('/f.txt', 'one')
    await net.syncAll()
    expect(await b!.readFile('/f.txt')).toBe('one')
    net.evict(1)
    await a!.writeFile('/f.txt', 'two') // same size
    await net.syncAll()
    expect(await b!.readFile('/f.txt')).toBe('two')
    net.destroy()
  })

  it('a row that arrives before its content is not cached past eviction (content version check)', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs)
    await a!.writeFile('/f.txt', 'one')
    await net.syncAll()
    expect(await b!.readFile('/f.txt')).toBe('one')
    await a!.writeFile('/f.txt', 'two')
    // b receives only the main doc's update (the row); the content update stays queued.
    net.send(0)
    const inbox = net.replicas[1]!.inbox
    const queued = inbox.filter((m) => m.guid !== 'main')
    inbox.splice(0, inbox.length, ...inbox.filter((m) => m.guid === 'main'))
    net.receive(1)
    // b reads the old content (its doc does not have the change yet), then evicts.
    expect(await b!.readFile('/f.txt')).toBe('one')
    net.evict(1)
    // The content arrives while the doc is unloaded.
    inbox.push(...queued)
    net.receive(1)
    expect(await b!.readFile('/f.txt')).toBe('two')
    net.destroy()
  })

  it("a concurrent edit whose row loses the LWW still drops the peer's cached text", async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs)
    await a!.writeFile('/f.txt', 'base\n')
    await net.syncAll()
    // Both append at once; b's row wins (later clock), a's entry loses but its content counts.
    await a!.appendFile('/f.txt', 'a\n')
    await b!.appendFile('/f.txt', 'b\n')
    expect(await b!.readFile('/f.txt')).toBe('base\nb\n')
    net.evict(1)
    await net.syncAll()
    const text = await b!.readFile('/f.txt')
    expect(text).toContain('a\n')
    expect(text).toContain('b\n')
    expect(text).toBe(await a!.readFile('/f.txt'))
    net.destroy()
  })
})
