/**
 * Workspace → disk, live: the remote pass takes every row a peer changed
 * (core's row changes, marked dirty by id) and compares it with the sync
 * state by id, so a rename, a move, a trash or a restore becomes a rename,
 * a delete or a create on disk, and a new row stamp a download. Also the
 * download operation itself, which the initial pass uses too.
 */
import { chmod, lstat } from 'node:fs/promises'
import type { FileId } from '@yfs/core'
import { exists } from '../disk-read.js'
import { hashBytes, inspect } from '../disk-scan.js'
import { makeFolder, moveEntry, writeFileAtomic, writeSymlinkAtomic } from '../disk-writer.js'
import { RootGuardError, symlinkEscapeReason } from '../root-guard.js'
import { heirOf } from './display-names.js'
import {
  change,
  guardedHost,
  hostOf,
  ignored,
  isSystemPath,
  report,
  rootLost,
  rowAt,
  type SyncEngine,
} from './engine.js'
import { removeLocalTree } from './local-deletes.js'
import { mergeBoth } from './merge-both.js'
import { putFile, putFolder, putSymlink, restamp, stampOf } from './records.js'
import { diskChanged } from './scheduler.js'

/** The remote pass: every dirty id (and what it brings along: a folder's subtree, a namesake) to disk. */
export async function remotePass(engine: SyncEngine): Promise<void> {
  if (rootLost(engine)) return
  const ids = [...engine.wsDirty]
  engine.wsDirty.clear()
  const queue = [...ids]
  const seen = new Set<FileId>()
  while (queue.length > 0) {
    const id = queue.shift()!
    if (seen.has(id)) continue
    seen.add(id)
    try {
      await remoteId(engine, id, queue)
    } catch (error) {
      report(engine, error, engine.port.pathOf(id))
    }
  }
  await engine.metaFlush
}

/** One row to disk: moved (a rename on disk), gone (a delete), new or changed (a download). */
async function remoteId(
  engine: SyncEngine,
  id: FileId,
  queue: FileId[],
  following = new Set<FileId>(),
): Promise<void> {
  following.add(id)
  const compare = engine.wsCompare.delete(id)
  const row = engine.port.row(id)
  let path = row && row.trashedAt === null ? engine.port.pathOf(id) : undefined
  if (
    path !== undefined &&
    (path === '/' || isSystemPath(path) || ignored(engine, path, row?.type === 'folder'))
  )
    path = undefined
  // Refuse (and report) a path that could not live inside the folder before anything else.
  if (path !== undefined) hostOf(engine, path)
  const old = engine.state.pathOfId(id)
  if (path === undefined || !row) {
    if (old !== undefined) {
      await removeLocalTree(engine, old)
      heirOf(engine, old, id)
    }
    return
  }
  if (old !== undefined && old !== path) {
    const from = await guardedHost(engine, old)
    const to = await guardedHost(engine, path)
    if ((await exists(from)) && !(await exists(to))) {
      await moveEntry(from, to)
      engine.state.move(old, path)
      // A file keeps its old stamp: the row's stamp now may include a content change that came
      // with the move (a peer renamed and wrote it), which the download below compares and writes.
      if (row.type === 'folder') restamp(engine, path)
      change(engine, 'to-disk', 'move', path, { from: old })
    } else await removeLocalTree(engine, old)
    heirOf(engine, old, id)
  }
  // The disk file at `path` is another row's, which the workspace shows elsewhere now: two files
  // of one name (created on both sides at once, or moved there), and core shows the later-created
  // one as `f (1).txt`. That row's disk file follows its name first, then this row takes `path`.
  const held = engine.state.get(path)
  if (held && held.id !== id && !following.has(held.id as FileId)) {
    const other = engine.port.pathOf(held.id as FileId)
    if (other !== undefined && other !== path) await remoteId(engine, held.id as FileId, queue, following)
  }
  const e = engine.state.get(path)
  if (row.type === 'folder') {
    if (!e || e.id !== id) {
      await download(engine, path)
      // A folder that appears (restored, moved in from an ignored place) brings its subtree.
      const walk = (folder: FileId) => {
        for (const child of engine.port.childrenOf(folder)) {
          queue.push(child)
          walk(child)
        }
      }
      walk(id)
    } else restamp(engine, path)
    return
  }
  if (e && e.id === id && e.stamp === stampOf(row) && !compare) return
  await download(engine, path)
}

