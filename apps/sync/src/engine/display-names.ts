/**
 * Duplicate names: two rows of one name in a folder (created on both sides
 * before either saw the other, or moved there) are shown by core as `f.txt`
 * and `f (1).txt` (the later-created one suffixed; stored names are not
 * rewritten), and the disk gets the same two names. Two things follow:
 *
 * - a new file the daemon writes into the workspace may be the one shown
 *   suffixed: the daemon notes the id of the row its own write created
 *   (`whileCreating`, fed by core's local row changes, `noteCreated`) and
 *   keeps its disk file tied to that row;
 * - when the row holding a name leaves it (moved, deleted), the other one
 *   inherits the name without a change of its own row (`heirOf`): its disk
 *   file follows on the next remote pass.
 */
import { type FileId, type FileRowChange, paths, ROOT_ID } from '@yfs/core'
import type { SyncEngine } from './engine.js'
import { remoteChanged } from './scheduler.js'

/**
 * The row at `old` moved away or went: when the workspace now shows another row at `old` (a
 * duplicate name whose older namesake left: `f (1).txt` is `f.txt` now, without a change of its
 * own row), that row's disk file follows its name on the next remote pass.
 */
export function heirOf(engine: SyncEngine, old: string, id: FileId): void {
  const heir = engine.port.idAt(old)
  if (heir === undefined || heir === id || engine.state.pathOfId(heir) === old) return
  remoteChanged(engine, heir)
}

/** The key of a new file at `path` in `engine.creating`: its parent folder's id and its name. */
function creationKey(engine: SyncEngine, path: string): string | undefined {
  const parent = engine.port.idAt(paths.dirname(path))
  return parent === undefined ? undefined : `${parent}/${paths.basename(path)}`
}

/** This replica's own row changes: a row created under a name the daemon is writing is the daemon's. */
export function noteCreated(engine: SyncEngine, changes: ReadonlyMap<FileId, FileRowChange>): void {
  if (engine.creating.size === 0) return
  for (const [id, c] of changes) {
    const row = c.after
    if (c.before || !row) continue
    const key = `${row.parentId ?? ROOT_ID}/${row.name}`
    if (engine.creating.has(key)) engine.creating.set(key, id)
  }
}

/**
 * Run `write`, which creates a new file at `path` in the workspace, and return its result with
 * the id of the row it created (undefined when none was seen). A peer that had not seen it yet can
 * create a file of the same name meanwhile; both rows stay, and ours may be the one shown as
 * `f (1).txt`.
 */
export async function whileCreating<T>(
  engine: SyncEngine,
  path: string,
  write: () => Promise<T>,
): Promise<{ result: T; created: FileId | undefined }> {
  const key = creationKey(engine, path)
  if (key) engine.creating.set(key, undefined)
  let created: FileId | undefined
  try {
    const result = await write()
    created = key ? engine.creating.get(key) : undefined
    return { result, created }
  } finally {
    if (key) engine.creating.delete(key)
  }
}
