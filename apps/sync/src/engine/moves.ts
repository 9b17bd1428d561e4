/**
 * Moves made on disk, recognised and applied as moves in the workspace
 * (`fs.mv`: the id and history stay). A file that vanished and whose bytes
 * appear at a new path is a rename or move; a folder that vanished and
 * whose children's names all appear in a new folder is one too. Moves made
 * in the workspace reach the disk by id (to-disk.ts).
 */
import { readdir } from 'node:fs/promises'
import { type FileId, paths, ROOT_ID } from '@yfs/core'
import { exists } from '../disk-read.js'
import { TEMP_PREFIX } from '../disk-writer.js'
import { heirOf } from './display-names.js'
import { change, hostOf, rowAt, type SyncEngine, syncedUnder } from './engine.js'
import { restamp, stampOf } from './records.js'
import { remoteChanged } from './scheduler.js'
import { ensureWsParent } from './to-workspace.js'

/**
 * A move on disk, made in the workspace. False (nothing done, `from` forgotten) when the
 * workspace no longer has the file or folder synced at `from`: a peer moved, deleted or replaced
 * it meanwhile. The caller then takes `to` as new on disk (both kept), and the peer's change
 * reaches the disk on its own; moving anyway failed, and left `to` untracked on disk for good.
 * The synced row still there under its own name, only shown as `f (1).txt` (a namesake took
 * `from`), is moved from where it is shown.
 */
export async function moveRemote(engine: SyncEngine, from: string, to: string): Promise<boolean> {
  const synced = engine.state.get(from)
  let source = from
  let row = rowAt(engine, from)
  if (synced !== undefined && row?.id !== synced.id) {
    // A namesake created on the other side took `from` (core shows the later-created file of two
    // as `f (1).txt`) before the daemon's move of the disk file followed: the synced row still
    // has the name it had, only shown suffixed, and the disk's move is its move. (A row a peer
    // renamed or moved is not taken: see the doc comment.)
    const own = engine.port.row(synced.id as FileId)
    const shown = own && own.trashedAt === null ? engine.port.pathOf(own.id) : undefined
    if (
      own &&
      shown !== undefined &&
      own.name === paths.basename(from) &&
      paths.dirname(shown) === paths.dirname(from) &&
      engine.port.idAt(paths.dirname(from)) === (own.parentId ?? ROOT_ID)
    ) {
      source = shown
      row = own
    }
  }
  if (!row || (synced !== undefined && synced.id !== row.id)) {
    for (const e of syncedUnder(engine, from)) engine.state.delete(e.path)
    return false
  }
  // A peer's change of the row not written to disk yet must not be taken as synced by the restamp.
  const clean = row.type === 'folder' || synced?.stamp === stampOf(row)
  await ensureWsParent(engine, to)
  await engine.fs.mv(source, to)
  engine.state.move(from, to)
  heirOf(engine, from, row.id)
  if (clean) restamp(engine, to)
  else remoteChanged(engine, row.id)
  change(engine, 'to-workspace', 'move', to, { from })
  return true
}

/**
 * The synced path whose file vanished from disk and whose bytes now appear
 * at `path`: a rename or move. chokidar reports the new name first (it holds
 * unlinks back briefly to spot atomic saves), so vanished files are found
 * by looking at the disk, not only among reported deletes.
 */
export async function matchVanishedFile(
  engine: SyncEngine,
  path: string,
  hash: string,
): Promise<string | undefined> {
  const candidates: string[] = []
  for (const e of engine.state.entries())
    if (e.kind === 'file' && e.hash === hash && e.path !== path) candidates.push(e.path)
  const base = paths.basename(path)
  candidates.sort((a, b) => Number(paths.basename(b) === base) - Number(paths.basename(a) === base))
  for (const candidate of candidates) {
    if (engine.pendingDeletes.has(candidate) || !(await exists(hostOf(engine, candidate)))) return candidate
  }
  return undefined
}

/** A synced folder that vanished from disk and whose children's names all appear in the new folder `path`. */
export async function matchVanishedFolder(engine: SyncEngine, path: string): Promise<string | undefined> {
  const names = new Set(
    (await readdir(hostOf(engine, path)).catch(() => [] as string[])).filter(
      (n) => !n.startsWith(TEMP_PREFIX),
    ),
  )
  if (names.size === 0) return undefined
  const children = new Map<string, string[]>()
  for (const e of engine.state.entries()) {
    const parent = paths.dirname(e.path)
    const list = children.get(parent)
    if (list) list.push(paths.basename(e.path))
    else children.set(parent, [paths.basename(e.path)])
  }
  for (const [candidate, list] of children) {
    if (candidate === path || candidate === '/' || engine.state.get(candidate)?.kind !== 'folder') continue
    if (list.length !== names.size || !list.every((n) => names.has(n))) continue
    if (engine.pendingDeletes.has(candidate) || !(await exists(hostOf(engine, candidate)))) return candidate
  }
  return undefined
}
