/**
 * A file's newest version without opening its doc (`latestVersion`, and `saveVersion` of a file
 * nobody opened): an agent's activity entry asks it for every file a command wrote, so it must
 * not build or load those docs one by one, and it must still name the version `history()` lists
 * last — after a person's edit on this replica or on another one too.
 */
import { describe, expect, it } from 'vitest'
import { createFileSystem, type YjsFileSystem } from '../../src/index.js'
import { createReplicaNetwork } from '../../src/testing/index.js'

// An editor binding: a direct edit of the file's Y.Text, not a filesystem write.
async function typeInto(fs: YjsFileSystem, path: string, text: string) {
  const handle = await fs.pool.acquire(fs.index.lookup(path)!)
  const y = handle.doc.getText('text')
  handle.doc.transact(() => y.insert(y.length, text))
  await Promise.resolve() // the row update and the version run on the next microtask
  handle.release()
}

const loaded = (fs: YjsFileSystem, path: string) => [...fs.pool.loaded()].includes(fs.index.lookup(path)!)

describe('the newest version, known without the doc', () => {
  it('memory mode: a new file’s first version comes from its seed, which stays unbuilt', async () => {
    const fs = createFileSystem({ author: 'agent:a' })
    await fs.writeFile('/a.txt', 'one\n')
    const id = fs.index.lookup('/a.txt')!
    const latest = await fs.latestVersion('/a.txt')
    const saved = await fs.saveVersion('/a.txt')
    expect(fs.pool.isSeeded(id)).toBe(true)
    expect(saved).toEqual(latest)
    // Building the doc lists that very version.
    const history = await fs.history('/a.txt')
    expect(history).toHaveLength(1)
    expect(history[0]).toEqual(latest)
    expect(latest).toMatchObject({
      author: 'agent:a',
      reason: 'write',
      size: 4,
      name: 'a.txt',
      binary: false,
    })
    await fs.writeFile('/b.bin', new Uint8Array([0, 1, 2, 255]))
    const bin = await fs.latestVersion('/b.bin')
    expect(bin).toMatchObject({ binary: true, size: 4 })
    expect((await fs.history('/b.bin'))[0]).toEqual(bin)
  })

  it('memory mode: after a write, from the write; after a person’s edit and a save, the save', async () => {
    const fs = createFileSystem({ author: 'agent:a' })
    await fs.writeFile('/a.txt', 'one\n')
    await fs.writeFile('/a.txt', 'two\n')
    fs.pool.evictIdle(true)
    expect(loaded(fs, '/a.txt')).toBe(false)
    const latest = await fs.latestVersion('/a.txt')
    expect(loaded(fs, '/a.txt')).toBe(false)
    expect((await fs.saveVersion('/a.txt')).id).toBe(latest?.id)
    expect(loaded(fs, '/a.txt')).toBe(false)
    expect(latest?.id).toBe((await fs.history('/a.txt')).at(-1)?.id)
    expect(latest?.size).toBe(4)
    // A person's edit on the open doc is pending: saving records it, latestVersion then names it.
    await typeInto(fs, '/a.txt', 'typed\n')
    expect((await fs.latestVersion('/a.txt'))?.id).toBe(latest?.id)
    const saved = await fs.saveVersion('/a.txt')
    expect(saved.id).not.toBe(latest?.id)
    expect(await fs.readVersion('/a.txt', saved.id)).toBe('two\ntyped\n')
    fs.pool.evictIdle(true)
    expect((await fs.latestVersion('/a.txt'))?.id).toBe(saved.id)
    expect((await fs.history('/a.txt')).at(-1)?.id).toBe(saved.id)
  })

  it('replicas: the writer knows its version until a peer’s edit reaches it, then reads the peer’s', async () => {
    const net = createReplicaNetwork(2, { author: (i) => (i === 0 ? 'agent:a' : 'user:Ana') })
    const [agent, person] = [net.replicas[0]!.fs, net.replicas[1]!.fs]
    await agent.writeFile('/n.txt', 'agent line\n')
    await agent.writeFile('/n.txt', 'agent line, again\n')
    await net.syncAll()
    agent.pool.evictIdle(true)
    const mine = await agent.latestVersion('/n.txt')
    expect(loaded(agent, '/n.txt')).toBe(false)
    expect(mine?.id).toBe((await person.history('/n.txt')).at(-1)?.id)
    await person.writeFile('/n.txt', 'agent line, again\nAna\n')
    await net.syncAll()
    const theirs = (await person.history('/n.txt')).at(-1)!
    expect(theirs.id).not.toBe(mine?.id)
    expect((await agent.latestVersion('/n.txt'))?.id).toBe(theirs.id)
  })
})
