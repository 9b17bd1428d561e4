/**
 * Deletes on disk (workspace → disk): only what the daemon synced, and only
 * while it is still what was synced. A file edited on disk since is kept
 * (and looked at again, so it is uploaded as new); a folder goes only once
 * empty (ignored or new entries keep it).
 */
import { lstat } from 'node:fs/promises'
import { inspect } from '../disk-scan.js'
import { removeEmptyFolder, removeFile } from '../disk-writer.js'
import { change, depth, hostOf, type SyncEngine, syncedUnder } from './engine.js'
import { diskChanged, enqueue } from './scheduler.js'

/** Delete what was synced at `path` from disk, unless it changed there since. */
export async function deleteLocal(engine: SyncEngine, path: string): Promise<void> {
  const e = engine.state.get(path)
  const host = hostOf(engine, path)
  const st = await lstat(host).catch(() => undefined)
  if (st?.isDirectory()) {
    if (await removeEmptyFolder(host)) change(engine, 'to-disk', 'delete', path)
  } else if (st && e) {
    // Only delete what we last synced: a file edited since is kept (and uploaded again).
    const now = await inspect(engine.dir, host, path, {
      rules: engine.rules,
      maxFileSize: Number.POSITIVE_INFINITY,
    })
    if (now.node?.hash === e.hash) {
      await removeFile(host)
      change(engine, 'to-disk', 'delete', path)
    } else {
      engine.state.delete(path)
      diskChanged(engine, path)
      return
    }
  }
  engine.state.delete(path)
}

/** The workspace no longer has `path`: remove what we synced there, keeping files edited on disk since. */
export async function removeLocalTree(engine: SyncEngine, path: string): Promise<void> {
  const entries = syncedUnder(engine, path).sort((a, b) => depth(b.path) - depth(a.path))
  for (const e of entries) await deleteLocal(engine, e.path)
}

/**
 * The file synced at `path` is recorded at another path now (a peer moved it onto a path where
 * the disk had a new file, which was merged into it): the disk file left at `path` goes, as a
 * move would have taken it, unless it was edited since (then it is uploaded as a new file).
 */
export function dropStaleCopy(engine: SyncEngine, path: string, id: string): void {
  void enqueue(engine, async () => {
    if (engine.state.get(path)?.id === id && engine.state.pathOfId(id) !== path)
      await deleteLocal(engine, path)
  })
}
