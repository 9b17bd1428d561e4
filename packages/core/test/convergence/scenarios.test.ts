/**
 * Deterministic regression tests for issue 3 on three replicas connected
 * through the test network (hub + content docs), with partial deliveries:
 * each scenario checks the tree on every replica, that indexes equal a
 * rebuild, and that nothing written is lost (`checkConvergence`).
 * test/conflicts.test.ts has the two-replica versions of the basic cases.
 */
import { Bash } from 'just-bash'
import { describe, expect, it } from 'vitest'
import {
  type ContentLog,
  checkConvergence,
  createReplicaNetwork,
  type ReplicaNetwork,
  snapshotFileSystem,
} from '../../src/testing/index.js'

const frozen = () => () => 1000

async function converged(net: ReplicaNetwork, log?: ContentLog): Promise<string[]> {
  await net.syncAll()
  expect(await checkConvergence(net, log)).toEqual([])
  return snapshotFileSystem(net.replicas[0]!.fs)
}

describe('duplicate names', () => {
  it('creates in the same millisecond: the smaller id keeps the plain name on every replica', async () => {
    const net = createReplicaNetwork(3, { clock: frozen })
    const [a, b, c] = net.replicas.map((r) => r.fs)
    await a!.writeFile('/a.md', 'from A')
    await b!.writeFile('/a.md', 'from B')
    await c!.writeFile('/a.md', 'from C')
    const tree = await converged(net)
    const rows = [...a!.table.rows()].sort((x, y) => (x.id < y.id ? -1 : 1))
    expect(rows.map((r) => r.createdAt)).toEqual([1000, 1000, 1000])
    expect(rows.map((r) => a!.index.pathOf(r.id))).toEqual(['/a.md', '/a (1).md', '/a (2).md'])
    expect(tree).toHaveLength(3)
    net.destroy()
  })

  it('a suffix skips a name a real sibling has, and every bash command resolves suffixed paths', async () => {
    const net = createReplicaNetwork(3)
    const [a, b, c] = net.replicas.map((r) => r.fs)
    await a!.mkdir('/docs')
    await a!.writeFile('/docs/a (1).md', 'real')
    await net.syncAll()
    await a!.writeFile('/docs/a.md', 'first')
    await b!.writeFile('/docs/a.md', 'second')
    expect(await converged(net)).toEqual([
      '/docs/',
      '/docs/a (1).md = "real"',
      '/docs/a (2).md = "second"',
      '/docs/a.md = "first"',
    ])
    const bash = new Bash({ fs: c!, cwd: '/docs' })
    const r = await bash.exec(
      'cat "a (2).md"; echo; find /docs -name "a (2)*"; grep -rl second /docs; wc -c < "a (2).md"; mv "a (2).md" b.md; ls',
    )
    expect(r.stdout).toBe('second\n/docs/a (2).md\n/docs/a (2).md\n6\na (1).md\na.md\nb.md\n')
    // Stored names were never rewritten: only the explicit mv changed one.
    expect([...c!.table.rows()].map((row) => row.name).sort()).toEqual(['a (1).md', 'a.md', 'b.md', 'docs'])
    expect(await converged(net)).toContain('/docs/b.md = "second"')
    net.destroy()
  })
})

describe('move cycles', () => {
  it('three folders moved into each other in a ring show one acyclic tree everywhere, nothing lost', async () => {
    const net = createReplicaNetwork(3)
    const [a, b, c] = net.replicas.map((r) => r.fs)
    for (const name of ['X', 'Y', 'Z']) {
      await a!.mkdir(`/${name}`)
      await a!.writeFile(`/${name}/${name.toLowerCase()}.txt`, name)
    }
    await net.syncAll()
    await a!.mv('/X', '/Y/X')
    await b!.mv('/Y', '/Z/Y')
    await c!.mv('/Z', '/X/Z') // the latest move: Z is shown at the root
    const tree = await converged(net)
    expect(tree).toEqual([
      '/Z/',
      '/Z/Y/',
      '/Z/Y/X/',
      '/Z/Y/X/x.txt = "X"',
      '/Z/Y/y.txt = "Y"',
      '/Z/z.txt = "Z"',
    ])
    // No repair write: the rows still form the ring, and the next real move is followed as stored.
    expect([...a!.table.rows()].filter((r) => r.type === 'folder').every((r) => r.parentId !== null)).toBe(
      true,
    )
    await b!.mv('/Z/Y/X', '/X')
    expect(await converged(net)).toEqual([
      '/X/',
      '/X/Z/',
      '/X/Z/Y/',
      '/X/Z/Y/y.txt = "Y"',
      '/X/Z/z.txt = "Z"',
      '/X/x.txt = "X"',
    ])
    net.destroy()
  })
})

