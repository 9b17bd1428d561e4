/**
 * A full, comparable dump of a path index: for every row its effective
 * parent, display name and path, for every folder its child names, plus the
 * counters. Comparing the dump of an incrementally updated index with the
 * dump of a rebuild (`createFileSystemIndex(createFilesTable(doc))`) checks
 * more than `index.snapshot()`: hidden rows' placement and names too.
 */
import type { FilesTable } from '../files-table.js'
import { ROOT_ID } from '../ids.js'
import type { FileSystemIndex } from '../path-index.js'

export interface IndexDump {
  rows: Record<string, { parent: string | undefined; name: string | undefined; path: string | undefined }>
  children: Record<string, string[]>
  paths: string[]
  totalBytes: number
  nodeCount: number
  symlinkCount: number
}

export function dumpIndex(index: FileSystemIndex, table: FilesTable): IndexDump {
  const rows: IndexDump['rows'] = {}
  const children: IndexDump['children'] = { [ROOT_ID]: [...index.childNames(ROOT_ID)] }
  const ids = [...table.rows()].map((r) => r.id).sort()
  for (const id of ids) {
    rows[id] = { parent: index.effectiveParent(id), name: index.displayName(id), path: index.pathOf(id) }
    if (table.get(id)?.type === 'folder') children[id] = [...index.childNames(id)]
  }
  return {
    rows,
    children,
    paths: index.allPaths(),
    totalBytes: index.totalBytes,
    nodeCount: index.nodeCount,
    symlinkCount: index.symlinkCount,
  }
}
