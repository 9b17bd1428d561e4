/**
 * Disk → workspace operations, each on one path the disk pass or the initial
 * pass chose: upload (create, or update through core's `fs.write` against
 * the last synced text: workspace-writer.ts), a mode change, a delete (to
 * the workspace trash; only what was synced), and a path whose kind changed
 * on disk (file ↔ folder).
 */
import { lstat, readlink } from 'node:fs/promises'
import { type FileId, paths } from '@yfs/core'
import { readBytes } from '../disk-read.js'
import type { ScannedNode } from '../disk-scan.js'
import { RootGuardError, symlinkEscapeReason } from '../root-guard.js'
import type { SyncEntry } from '../sync-state.js'
import { writeFromDisk } from '../workspace-writer.js'
import { heirOf, whileCreating } from './display-names.js'
import { change, depth, hostOf, rowAt, type SyncEngine, syncedUnder } from './engine.js'
import { mergeBoth, writeIfUnchanged } from './merge-both.js'
import { putFile, putFileSynced, putFolder, putSymlink, stampOf } from './records.js'
import { remoteChanged, setMeta } from './scheduler.js'

/** Create the workspace parent folders of `path` when missing. */
export async function ensureWsParent(engine: SyncEngine, path: string): Promise<void> {
  const parent = paths.dirname(path)
  if (parent === '/' || engine.port.idAt(parent) !== undefined) return
  await engine.fs.mkdir(parent, { recursive: true })
}

/** An edit beats a delete: bring the trashed file back (same id and history) before writing. */
async function restoreFromTrash(engine: SyncEngine, id: FileId, path: string): Promise<void> {
  const row = engine.port.row(id)
  if (!row || row.trashedAt === null || rowAt(engine, path)) return
  const restored = engine.fs.trash.restore(id)
  if (restored !== path && !rowAt(engine, path)) await engine.fs.mv(restored, path)
}

/**
 * What is on disk at `path` goes into the workspace: a folder, a symlink, or a file (created, or
 * written against the last synced text; merged when the workspace changed too). `node` is what a
 * scan saw there; `restoreId` a trashed row the file brings back (an edit beats a delete).
 */
export async function upload(
  engine: SyncEngine,
  path: string,
  node: ScannedNode | undefined,
  restoreId?: string,
): Promise<void> {
  const host = hostOf(engine, path)
  const st = await lstat(host).catch(() => undefined)
  if (!st) return
  if (st.isDirectory()) {
    await engine.fs.mkdir(path, { recursive: true })
    putFolder(engine, path, st.mode & 0o777)
    change(engine, 'to-workspace', 'mkdir', path)
    return
  }
  await ensureWsParent(engine, path)
  if (restoreId) await restoreFromTrash(engine, restoreId as FileId, path)
  if (st.isSymbolicLink()) {
    const t = node?.kind === 'symlink' ? node.hash.slice('link:'.length) : await readlink(host)
    const reason = symlinkEscapeReason(engine.dir, host, t)
    if (reason) throw new RootGuardError(path, reason)
    const existing = rowAt(engine, path)
    if (existing) await engine.fs.rm(path, { recursive: existing.type === 'folder' })
    await engine.fs.symlink(t, path)
    putSymlink(engine, path, t, st.mtimeMs)
    change(engine, 'to-workspace', existing ? 'update' : 'create', path, { kind: 'symlink' })
    return
  }
  const bytes = readBytes(host)
  if (!bytes) return
  if (bytes.byteLength > engine.fs.limits.maxFileSize) {
    engine.emit({ type: 'skip', path, code: 'EFBIG', reason: 'file larger than the workspace limit' })
    return
  }
  const entry = engine.state.get(path)
  const before = rowAt(engine, path)
  if (!entry && before?.type === 'file') return mergeBoth(engine, path, '')
  if (before && before.type !== 'file') {
    engine.emit({
      type: 'skip',
      path,
      code: 'EEXIST',
      reason: 'a folder or symlink in the workspace has this path',
    })
    return
  }
  if (
    !restoreId &&
    entry?.kind === 'file' &&
    entry.base === undefined &&
    before &&
    stampOf(before) !== entry.stamp
  )
    // No merge base (binary, or text over 1 MB) and the workspace changed since the
    // last sync: writing the disk bytes would silently drop that change, so both are kept.
    return mergeBoth(engine, path, undefined)
  // A new file: note the row the write creates (display-names.ts: ours may be shown as `f (1).txt`).
  const write = () => writeFromDisk(engine.fs, path, { bytes, base: entry?.base })
  const { result, created: mine } = before
    ? { result: await write(), created: undefined }
    : await whileCreating(engine, path, write)
  const row = mine !== undefined ? engine.port.row(mine) : rowAt(engine, path)
  if (!row) return
  const mode = st.mode & 0o777
  await setMeta(engine, row.id, {
    updatedAt: Math.round(st.mtimeMs),
    ...((row.mode ?? 0o644) !== mode ? { mode } : {}),
  })
  if (mine !== undefined && engine.port.pathOf(mine) !== path) {
    // Ours is shown under another name already: recorded where the disk has it, the remote pass
    // moves it to that name (and the other file is written here).
    putFile(engine, path, bytes, st.mtimeMs, mode, stampOf(row), undefined, row)
    remoteChanged(engine, mine)
    change(engine, 'to-workspace', 'create', path)
    return
  }
  // A merge is written back to disk (unless an editor saved meanwhile: then that save is next).
  if (!result.merged) await putFileSynced(engine, path, result.bytes, st.mtimeMs, mode)
  else if (await writeIfUnchanged(engine, path, host, bytes, result.bytes, mode))
    await putFileSynced(engine, path, result.bytes, (await lstat(host)).mtimeMs, mode)
  change(
    engine,
    'to-workspace',
    result.conflict ? 'conflict' : result.merged ? 'merge' : before ? 'update' : 'create',
    path,
  )
}

