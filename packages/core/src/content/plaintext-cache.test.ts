/**
 * The plaintext cache outlives content-doc eviction and stays exact: size
 * checks, peers' row entries (winning the LWW or not) and the content
 * versions rows announce. Real replicas over the test network (providers
 * that sync content docs on open), no mocks.
 */
import { describe, expect, it } from 'vitest'
import { asFileId } from '../ids.js'
import { createReplicaNetwork } from '../testing/replica-network.js'
import { MAX_CACHED_BINARY_BYTES, PlaintextCache } from './plaintext-cache.js'

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

  it('holds binary content apart: lookup and get give text only, lookupContent a copy; big content is not kept', () => {
    const cache = new PlaintextCache()
    const a = asFileId('a')
    const bytes = Uint8Array.from([1, 2, 3, 4])
    cache.setBytes(a, bytes)
    bytes[0] = 9 // the writer's buffer changing later changes nothing kept
    expect(cache.lookup(a, 4)).toBeUndefined()
    expect(cache.get(a)).toBeUndefined()
    expect(cache.holds(a, 4)).toBe(true)
    expect(cache.bytes).toBe(4)
    const got = cache.lookupContent(a, 4) as { bytes: Uint8Array }
    expect(got.bytes).toEqual(Uint8Array.from([1, 2, 3, 4]))
    got.bytes.fill(0)
    expect(cache.lookupContent(a, 4)).toEqual({ bytes: Uint8Array.from([1, 2, 3, 4]) })
    // Text replaces bytes and the other way round; a size mismatch drops either.
    cache.set(a, 'text', 4)
    expect(cache.lookupContent(a, 4)).toEqual({ text: 'text' })
    expect(cache.holds(a, 5)).toBe(false)
    expect(cache.has(a)).toBe(false)
    cache.set(a, 'text', 4)
    cache.setBytes(a, new Uint8Array(MAX_CACHED_BINARY_BYTES + 1))
    expect(cache.has(a)).toBe(false)
    expect(cache.bytes).toBe(0)
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

  it('binary content survives eviction too, and a peer overwrite of the same size is read, not the bytes kept', async () => {
    const net = createReplicaNetwork(2)
    const [a, b] = net.replicas.map((r) => r.fs)
    await a!.writeFile('/f.bin', Uint8Array.from([1, 2, 3]))
    await net.syncAll()
    expect(await b!.readFileBuffer('/f.bin')).toEqual(Uint8Array.from([1, 2, 3]))
    net.evict(1)
    const id = b!.index.lookup('/f.bin')!
    expect(await b!.readFileBuffer('/f.bin')).toEqual(Uint8Array.from([1, 2, 3]))
    expect(b!.pool.peek(id)).toBeUndefined() // served from the cache
    await a!.writeFile('/f.bin', Uint8Array.from([4, 5, 6]))
    await net.syncAll()
    expect(await b!.readFileBuffer('/f.bin')).toEqual(Uint8Array.from([4, 5, 6]))
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
