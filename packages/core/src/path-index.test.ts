import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createFilesTable, type FileRow } from './files-table.js'
import { asFileId, ROOT_ID } from './ids.js'
import { createFileSystemIndex } from './path-index.js'

const row = (id: string, name: string, parentId: string | null, extra: Partial<FileRow> = {}): FileRow => ({
  id: asFileId(id),
  name,
  parentId: parentId === null ? null : asFileId(parentId),
  type: 'folder',
  size: 0,
  createdAt: 1,
  updatedAt: 1,
  trashedAt: null,
  ...extra,
})

function setup(rows: FileRow[]) {
  const doc = new Y.Doc()
  const table = createFilesTable(doc)
  table.batch(() => {
    for (const r of rows) table.set(r)
  })
  const index = createFileSystemIndex(table)
  const rebuilt = () => createFileSystemIndex(createFilesTable(doc)).snapshot()
  return { doc, table, index, rebuilt }
}

describe('path index', () => {
  it('resolves paths both ways and lists children sorted by code unit', () => {
    const { index } = setup([
      row('a', 'src', null),
      row('b', 'lib', 'a'),
      row('c', 'Z.ts', 'a', { type: 'file' }),
      row('d', 'a.ts', 'a', { type: 'file' }),
    ])
    expect(index.lookup('/src/lib')).toBe('b')
    expect(index.pathOf(asFileId('c'))).toBe('/src/Z.ts')
    expect(index.childNames(asFileId('a'))).toEqual(['Z.ts', 'a.ts', 'lib'])
    expect(index.lookup('/')).toBe(ROOT_ID)
    expect(index.lookup('/src/nope')).toBeUndefined()
    expect(index.allPaths()).toEqual(['/src', '/src/Z.ts', '/src/a.ts', '/src/lib'])
  })

  it('a move updates paths of the whole subtree and stays equal to a rebuild', () => {
    const { table, index, rebuilt } = setup([
      row('a', 'x', null),
      row('b', 'y', 'a'),
      row('c', 'f', 'b', { type: 'file' }),
    ])
    table.update(asFileId('b'), { parentId: null, name: 'moved' })
    expect(index.pathOf(asFileId('c'))).toBe('/moved/f')
    expect(index.lookup('/x/y/f')).toBeUndefined()
    expect(index.snapshot()).toEqual(rebuilt())
  })

  it('orphans appear at the root and go back when the parent returns', () => {
    const { table, index, rebuilt } = setup([row('p', 'parent', null), row('c', 'child', 'p')])
    const parent = table.get(asFileId('p'))!
    table.delete([asFileId('p')])
    expect(index.pathOf(asFileId('c'))).toBe('/child')
    expect(index.snapshot()).toEqual(rebuilt())
    table.set(parent)
    expect(index.pathOf(asFileId('c'))).toBe('/parent/child')
    expect(index.snapshot()).toEqual(rebuilt())
  })

  it('a parent cycle shows its most recently changed member at the root, nothing disappears', () => {
    const { table, index, rebuilt } = setup([row('x', 'X', null), row('y', 'Y', null)])
    table.batch(() => {
      table.update(asFileId('x'), { parentId: asFileId('y'), updatedAt: 10 })
      table.update(asFileId('y'), { parentId: asFileId('x'), updatedAt: 20 })
    })
    expect(index.pathOf(asFileId('y'))).toBe('/Y')
    expect(index.pathOf(asFileId('x'))).toBe('/Y/X')
    expect(index.snapshot()).toEqual(rebuilt())
  })

  it('trashed folders hide their subtree; duplicate names get suffixes', () => {
    const { table, index, rebuilt } = setup([
      row('d', 'docs', null),
      row('f1', 'a.md', 'd', { type: 'file', createdAt: 1 }),
      row('f2', 'a.md', 'd', { type: 'file', createdAt: 2 }),
    ])
    expect(index.childNames(asFileId('d'))).toEqual(['a (1).md', 'a.md'])
    expect(index.lookup('/docs/a (1).md')).toBe('f2')
    table.update(asFileId('f1'), { name: 'b.md' })
    expect(index.childNames(asFileId('d'))).toEqual(['a.md', 'b.md'])
    table.update(asFileId('d'), { trashedAt: 5 })
    expect(index.lookup('/docs/a.md')).toBeUndefined()
    expect(index.isVisible(asFileId('f2'))).toBe(false)
    expect(index.snapshot()).toEqual(rebuilt())
  })

  it('a row leaving a folder with duplicate names for a trashed state keeps no stale name (fuzz regression)', () => {
    const { table, index, rebuilt } = setup([
      row('a', 'a', null),
      row('y', 'y.md', 'a', { type: 'file' }),
      row('c', 'y.md', null), // a folder at the root, renamed there by one peer
      row('d1', 'd', null, { createdAt: 1 }),
      row('d2', 'd', null, { createdAt: 2, type: 'file' }), // duplicate names at the root
    ])
    expect(index.pathOf(asFileId('c'))).toBe('/y.md')
    // Another peer's write wins: back in /a under its old name, and trashed.
    table.update(asFileId('c'), { name: 'c', parentId: asFileId('a'), trashedAt: 9 })
    expect(index.pathOf(asFileId('c'))).toBeUndefined()
    expect(index.lookup('/a/y.md')).toBe('y')
    expect(index.snapshot()).toEqual(rebuilt())
  })
})

