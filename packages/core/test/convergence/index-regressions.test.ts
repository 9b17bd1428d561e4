/**
 * Deterministic regressions found by the index property test
 * (index-rebuild.property.test.ts): each case is the shrunk counterexample.
 */
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { asFileId, createFileSystemIndex, createFilesTable, type FileRow } from '../../src/index.js'
import { dumpIndex } from '../../src/testing/index.js'

const row = (
  id: string,
  name: string,
  parentId: string | null,
  type: FileRow['type'],
  updatedAt = 0,
): FileRow => ({
  id: asFileId(id),
  name,
  parentId: parentId === null ? null : asFileId(parentId),
  type,
  size: 0,
  createdAt: 0,
  updatedAt,
  trashedAt: null,
})

describe('index regressions', () => {
  it('a folder whose parent is a symlink inside that folder is an orphan, not a cycle', () => {
    const doc = new Y.Doc()
    const table = createFilesTable(doc)
    const index = createFileSystemIndex(table)
    table.batch(() => {
      table.set(row('f', 'a', 'link', 'folder')) // parent not arrived yet: an orphan at the root
      table.set(row('other', 'a', null, 'folder'))
    })
    // The parent arrives, and it is a symlink inside `f`: `f` stays an orphan, the link sits in `f`.
    table.set(row('link', 'a', 'f', 'symlink', 1))
    expect(index.pathOf(asFileId('link'))).toBe('/a/a') // 'f' < 'other': the older-by-id sibling keeps the name
    expect(dumpIndex(index, table)).toEqual(dumpIndex(createFileSystemIndex(createFilesTable(doc)), table))
  })
})
