/**
 * History versions name whoever made the changes they hold, also when another replica records
 * them (history(), a checkpoint, a save): a person edits in the browser (straight on the content
 * doc, as an editor binding does), an agent lists the file's history a moment later.
 */
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import type { YjsFileSystem } from '../../src/index.js'
import { createReplicaNetwork } from '../../src/testing/index.js'

const PERSON = 0
const AGENT = 1

function network() {
  return createReplicaNetwork(2, { author: (i) => (i === PERSON ? 'user:Ana' : 'agent:bot') })
}

// An editor binding: a direct edit of the file's Y.Text, not a filesystem write.
async function typeInto(fs: YjsFileSystem, path: string, text: string) {
  const handle = await fs.pool.acquire(fs.index.lookup(path)!)
  const y = handle.doc.getText('text')
  handle.doc.transact(() => y.insert(y.length, text))
  await Promise.resolve() // the row update and the version run on the next microtask
  return handle
}

describe('version authors', () => {
  it('an agent listing history right after a person typed gets the person’s version, in her name', async () => {
    const net = network()
    const [person, agent] = [net.replicas[PERSON]!.fs, net.replicas[AGENT]!.fs]
    await agent.writeFile('/notes.txt', 'agent line\n')
    await net.syncAll()
    const handle = await typeInto(person, '/notes.txt', 'Ana 1\n')
    handle.doc.transact(() => handle.doc.getText('text').insert(handle.doc.getText('text').length, 'Ana 2\n'))
    await Promise.resolve()
    await net.syncAll()
    const versions = await agent.history('/notes.txt')
    expect(versions.map((v) => v.author)).toEqual(['agent:bot', 'user:Ana', 'user:Ana'])
    expect(await agent.readVersion('/notes.txt', versions.at(-1)!.id)).toBe('agent line\nAna 1\nAna 2\n')
    handle.release()
    net.destroy()
  })

  it('a person’s edits since her last version are versioned in her name when the file closes', async () => {
    const net = network()
    const [person, agent] = [net.replicas[PERSON]!.fs, net.replicas[AGENT]!.fs]
    await agent.writeFile('/plan.md.txt', 'start\n')
    await net.syncAll()
    const handle = await typeInto(person, '/plan.md.txt', 'one\n')
    handle.doc.transact(() => handle.doc.getText('text').insert(0, 'zero\n'))
    await Promise.resolve()
    handle.release()
    net.evict(PERSON)
    await net.syncAll()
    const versions = await agent.history('/plan.md.txt')
    // Nothing was left for the agent to record: the last version is Ana's, with all her text.
    expect(versions.map((v) => [v.author, v.reason])).toEqual([
      ['agent:bot', 'write'],
      ['user:Ana', 'edit'],
      ['user:Ana', 'edit'],
    ])
    expect(await agent.readVersion('/plan.md.txt', versions.at(-1)!.id)).toBe('zero\nstart\none\n')
    net.destroy()
  })

  it('inserts by a client that never recorded a version, and deletions alone, are the recorder’s', async () => {
    const net = network()
    const [person, agent] = [net.replicas[PERSON]!.fs, net.replicas[AGENT]!.fs]
    await agent.writeFile('/a.txt', 'abc\n')
    await net.syncAll()
    const handle = await typeInto(person, '/a.txt', 'Ana\n')
    // Then a deletion only: Yjs does not say who deleted.
    handle.doc.transact(() => handle.doc.getText('text').delete(0, 1))
    await Promise.resolve()
    await net.syncAll()
    let versions = await agent.history('/a.txt')
    expect(versions.map((v) => v.author)).toEqual(['agent:bot', 'user:Ana', 'agent:bot'])
    // A plain Yjs client (no filesystem, so no version naming it) inserts text.
    const raw = new Y.Doc()
    Y.applyUpdate(raw, Y.encodeStateAsUpdate(handle.doc))
    raw.getText('text').insert(0, 'raw ')
    Y.applyUpdate(handle.doc, Y.encodeStateAsUpdate(raw, Y.encodeStateVector(handle.doc)))
    await net.syncAll()
    versions = await agent.history('/a.txt')
    expect(versions.at(-1)!.author).toBe('agent:bot')
    expect(await agent.readVersion('/a.txt', versions.at(-1)!.id)).toBe('raw bc\nAna\n')
    handle.release()
    net.destroy()
  })
})