/** Only the executable bit changed on disk: chmod the workspace file and record it. */
export async function uploadMode(
  engine: SyncEngine,
  path: string,
  e: SyncEntry,
  node: ScannedNode,
): Promise<void> {
  const row = rowAt(engine, path)
  if (!row) return
  await engine.fs.chmod(path, node.mode)
  engine.state.put({
    ...e,
    mode: node.mode,
    mtimeMs: node.mtimeMs,
    stamp: stampOf(rowAt(engine, path) ?? row),
  })
  change(engine, 'to-workspace', 'mode', path)
}

/** The disk no longer has `path` (and everything below it): delete what we synced there from the workspace. */
export async function deleteRemote(engine: SyncEngine, path: string): Promise<void> {
  const entries = syncedUnder(engine, path).sort((a, b) => depth(b.path) - depth(a.path))
  let deleted = false
  for (const e of entries) {
    const row = rowAt(engine, e.path)
    // Only what we synced: a different file created there meanwhile stays.
    if (row && row.id === e.id) {
      if (row.type === 'folder') {
        // Entries the mirror does not know (ignored here, or new) keep the folder alive.
        if ((await engine.fs.readdir(e.path)).length === 0) await engine.fs.rm(e.path, { recursive: true })
      } else await engine.fs.rm(e.path)
      deleted = true
    }
    engine.state.delete(e.path)
    heirOf(engine, e.path, e.id as FileId)
  }
  if (deleted) change(engine, 'to-workspace', 'delete', path)
}

/**
 * The synced node `e` at `path` was replaced on disk by another kind (file ↔ folder): delete what
 * was synced there from the workspace (to its trash) so the new node can take the path. False
 * (reported) when the workspace changed it since: both are kept, as on a first run.
 */
export async function replacedKind(engine: SyncEngine, path: string, e: SyncEntry): Promise<boolean> {
  const row = rowAt(engine, path)
  if (row && (row.id !== e.id || (row.type !== 'folder' && stampOf(row) !== e.stamp))) {
    engine.emit({
      type: 'skip',
      path,
      code: 'EEXIST',
      reason: 'a file on one side and a folder on the other: resolve by renaming one',
    })
    return false
  }
  for (const p of engine.pendingDeletes.keys())
    if (paths.isSameOrDescendant(path, p)) engine.pendingDeletes.delete(p)
  await deleteRemote(engine, path)
  return true
}
