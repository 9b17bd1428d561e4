/**
 * Start-up and full compares: scan the folder, snapshot the workspace rows
 * and the sync state, apply `reconcile` (reconcile.ts documents the
 * first-run and offline merge rules), and run the operations it returns:
 * moves and folders one by one first, new files in batches both ways
 * (bulk-transfers.ts), the rest with `concurrency` in flight, deletes last.
 * Moves and replaced kinds come alone, so it compares again once they are
 * applied (up to five rounds). The first round of the initial pass reports
 * progress, and keeps the bytes it hashed for the upload.
 */
import { paths } from '@yfs/core'
import type { ScannedNode } from '../disk-scan.js'
import { scanDisk } from '../disk-scan.js'
import { moveEntry } from '../disk-writer.js'
import { forEachLimited } from '../limit.js'
import { reconcile, type SyncOp } from '../reconcile.js'
import { bulkDownload, bulkUpload } from './bulk-transfers.js'
import {
  change,
  depth,
  guardedHost,
  ignored,
  isSystemPath,
  report,
  rowAt,
  type SyncEngine,
} from './engine.js'
import { deleteLocal } from './local-deletes.js'
import { mergeBoth } from './merge-both.js'
import { moveRemote } from './moves.js'
import { knownHash, putFolder, restamp, stateSnapshot, workspaceSnapshot } from './records.js'
import { startWatcher } from './scheduler.js'
import { download } from './to-disk.js'
import { deleteRemote, upload } from './to-workspace.js'

/** New files per `fs.writeTree` call (and per batch of disk writes) during the initial pass. */
const BULK_CHUNK = 500
/** Operations that write files or folders to disk in bulk (the watcher waits for them on a first pass). */
const DISK_WRITING_OPS: ReadonlySet<SyncOp['type']> = new Set([
  'download',
  'delete-local',
  'move-local',
  'merge',
  'compare',
])
/** Bytes of file contents the first scan keeps for the initial upload (beyond it, files are read again). */
const KEEP_SCANNED_BYTES = 64 * 1024 * 1024

/** Compare everything (the folder, the workspace, the state) and apply the differences; `initial` at start-up. */
export async function fullReconcile(engine: SyncEngine, initial: boolean): Promise<void> {
  await engine.rules.reload('/')
  for (let round = 0; round < 5; round++) {
    const scan = await scanDisk(engine.dir, {
      rules: { ...engine.rules, ignores: (p, d) => ignored(engine, p, d) },
      maxFileSize: engine.fs.limits.maxFileSize,
      // The first pass keeps what it hashed, so new files are uploaded without a second read.
      keepBytes: initial && round === 0 ? KEEP_SCANNED_BYTES : 0,
      knownHash: (path, size, mtimeMs) => knownHash(engine, path, size, mtimeMs),
    })
    for (const [path] of scan.nodes)
      if (isSystemPath(path)) {
        scan.nodes.delete(path)
        if (round === 0 && depth(path) === 2)
          engine.emit({
            type: 'skip',
            path,
            code: 'EINVAL',
            reason: 'reserved top-level name in a workspace',
          })
      }
    if (round === 0) for (const s of scan.skipped) engine.emit({ type: 'skip', ...s })
    // A refused path (over the size limit, a symlink leading out, unreadable) is there on disk,
    // not deleted: it, and what is below it, is left alone on both sides instead of looking like a delete.
    const workspace = workspaceSnapshot(engine)
    const state = stateSnapshot(engine)
    if (scan.skipped.length > 0) {
      const refused = new Set(scan.skipped.map((s) => s.path))
      const isRefused = (p: string) => {
        if (refused.has(p) && !scan.nodes.has(p)) return true
        for (let up = paths.dirname(p); up !== '/'; up = paths.dirname(up)) if (refused.has(up)) return true
        return false
      }
      for (const p of workspace.keys()) if (isRefused(p)) workspace.delete(p)
      for (const p of state.keys()) if (isRefused(p)) state.delete(p)
    }
    const ops = reconcile({ disk: scan.nodes, workspace, state })
    if (ops.length === 0) return
    // A first pass that writes nothing to disk (an ingest) lets the watcher do its initial scan
    // meanwhile, while this pass waits for the server; what it reports is compared again anyway.
    if (initial && round === 0 && !ops.some((op) => DISK_WRITING_OPS.has(op.type))) void startWatcher(engine)
    await execute(engine, ops, scan.nodes, initial && round === 0, scan.bytes)
    // Moves and replaced kinds come alone: compare again once they are applied.
    if (!ops.every((op) => op.type.startsWith('move-') || op.type === 'delete-remote')) return
  }
}

