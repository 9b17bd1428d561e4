/**
 * Deterministic regression tests for concurrent edits (issue 3): each
 * scenario runs on two replicas that change the same workspace without
 * seeing each other, then exchange everything; both must show the same tree
 * and contents, nothing may be lost, and each index must equal a rebuild.
 */
import { Bash } from 'just-bash'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import {
  createFileSystem,
  createFileSystemIndex,
  createFilesTable,
  type YjsFileSystem,
} from '../src/index.js'

function replica(start: number): YjsFileSystem {
  let t = start
  return createFileSystem({ clock: () => t++ })
}

/** Exchange main docs and every content doc between replicas, both ways. */
async function sync(...replicas: YjsFileSystem[]): Promise<void> {
  for (const a of replicas)
    for (const b of replicas)
      if (a !== b) Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc, Y.encodeStateVector(b.doc)))
  const ids = new Set(
    replicas.flatMap((r) => [...r.table.rows()].filter((x) => x.type === 'file').map((x) => x.id)),
  )
  for (const id of ids) {
    const handles = await Promise.all(replicas.map((r) => r.pool.acquire(id)))
    for (const a of handles)
      for (const b of handles)
        if (a !== b) Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc, Y.encodeStateVector(b.doc)))
    for (const h of handles) h.release()
  }
}

async function snapshot(fs: YjsFileSystem): Promise<string[]> {
  const out: string[] = []
  for (const p of fs.index.allPaths()) {
    const st = await fs.lstat(p)
    out.push(st.isDirectory ? `${p}/` : `${p}=${await fs.readFile(p)}`)
  }
  return out
}

async function expectConverged(...replicas: YjsFileSystem[]): Promise<string[]> {
  const first = await snapshot(replicas[0]!)
  for (const r of replicas) {
    expect(await snapshot(r)).toEqual(first)
    expect(r.index.snapshot()).toEqual(createFileSystemIndex(createFilesTable(r.doc)).snapshot())
  }
  return first
}