/** Write the workspace node at `path` to disk (merging when the disk file changed too). */
export async function download(engine: SyncEngine, path: string): Promise<void> {
  const row = rowAt(engine, path)
  if (!row) return
  // The stamp of the row we act on: a change arriving while we write is seen as a change afterwards.
  // Records name this row, not the one at `path` once the write is done: a delete landing during
  // the write leaves no row there, and a record without the id would keep the file on disk for
  // good (the remote pass finds what to remove by id).
  const stamp = stampOf(row)
  const host = await guardedHost(engine, path)
  if (row.type === 'folder') {
    const st = await lstat(host).catch(() => undefined)
    if (st && !st.isDirectory()) {
      engine.emit({
        type: 'skip',
        path,
        code: 'EEXIST',
        reason: 'a file on disk has the path of a workspace folder',
      })
      return
    }
    if (!st) await makeFolder(host)
    putFolder(engine, path, undefined, row)
    if (!st) change(engine, 'to-disk', 'mkdir', path)
    return
  }
  if (row.type === 'symlink') {
    const target = row.target ?? ''
    const reason = symlinkEscapeReason(engine.dir, host, target)
    if (reason) throw new RootGuardError(path, reason)
    const st = await lstat(host).catch(() => undefined)
    if (st?.isDirectory()) {
      engine.emit({
        type: 'skip',
        path,
        code: 'EEXIST',
        reason: 'a folder on disk has the path of a workspace symlink',
      })
      return
    }
    await writeSymlinkAtomic(host, target)
    putSymlink(engine, path, target, (await lstat(host)).mtimeMs, row)
    change(engine, 'to-disk', st ? 'update' : 'create', path, { kind: 'symlink' })
    return
  }
  const bytes = new Uint8Array(await engine.fs.readFileBuffer(path))
  const entry = engine.state.get(path)
  const current = await inspect(engine.dir, host, path, {
    rules: engine.rules,
    maxFileSize: engine.fs.limits.maxFileSize,
  })
  if (current.skipped) {
    // The disk file is over the limit (or a link leading out): neither merged nor overwritten.
    engine.emit({ type: 'skip', ...current.skipped })
    return
  }
  if (current.node && current.node.kind !== 'file') {
    engine.emit({ type: 'skip', path, code: 'EEXIST', reason: 'a folder or symlink on disk has this path' })
    return
  }
  if (current.node && current.node.hash !== (entry?.hash ?? '') && current.node.hash !== hashBytes(bytes)) {
    // The disk file changed too (and was not synced yet): merge instead of overwriting it.
    return mergeBoth(engine, path, entry?.base ?? '')
  }
  const mode = (row.mode ?? 0o644) & 0o777
  if (current.node && current.node.hash === hashBytes(bytes)) {
    // Same bytes: only the mode may have changed (a chmod arrives as its own row update).
    if ((current.node.mode & 0o111) !== (mode & 0o111)) {
      await chmod(host, mode)
      putFile(engine, path, bytes, (await lstat(host)).mtimeMs, mode, stamp, undefined, row)
      change(engine, 'to-disk', 'mode', path)
      return
    }
    putFile(engine, path, bytes, current.node.mtimeMs, current.node.mode, stamp, undefined, row)
    return
  }
  // Only over what was inspected: an editor's save landing while the file was written (the fsync
  // takes a while) is merged on the next pass instead of replaced.
  const seen = current.node
  const unchanged = (now: Uint8Array | undefined) =>
    now === undefined ? seen === undefined : seen !== undefined && hashBytes(now) === seen.hash
  if (!(await writeFileAtomic(host, bytes, { mode, mtimeMs: row.updatedAt, unchanged }))) {
    diskChanged(engine, path)
    return
  }
  putFile(engine, path, bytes, (await lstat(host)).mtimeMs, mode, stamp, undefined, row)
  change(engine, 'to-disk', current.node ? 'update' : 'create', path)
}