describe('orphans', () => {
  it('a file written into a folder that another replica emptied from the trash shows at the root, and restoring the folder elsewhere puts it back', async () => {
    const net = createReplicaNetwork(3)
    const [a, b, c] = net.replicas.map((r) => r.fs)
    await a!.mkdir('/p')
    await net.syncAll()
    await b!.writeFile('/p/new.txt', 'written offline') // B has not seen the rm yet
    await a!.rm('/p', { recursive: true })
    net.send(0)
    net.receive(2) // C sees /p in the trash…
    a!.trash.empty() // …while A deletes it for good
    const restored = c!.trash.list()[0]!.id
    net.send(0)
    net.send(1)
    net.receive(0)
    // A has B's file but no parent row any more: an orphan at the root.
    expect(await snapshotFileSystem(a!)).toEqual(['/new.txt = "written offline"'])
    c!.trash.restore(restored) // a restore on C, concurrent with A's delete: the write wins
    expect(await converged(net)).toEqual(['/p/', '/p/new.txt = "written offline"'])
    net.destroy()
  })
})

describe('trash races', () => {
  it('rename and trash of one file in the same millisecond: one wins everywhere, content restorable', async () => {
    const net = createReplicaNetwork(3, { clock: frozen })
    const [a, b, c] = net.replicas.map((r) => r.fs)
    await a!.writeFile('/f.txt', 'content')
    await net.syncAll()
    await a!.mv('/f.txt', '/g.txt')
    await b!.rm('/f.txt')
    const tree = await converged(net)
    const trash = c!.trash.list()
    expect(tree.length + trash.length).toBe(1)
    if (trash[0]) c!.trash.restore(trash[0].id)
    expect((await converged(net))[0]).toMatch(/\.txt = "content"$/)
    net.destroy()
  })

  it('a write into a folder being trashed is kept in the trash with it, and comes back with it', async () => {
    const net = createReplicaNetwork(3)
    const [a, b, c] = net.replicas.map((r) => r.fs)
    await a!.mkdir('/d')
    await net.syncAll()
    await a!.writeFile('/d/late.txt', 'written while trashing')
    await b!.rm('/d', { recursive: true })
    expect(await converged(net)).toEqual([])
    c!.trash.restore(c!.trash.list()[0]!.id)
    expect(await converged(net)).toEqual(['/d/', '/d/late.txt = "written while trashing"'])
    net.destroy()
  })

  it('restore racing an empty-trash keeps the file and its content, read on a replica that never opened it', async () => {
    const net = createReplicaNetwork(3)
    const [a, b, c] = net.replicas.map((r) => r.fs)
    await a!.writeFile('/keep.txt', 'precious')
    await a!.rm('/keep.txt')
    await net.syncAll()
    b!.trash.restore(b!.trash.list()[0]!.id)
    a!.trash.empty() // A also drops the content doc from its pool
    expect(await converged(net)).toEqual(['/keep.txt = "precious"'])
    expect(await c!.readFile('/keep.txt')).toBe('precious')
    net.destroy()
  })
})

describe('concurrent writes to one file', () => {
  it('two agents rewrite different lines while a person types elsewhere: every change lands once', async () => {
    const net = createReplicaNetwork(3)
    const [a, b, c] = net.replicas.map((r) => r.fs)
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}\n`)
    await a!.writeFile('/code.ts', lines.join(''))
    await net.syncAll()
    const edit = (at: number, text: string) => lines.map((l, i) => (i === at ? text : l)).join('')
    await a!.writeFile('/code.ts', edit(2, 'line 2 by agent A\n'))
    await b!.writeFile('/code.ts', edit(15, 'line 15 by agent B\n'))
    const handle = await c!.pool.acquire(c!.index.lookup('/code.ts')!)
    const ytext = handle.doc.getText('text')
    ytext.insert(ytext.toString().indexOf('line 9') + 6, ' // person on C')
    handle.release()
    // Partial, shuffled delivery before the full sync.
    net.send(1, 1)
    net.receive(0, 2, 'random')
    const [tree] = await converged(net)
    const text = JSON.parse(tree!.split(' = ')[1]!) as string
    expect(text.split('\n')).toHaveLength(21)
    expect(text).toContain('line 2 by agent A\n')
    expect(text).toContain('line 9 // person on C\n')
    expect(text).toContain('line 15 by agent B\n')
    expect(text).not.toContain('line 2\n')
    net.destroy()
  })
})
