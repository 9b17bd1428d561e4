/**
 * The initial pass's batches of new files, both ways: new disk files into an
 * empty workspace path with one `fs.writeTree` per chunk (all or nothing),
 * and new workspace files onto empty disk paths with `writeFilesAtomic`
 * (temps, fsyncs together, renames) and their state records in one SQLite
 * transaction. Each returns the paths it did; the initial pass takes the
 * others one by one, which reports why they fail.
 */
import { dirname } from 'node:path'
import { decodeTextOrBinary, type FileRow, isFsError } from '@yfs/core'
import { readBytes } from '../disk-read.js'
import { hashBytes, type ScannedNode } from '../disk-scan.js'
import { type BatchFile, makeFolder, writeFilesAtomic } from '../disk-writer.js'
import { forEachLimited } from '../limit.js'
import { assertParentInside } from '../root-guard.js'
import { change, hostOf, rowAt, type SyncEngine } from './engine.js'
import { putFile, stampOf } from './records.js'

/**
 * Upload new files with one `fs.writeTree` (all or nothing), each with its
 * disk mtime and mode in the same row transaction; returns the paths
 * loaded. Bytes the scan kept are used as they are (they match the hash
 * the state will record; a file changed since is seen by the next
 * compare); others are read again and must still match the scanned hash.
 * On any failure nothing was written and the caller uploads them one by
 * one (which reports the failing file on its own).
 */
export async function bulkUpload(
  engine: SyncEngine,
  list: string[],
  disk: Map<string, ScannedNode>,
  scanned: Map<string, Uint8Array>,
): Promise<Set<string>> {
  const files: { path: string; bytes: Uint8Array; node: ScannedNode; text: string | undefined }[] = []
  await forEachLimited(list, 32, async (path) => {
    const node = disk.get(path)
    if (!node) return
    let bytes = scanned.get(path)
    if (!bytes)
      try {
        bytes = readBytes(hostOf(engine, path))
      } catch {
        // Unreadable: left to the one-by-one upload, which reports why.
        return
      }
    if (!bytes || (!scanned.has(path) && hashBytes(bytes) !== node.hash)) return
    files.push({ path, bytes, node, text: decodeTextOrBinary(bytes) })
  })
  if (files.length === 0) return new Set()
  try {
    await engine.fs.writeTree(
      files.map((f) => ({
        path: f.path,
        content: f.text ?? f.bytes,
        mtime: Math.round(f.node.mtimeMs),
        ...(f.node.mode !== 0o644 ? { mode: f.node.mode } : {}),
      })),
    )
  } catch (error) {
    // All or nothing: nothing was written; the files go through the one-by-one path.
    if (!isFsError(error)) throw error
    return new Set()
  }
  engine.state.batch(() => {
    for (const f of files)
      putFile(engine, f.path, f.bytes, f.node.mtimeMs, f.node.mode, undefined, {
        hash: f.node.hash,
        text: f.text,
      })
  })
  for (const f of files) change(engine, 'to-workspace', 'create', f.path)
  return new Set(files.map((f) => f.path))
}

/**
 * Write workspace files to paths that are empty on disk, as one batch:
 * contents fetched concurrently (core loads a folder's docs per round
 * trip), each parent folder checked against the root once, the files
 * written with `writeFilesAtomic` (temps, fsyncs together, renames; a
 * path that got a file meanwhile is left alone), their state rows in one
 * SQLite transaction. Returns the paths written; the caller takes the
 * others one by one (which reports why they fail).
 */
export async function bulkDownload(engine: SyncEngine, list: string[]): Promise<Set<string>> {
  const items: {
    path: string
    host: string
    bytes: Uint8Array
    mode: number
    stamp: string
    row: FileRow
  }[] = []
  const files: BatchFile[] = []
  await forEachLimited(list, 64, async (path) => {
    const row = rowAt(engine, path)
    if (row?.type !== 'file') return
    // The stamp of the row we act on: a change arriving while we write is seen as a change afterwards.
    const stamp = stampOf(row)
    let host: string
    try {
      host = hostOf(engine, path)
    } catch {
      // A name the root guard refuses: the one-by-one path reports it.
      return
    }
    const bytes = await engine.fs.readFileBuffer(path).then(
      (b) => new Uint8Array(b),
      () => undefined,
    )
    if (!bytes) return
    const mode = (row.mode ?? 0o644) & 0o777
    items.push({ path, host, bytes, mode, stamp, row })
    files.push({ host, bytes, mode, mtimeMs: row.updatedAt })
  })
  // Each parent folder once: inside the root (no symlink leading out), and created.
  const parents = new Map<string, Promise<boolean>>()
  const parentOk = (item: (typeof items)[number]) => {
    const parent = dirname(item.host)
    let ok = parents.get(parent)
    if (!ok) {
      ok = assertParentInside(engine.realRoot, item.host, item.path)
        .then(() => makeFolder(parent))
        .then(
          () => true,
          () => false,
        )
      parents.set(parent, ok)
    }
    return ok
  }
  const allowed = await Promise.all(items.map(parentOk))
  const chosen = items.filter((_, k) => allowed[k])
  const outcomes = await writeFilesAtomic(
    files.filter((_, k) => allowed[k]),
    { replace: false, concurrency: engine.concurrency },
  )
  const written = new Set<string>()
  engine.state.batch(() => {
    chosen.forEach((item, k) => {
      const outcome = outcomes[k]!
      if (!outcome.ok) return
      // The row the bytes came from (see download): a delete meanwhile still finds the file by id.
      putFile(engine, item.path, item.bytes, outcome.mtimeMs, item.mode, item.stamp, undefined, item.row)
      written.add(item.path)
    })
  })
  for (const item of chosen) if (written.has(item.path)) change(engine, 'to-disk', 'create', item.path)
  return written
}