/** Run `reconcile`'s operations (see the module comment for the order); `progress` reports them. */
async function execute(
  engine: SyncEngine,
  ops: SyncOp[],
  disk: Map<string, ScannedNode>,
  progress: boolean,
  scanned: Map<string, Uint8Array>,
): Promise<void> {
  const total = ops.length
  let done = 0
  let lastReport = 0
  const tick = () => {
    done++
    const now = Date.now()
    if (progress && (now - lastReport > 100 || done === total)) {
      lastReport = now
      engine.emit({ type: 'progress', phase: 'initial', done, total })
    }
  }
  const runOne = async (op: SyncOp) => {
    try {
      await runOp(engine, op, disk)
    } catch (error) {
      report(engine, error, op.path)
    }
    tick()
  }
  const transfers = ops.filter(
    (op) => op.type !== 'delete-local' && op.type !== 'delete-remote' && op.type !== 'forget',
  )
  const sequential = transfers.filter(
    (op) =>
      op.type.startsWith('move-') ||
      disk.get(op.path)?.kind === 'folder' ||
      rowAt(engine, op.path)?.type === 'folder',
  )
  const sequentialSet = new Set<SyncOp>(sequential)
  const transferSet = new Set<SyncOp>(transfers)
  for (const op of sequential) await runOne(op)
  // New files for an empty path in the workspace go in bulk (core's writeTree: one round trip per chunk).
  const bulk = transfers.filter(
    (op) =>
      op.type === 'upload' &&
      op.kind === 'file' &&
      op.restoreId === undefined &&
      !engine.state.get(op.path) &&
      engine.port.idAt(op.path) === undefined &&
      disk.get(op.path)?.kind === 'file',
  )
  const bulkSet = new Set<SyncOp>(bulk)
  const leftover: SyncOp[] = []
  for (let i = 0; i < bulk.length; i += BULK_CHUNK) {
    const chunk = bulk.slice(i, i + BULK_CHUNK)
    const loaded = await bulkUpload(
      engine,
      chunk.map((op) => op.path),
      disk,
      scanned,
    )
    for (const op of chunk) {
      if (loaded.has(op.path)) tick()
      else leftover.push(op)
    }
  }
  // New files for an empty path on disk go in batches too (fetched per folder, fsynced together).
  const downloads = transfers.filter(
    (op) =>
      op.type === 'download' &&
      !sequentialSet.has(op) &&
      !disk.has(op.path) &&
      !engine.state.get(op.path) &&
      rowAt(engine, op.path)?.type === 'file',
  )
  for (const op of downloads) bulkSet.add(op)
  const downloadChunks: SyncOp[][] = []
  for (let i = 0; i < downloads.length; i += BULK_CHUNK)
    downloadChunks.push(downloads.slice(i, i + BULK_CHUNK))
  // Two chunks in flight: one's contents come from the server while the other's files are written and flushed.
  await forEachLimited(downloadChunks, 2, async (chunk) => {
    const written = await bulkDownload(
      engine,
      chunk.map((op) => op.path),
    )
    for (const op of chunk) {
      if (written.has(op.path)) tick()
      else leftover.push(op)
    }
  })
  const parallel = [...leftover, ...transfers.filter((op) => !sequentialSet.has(op) && !bulkSet.has(op))]
  await forEachLimited(parallel, engine.concurrency, runOne)
  for (const op of ops.filter((o) => !transferSet.has(o))) await runOne(op)
  await engine.metaFlush
}

/** One operation of `reconcile` at one path. */
async function runOp(engine: SyncEngine, op: SyncOp, disk: Map<string, ScannedNode>): Promise<void> {
  switch (op.type) {
    case 'upload':
      return upload(engine, op.path, disk.get(op.path), op.restoreId)
    case 'download':
      return download(engine, op.path)
    case 'compare':
    case 'merge':
      return mergeBoth(engine, op.path, op.type === 'merge' ? engine.state.get(op.path)?.base : '')
    case 'record': {
      const d = disk.get(op.path)
      if (d?.kind === 'folder') putFolder(engine, op.path, d.mode)
      return
    }
    case 'delete-remote':
      return deleteRemote(engine, op.path)
    case 'delete-local':
      return deleteLocal(engine, op.path)
    case 'move-local': {
      await moveEntry(await guardedHost(engine, op.from), await guardedHost(engine, op.path))
      engine.state.move(op.from, op.path)
      restamp(engine, op.path)
      change(engine, 'to-disk', 'move', op.path, { from: op.from })
      return
    }
    case 'move-remote': {
      if (await moveRemote(engine, op.from, op.path)) return
      // The workspace lost the source meanwhile: what is on disk at the new path is new.
      const node = disk.get(op.path)
      if (node?.kind !== 'folder') return upload(engine, op.path, node)
      await engine.fs.mkdir(op.path, { recursive: true })
      putFolder(engine, op.path, node.mode)
      return
    }
    case 'forget':
      engine.state.delete(op.path)
      return
    case 'kind-conflict':
      engine.emit({
        type: 'skip',
        path: op.path,
        code: 'EEXIST',
        reason: 'a file on one side and a folder on the other: resolve by renaming one',
      })
      return
  }
}