describe('concurrent edits converge', () => {
  it('duplicate names from concurrent creates get display suffixes everywhere, and renaming one removes them', async () => {
    const a = replica(1000)
    const b = replica(2000)
    await a.mkdir('/docs')
    await sync(a, b)
    await a.writeFile('/docs/a.md', 'from A') // created earlier (clock 1000…)
    await b.writeFile('/docs/a.md', 'from B')
    await sync(a, b)
    expect(await expectConverged(a, b)).toEqual(['/docs/', '/docs/a (1).md=from B', '/docs/a.md=from A'])
    for (const fs of [a, b]) {
      expect(await fs.readdir('/docs')).toEqual(['a (1).md', 'a.md'])
      expect((await fs.stat('/docs/a (1).md')).size).toBe(6)
      expect(fs.getAllPaths()).toContain('/docs/a (1).md')
      const r = await new Bash({ fs, cwd: '/' }).exec('cat "/docs/a (1).md"; ls /docs | wc -l')
      expect(r.stdout).toBe('from B2\n')
    }
    // Stored names are untouched; renaming one makes the suffix disappear.
    expect([...a.table.rows()].filter((r) => r.type === 'file').map((r) => r.name)).toEqual(['a.md', 'a.md'])
    await b.mv('/docs/a (1).md', '/docs/b.md')
    await sync(a, b)
    expect(await expectConverged(a, b)).toEqual(['/docs/', '/docs/a.md=from A', '/docs/b.md=from B'])
  })

  it('crossed moves (X into Y, Y into X) give the same acyclic tree with nothing lost', async () => {
    const a = replica(1000)
    const b = replica(1000)
    await a.mkdir('/X')
    await a.mkdir('/Y')
    await a.writeFile('/X/x.txt', 'x')
    await a.writeFile('/Y/y.txt', 'y')
    await sync(a, b)
    await a.mv('/X', '/Y/X')
    await b.mv('/Y', '/X/Y')
    await sync(a, b)
    const tree = await expectConverged(a, b)
    expect(tree.filter((p) => p.endsWith('x.txt=x') || p.endsWith('y.txt=y'))).toHaveLength(2)
    // No repair write: the rows still say X→Y and Y→X; the index breaks the cycle the same way everywhere.
    const rows = [...a.table.rows()].filter((r) => r.type === 'folder')
    expect(rows.every((r) => r.parentId !== null)).toBe(true)
  })

  it('an orphan whose parent has not arrived shows at the root, and moves under it when it arrives', async () => {
    const a = replica(1000)
    const b = replica(3000)
    const updates: Uint8Array[] = []
    a.doc.on('update', (u: Uint8Array) => updates.push(u))
    await a.mkdir('/parent')
    await a.writeFile('/parent/child.txt', 'kid')
    // Deliver the child's row before the parent's: Yjs holds updates whose dependencies are missing,
    // so send the rows as separate docs' worth of state: first only the child row.
    const child = [...a.table.rows()].find((r) => r.name === 'child.txt')!
    b.table.set(child) // a peer that received the child row but not yet the parent row
    expect(b.index.pathOf(child.id)).toBe('/child.txt')
    for (const u of updates) Y.applyUpdate(b.doc, u)
    expect(b.index.pathOf(child.id)).toBe('/parent/child.txt')
    expect(b.index.snapshot()).toEqual(createFileSystemIndex(createFilesTable(b.doc)).snapshot())
  })

  it('a child created in a folder that another peer emptied from the trash appears at the root', async () => {
    const a = replica(1000)
    const b = replica(2000)
    await a.mkdir('/p')
    await sync(a, b)
    await a.writeFile('/p/new.txt', 'survives')
    await b.rm('/p', { recursive: true })
    b.trash.empty()
    await sync(a, b)
    expect(await expectConverged(a, b)).toEqual(['/new.txt=survives'])
  })

  it('concurrent rename and trash: one wins, the same on both, content intact', async () => {
    const a = replica(1000)
    const b = replica(1000)
    await a.writeFile('/f.txt', 'content')
    await sync(a, b)
    await a.mv('/f.txt', '/g.txt')
    await b.rm('/f.txt')
    await sync(a, b)
    const tree = await expectConverged(a, b)
    const trashed = a.trash.list().map((t) => t.name)
    expect(tree.length + trashed.length).toBe(1)
    const id = [...a.table.rows()][0]!.id
    a.trash.restore(id)
    await sync(a, b)
    expect((await expectConverged(a, b))[0]).toMatch(/=content$/)
  })

  it('a write into a folder being trashed is kept and comes back with the folder', async () => {
    const a = replica(1000)
    const b = replica(2000)
    await a.mkdir('/d')
    await sync(a, b)
    await a.writeFile('/d/late.txt', 'written while trashing')
    await b.rm('/d', { recursive: true })
    await sync(a, b)
    expect(await expectConverged(a, b)).toEqual([])
    b.trash.restore(b.trash.list()[0]!.id)
    await sync(a, b)
    expect(await expectConverged(a, b)).toEqual(['/d/', '/d/late.txt=written while trashing'])
  })

  it('restore racing an empty-trash: the restored row survives with its content', async () => {
    const a = replica(1000)
    const b = replica(2000)
    await a.writeFile('/keep.txt', 'precious')
    await a.rm('/keep.txt')
    await sync(a, b)
    a.trash.restore(a.trash.list()[0]!.id)
    b.trash.empty()
    await sync(a, b)
    expect(await expectConverged(a, b)).toEqual(['/keep.txt=precious'])
  })

  it('an agent writeFile and a person editing elsewhere in the file both survive, nothing duplicated', async () => {
    const a = replica(1000)
    const b = replica(2000)
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i}\n`)
    await a.writeFile('/code.ts', lines.join(''))
    await sync(a, b)
    // Person on B types in line 90.
    const h = await b.pool.acquire(b.index.lookup('/code.ts')!)
    const text = h.doc.getText('text')
    text.insert(text.toString().indexOf('line 90') + 7, ' // reviewed')
    h.release()
    // Agent on A rewrites the whole file with line 10 changed.
    const next = [...lines]
    next[10] = 'line 10 changed by the agent\n'
    await a.writeFile('/code.ts', next.join(''))
    await a.appendFile('/code.ts', 'appended by A\n')
    await b.appendFile('/code.ts', 'appended by B\n')
    await sync(a, b)
    const [content] = await expectConverged(a, b)
    expect(content).toContain('line 10 changed by the agent')
    expect(content).toContain('line 90 // reviewed')
    expect(content).toContain('appended by A')
    expect(content).toContain('appended by B')
    expect(content!.split('\n').length).toBe(100 + 2 + 1)
  })
})