describe('files table', () => {
  it('rejects invalid local rows and ignores invalid rows from peers', async () => {
    const doc = new Y.Doc()
    const table = createFilesTable(doc)
    expect(() => table.set({ ...row('a', 'x', null), type: 'weird' as never })).toThrow(TypeError)
    doc.getArray('files').push([{ key: 'b', val: { id: 'b', name: 7 }, ts: 1 }])
    expect(table.get(asFileId('b'))).toBeUndefined()
    expect([...table.rows()]).toEqual([])
  })

  it('a peer loading the rows lists every child (trashed and orphaned ones too), and the lists follow changes', () => {
    const { doc } = setup([
      row('a', 'a', null),
      row('x', 'x', 'a', { type: 'file' }),
      row('t', 't', 'a', { type: 'file', trashedAt: 5 }),
      row('o', 'o', 'gone', { type: 'file' }), // parent row missing: shown at the root
      row('f', 'f', 'x'), // parent is a file: shown at the root
    ])
    const peer = new Y.Doc()
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc))
    const table = createFilesTable(peer)
    const index = createFileSystemIndex(table)
    const ids = (s: ReadonlySet<string>) => [...s].sort()
    expect(ids(index.allChildren(ROOT_ID))).toEqual(['a', 'f', 'o'])
    expect(ids(index.allChildren(asFileId('a')))).toEqual(['t', 'x'])
    expect([index.effectiveParent(asFileId('o')), index.effectiveParent(asFileId('x'))]).toEqual([
      ROOT_ID,
      'a',
    ])
    table.update(asFileId('x'), { parentId: null })
    table.set(row('gone', 'gone', null))
    expect(ids(index.allChildren(ROOT_ID))).toEqual(['a', 'f', 'gone', 'x'])
    expect(ids(index.allChildren(asFileId('a')))).toEqual(['t'])
    expect(ids(index.allChildren(asFileId('gone')))).toEqual(['o'])
    expect(index.pathOf(asFileId('o'))).toBe('/gone/o')
    expect(index.snapshot()).toEqual(createFileSystemIndex(createFilesTable(peer)).snapshot())
  })

  it('hands listeners the paths rows had before the change, in folders not named before too', () => {
    const { doc, table } = setup([
      row('a', 'a', null),
      row('b', 'b', null),
      row('x', 'x', 'a', { type: 'file' }),
      row('y', 'y', 'x'),
    ])
    const peer = new Y.Doc()
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc))
    const index = createFileSystemIndex(createFilesTable(peer))
    const seen: string[] = []
    index.onChange((changes, oldPaths) => {
      for (const id of changes.keys()) seen.push(`${id}: ${oldPaths.get(id)} -> ${index.pathOf(id)}`)
    })
    // Nobody on the peer looked into /a yet; one update renames /a and moves x out of it.
    const updates: Uint8Array[] = []
    doc.on('update', (u: Uint8Array) => updates.push(u))
    table.batch(() => {
      table.update(asFileId('a'), { name: 'c' })
      table.update(asFileId('x'), { parentId: asFileId('b'), name: 'z' })
    })
    for (const u of updates) Y.applyUpdate(peer, u)
    expect(seen.sort()).toEqual(['a: /a -> /c', 'x: /a/x -> /b/z'])
  })
})
