/**
 * The convergence invariants of issue 3, checked on a replica network after
 * a full sync. Returns the violations found (empty when everything holds),
 * each as one readable line, so a test can `expect(violations).toEqual([])`.
 *
 * 1. Every replica shows the same tree with the same contents.
 * 2. Every replica's incremental index equals a rebuild from its doc.
 * 3. Display paths are unique, and every path resolves back to its own row
 *    (so there is no cycle and no ambiguity).
 * 4. Every active row whose stored parent chain is active is reachable from
 *    `/` (an orphan or a cycle member shows at the root instead).
 * 5. No written text is lost or doubled: see `ContentLog` (trashed files count; only
 *    files deleted for good by an empty-trash are exempt).
 */
import { TEXT_KEY } from '../content/text-codec.js'
import { createFilesTable } from '../files-table.js'
import type { FileId } from '../ids.js'
import { createFileSystemIndex } from '../path-index.js'
import { dumpIndex } from './dump-index.js'
import type { ReplicaNetwork } from './replica-network.js'
import type { ContentLog } from './replica-ops.js'
import { snapshotFileSystem } from './snapshot.js'

const count = (haystack: string, needle: string) => haystack.split(needle).length - 1

/** Invariant 2 alone, for any moment (not only after a full sync): each index equals a rebuild. */
export function checkIndexes(net: ReplicaNetwork): string[] {
  const violations: string[] = []
  for (const { index: i, fs } of net.replicas) {
    const rebuilt = createFileSystemIndex(createFilesTable(fs.doc))
    const got = JSON.stringify(dumpIndex(fs.index, fs.table))
    const want = JSON.stringify(dumpIndex(rebuilt, fs.table))
    rebuilt.destroy()
    if (got !== want) violations.push(`replica ${i}: index ${got} differs from rebuild ${want}`)
  }
  return violations
}

export async function checkConvergence(net: ReplicaNetwork, log: ContentLog = new Map()): Promise<string[]> {
  const violations: string[] = []
  const snapshots = await Promise.all(net.replicas.map((r) => snapshotFileSystem(r.fs)))
  for (const [i, s] of snapshots.entries()) {
    if (JSON.stringify(s) !== JSON.stringify(snapshots[0]))
      violations.push(
        `replica ${i} differs from replica 0: ${JSON.stringify(s)} vs ${JSON.stringify(snapshots[0])}`,
      )
  }
  violations.push(...checkIndexes(net))
  for (const { index: i, fs } of net.replicas) {
    const all = fs.index.allPaths()
    if (new Set(all).size !== all.length)
      violations.push(`replica ${i}: duplicate paths ${JSON.stringify(all)}`)
    for (const row of fs.table.rows()) {
      const path = fs.index.pathOf(row.id)
      if (path !== undefined && fs.index.lookup(path) !== row.id)
        violations.push(`replica ${i}: ${path} does not resolve back to ${row.id}`)
      let chainActive = row.trashedAt === null
      const seen = new Set<FileId>([row.id])
      for (let p = row.parentId; p !== null && chainActive; ) {
        const parent = fs.table.get(p)
        if (parent?.type !== 'folder' || seen.has(p)) break // orphan or cycle: shown at the root
        seen.add(p)
        chainActive = parent.trashedAt === null
        p = parent.parentId
      }
      if (chainActive && path === undefined)
        violations.push(`replica ${i}: active row ${row.name} (${row.id}) unreachable`)
    }
  }
  // Content: read on replica 0 through its pool (trashed files included).
  const fs = net.replicas[0]!.fs
  for (const [id, entries] of log) {
    if (fs.table.get(id)?.type !== 'file') continue // deleted for good (or never arrived: then replica trees differ)
    const lastWrite = entries.findLastIndex((e) => e.kind === 'write')
    const mustHave = entries.slice(lastWrite + 1).map((e) => e.text)
    if (lastWrite === 0) mustHave.unshift(entries[0]!.text)
    if (mustHave.every((t) => t === '')) continue
    const handle = await fs.pool.acquire(id)
    const text = handle.doc.getText(TEXT_KEY).toString()
    handle.release()
    for (const t of mustHave) {
      if (t !== '' && count(text, t) !== 1)
        violations.push(
          `file ${id}: ${JSON.stringify(t)} appears ${count(text, t)} times in ${JSON.stringify(text)}`,
        )
    }
  }
  return violations
}
