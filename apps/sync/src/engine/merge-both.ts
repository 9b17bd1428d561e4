/**
 * Both sides changed one file: text is merged three-way against the last
 * synced text (an empty base on a first run), the result written to both
 * sides; binary (or text without a base) keeps the workspace version at the
 * path and the disk version beside it as `name (conflict).ext`, on both
 * sides. A merge result replaces the disk file only if the file is still
 * what the merge read (`writeIfUnchanged`): an editor's save landing
 * meanwhile is merged on the next pass instead of lost.
 */
import { lstat } from 'node:fs/promises'
import { decodeTextOrBinary } from '@yfs/core'
import { readBytes, sameBytes } from '../disk-read.js'
import { moveEntry, writeFileAtomic } from '../disk-writer.js'
import { conflictName, mergeText } from '../merge.js'
import { change, guardedHost, rowAt, type SyncEngine } from './engine.js'
import { putFile, putFileSynced } from './records.js'
import { diskChanged, remoteChanged } from './scheduler.js'

/**
 * Write a merge's result over the disk file the merge read (`read`), unless the file changed
 * since: an editor's save landing while the daemon merged (the workspace write and the
 * metadata flush take a while) would be replaced by a result that does not hold it. Then
 * nothing is written; the state takes `read` as the base (the workspace holds it merged, the
 * new save was made on it) and the path is looked at again, so the next pass merges the new
 * save into the workspace. The check runs right before the rename (writeFileAtomic's
 * `unchanged`): a save landing between the two is still lost, a window of one file read
 * instead of the whole merge. True when written.
 */
export async function writeIfUnchanged(
  engine: SyncEngine,
  path: string,
  host: string,
  read: Uint8Array,
  bytes: Uint8Array,
  mode: number,
): Promise<boolean> {
  const unchanged = (now: Uint8Array | undefined) => now !== undefined && sameBytes(now, read)
  if (await writeFileAtomic(host, bytes, { mode, unchanged })) return true
  const st = await lstat(host).catch(() => undefined)
  putFile(engine, path, read, st?.mtimeMs ?? 0, mode)
  diskChanged(engine, path)
  return false
}

/**
 * Both sides have content at `path` that differs: text is merged
 * three-way against `base` ('' on a first run); binary keeps the
 * workspace version at `path` and the disk version beside it as
 * `name (conflict).ext`, on both sides.
 */
export async function mergeBoth(engine: SyncEngine, path: string, base: string | undefined): Promise<void> {
  const host = await guardedHost(engine, path)
  const diskBytes = readBytes(host)
  const row = rowAt(engine, path)
  if (!diskBytes && row?.type === 'file' && engine.state.get(path)?.id !== row.id) {
    // The disk file went since the caller looked (an editor renamed or deleted it: an event of
    // its own). The workspace file, not synced here yet, still has to reach the disk: its row is
    // compared again by the next remote pass (returning here lost it for good: nothing marks it).
    remoteChanged(engine, row.id)
    return
  }
  if (!diskBytes || !row || row.type !== 'file') return
  const wsBytes = new Uint8Array(await engine.fs.readFileBuffer(path))
  const st = await lstat(host)
  const mode = st.mode & 0o777
  if (sameBytes(diskBytes, wsBytes)) {
    putFile(engine, path, diskBytes, st.mtimeMs, mode)
    return
  }
  const diskText = decodeTextOrBinary(diskBytes)
  const wsText = decodeTextOrBinary(wsBytes)
  if (diskText !== undefined && wsText !== undefined && base !== undefined) {
    const merged = mergeText(base, diskText, wsText)
    // Base = what we just read: an edit arriving meanwhile is merged in by core, not lost.
    if (merged.text !== wsText) await engine.fs.write(path, merged.text, { base: { text: wsText } })
    const bytes = new Uint8Array(await engine.fs.readFileBuffer(path))
    if (sameBytes(bytes, diskBytes) || (await writeIfUnchanged(engine, path, host, diskBytes, bytes, mode)))
      await putFileSynced(engine, path, bytes, (await lstat(host)).mtimeMs, mode)
    change(engine, 'to-workspace', merged.conflict ? 'conflict' : 'merge', path)
    return
  }
  // Binary (or no base): both kept.
  const taken = (p: string) => engine.port.idAt(p) !== undefined || engine.state.get(p) !== undefined
  const copy = conflictName(path, taken)
  const copyHost = await guardedHost(engine, copy)
  await moveEntry(host, copyHost)
  await engine.fs.writeFile(copy, diskBytes)
  putFile(engine, copy, diskBytes, st.mtimeMs, mode)
  await writeFileAtomic(host, wsBytes, { mode: (row.mode ?? 0o644) & 0o777, mtimeMs: row.updatedAt })
  putFile(engine, path, wsBytes, (await lstat(host)).mtimeMs, (row.mode ?? 0o644) & 0o777)
  change(engine, 'to-workspace', 'conflict', copy, { from: path })
}
