/**
 * Disk → workspace, live: the disk pass looks at every path the watcher
 * marked dirty (on disk, not trusting the event). Unchanged hash → nothing
 * (which is what stops echoes of the daemon's own writes); new folders first,
 * parents before children, each scanned (whatever was moved or written into
 * it); a vanished synced path waits `moveWindowMs` for its bytes to appear
 * elsewhere (a move, moves.ts) before it is deleted in the workspace
 * (`applyDeletes`). A changed ignore-rules file triggers a full compare.
 */
import { paths } from '@yfs/core'
import { exists } from '../disk-read.js'
import { inspect, type ScannedNode, scanDisk } from '../disk-scan.js'
import { change, depth, hostOf, ignored, isSystemPath, report, rootLost, type SyncEngine } from './engine.js'
import { fullReconcile } from './initial-pass.js'
import { matchVanishedFile, matchVanishedFolder, moveRemote } from './moves.js'
import { knownHash, putFolder } from './records.js'
import { diskChanged, scheduleDeletes } from './scheduler.js'
import { deleteRemote, replacedKind, upload, uploadMode } from './to-workspace.js'

/** The disk pass: every dirty path to the workspace. */
export async function diskPass(engine: SyncEngine): Promise<void> {
  if (rootLost(engine)) return
  const dirty = [...engine.diskDirty].sort((a, b) => depth(a) - depth(b))
  engine.diskDirty.clear()
  const present: [string, ScannedNode][] = []
  let rulesChanged = false
  const scanOptions = { rules: engine.rules, maxFileSize: engine.fs.limits.maxFileSize }
  for (const path of dirty) {
    try {
      if (engine.rules.isRulesFile(path)) rulesChanged = true
      const host = hostOf(engine, path)
      const seen = await inspect(engine.dir, host, path, scanOptions)
      if (seen.skipped) engine.emit({ type: 'skip', ...seen.skipped })
      if (seen.node && (ignored(engine, path, seen.node.kind === 'folder') || isSystemPath(path))) continue
      if (!seen.node) {
        // Refused (reported above) is not gone: a synced file that grew over the limit stays in the workspace.
        if (!seen.skipped && engine.state.get(path)) engine.pendingDeletes.set(path, Date.now())
        continue
      }
      present.push([path, seen.node])
    } catch (error) {
      report(engine, error, path)
    }
  }
  const presentPaths = new Set(present.map(([p]) => p))
  // New folders first (parents before children): a folder whose children match a vanished folder's is a move.
  for (const [path, node] of present) {
    if (node.kind !== 'folder') continue
    try {
      const e = engine.state.get(path)
      if (e?.kind !== 'folder') {
        if (e && !(await replacedKind(engine, path, e))) continue
        const from = await matchVanishedFolder(engine, path)
        const moved = from !== undefined && (await moveRemote(engine, from, path))
        if (from !== undefined)
          for (const p of engine.pendingDeletes.keys())
            if (paths.isSameOrDescendant(from, p)) engine.pendingDeletes.delete(p)
        if (!moved) {
          await engine.fs.mkdir(path, { recursive: true })
          putFolder(engine, path, node.mode)
          change(engine, 'to-workspace', 'mkdir', path)
        }
      }
      // Whatever is inside is looked at too: moved in, copied in, or (a synced folder, reported
      // again once the watcher watches it) written before its watch could report it.
      const sub = await scanDisk(
        engine.dir,
        {
          ...scanOptions,
          rules: { ...engine.rules, ignores: (p, d) => ignored(engine, p, d) },
          knownHash: (p, size, mtimeMs) => knownHash(engine, p, size, mtimeMs),
        },
        path,
      )
      for (const s of sub.skipped) engine.emit({ type: 'skip', ...s })
      for (const [p, n] of sub.nodes)
        if (!presentPaths.has(p)) {
          presentPaths.add(p)
          present.push([p, n])
        }
    } catch (error) {
      report(engine, error, path)
    }
  }
  for (const [path, node] of present) {
    if (node.kind === 'folder') continue
    try {
      let e = engine.state.get(path)
      if (e?.kind === 'folder') {
        // A synced folder replaced by a file or symlink: the folder (what is left of it) goes first.
        if (!(await replacedKind(engine, path, e))) continue
        e = undefined
      }
      if (e && e.kind === node.kind && e.hash === node.hash) {
        if (node.kind === 'file' && (e.mode & 0o111) !== (node.mode & 0o111))
          await uploadMode(engine, path, e, node)
        continue
      }
      if (!e && node.kind === 'file') {
        const from = await matchVanishedFile(engine, path, node.hash)
        if (from !== undefined) {
          engine.pendingDeletes.delete(from)
          if (await moveRemote(engine, from, path)) continue
        }
      }
      await upload(engine, path, node)
    } catch (error) {
      report(engine, error, path)
    }
  }
  await engine.metaFlush
  if (rulesChanged) await fullReconcile(engine, false)
  scheduleDeletes(engine)
}

/**
 * Delete in the workspace what vanished from disk and did not come back within the move window
 * (`all`: every vanished path, without waiting: the sync is closing). A path that is there again
 * is looked at as a change instead.
 */
export async function applyDeletes(engine: SyncEngine, all: boolean): Promise<void> {
  if (rootLost(engine)) return
  const now = Date.now()
  const due = [...engine.pendingDeletes]
    .filter(([, at]) => all || now - at >= engine.moveWindowMs)
    .map(([p]) => p)
    .sort((a, b) => depth(b) - depth(a))
  for (const path of due) {
    engine.pendingDeletes.delete(path)
    try {
      if (await exists(hostOf(engine, path))) {
        diskChanged(engine, path)
        continue
      }
      if (engine.state.get(path)) await deleteRemote(engine, path)
    } catch (error) {
      report(engine, error, path)
    }
  }
  scheduleDeletes(engine)
}
