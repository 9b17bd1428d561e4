/**
 * `cp -r` of a workspace folder to a new place in the workspace, as one bulk
 * load (`writeTreeNow`): the copies' content goes in batches (one round trip
 * per batch with a server) and every row in one transaction, instead of a
 * write per file.
 *
 * Only where the result is the same as copying entry by entry: the
 * destination does not exist yet and its nearest existing ancestor is a
 * folder reached without symlinks (missing ones are created, like
 * `mkdir -p`), the source tree holds no symlinks, and its
 * content fits in memory (`MAX_BULK_BYTES`). Anything else, or a load the
 * checks refuse (nothing is written then), is left to the caller's
 * entry-by-entry copy, which reports the failing entry as before.
 */
import { isFsError } from '../errors.js'
import { type FileId, ROOT_ID } from '../ids.js'
import * as paths from '../path.js'
import type { BulkEntry } from './bulk-load.js'
import type { FsContext } from './fs-context.js'
import { readContent } from './read-content.js'
import { writeTreeNow } from './write-tree.js'

/** Above this much content a copy goes entry by entry (a bulk load holds all of it at once). */
const MAX_BULK_BYTES = 128 * 1024 * 1024

/** Copy folder `srcId` to `destNorm` (normalised) in one bulk load; false when not done (nothing written). */
export async function copyTreeInBulk(ctx: FsContext, srcId: FileId, destNorm: string): Promise<boolean> {
  if (ctx.index.lookup(destNorm) !== undefined) return false
  // The nearest existing ancestor must be a folder (lookup follows no symlinks); missing ones are created.
  let ancestor = paths.dirname(destNorm)
  let found = ctx.index.lookup(ancestor)
  while (found === undefined) {
    ancestor = paths.dirname(ancestor)
    found = ctx.index.lookup(ancestor)
  }
  if (found !== ROOT_ID && ctx.table.get(found)?.type !== 'folder') return false
  // Plan: folders and files of the source, by display name, as the entry-by-entry copy names them.
  const folders: string[] = [destNorm]
  const files: { id: FileId; path: string }[] = []
  let bytes = 0
  const walk = (id: FileId, dest: string): boolean => {
    for (const name of ctx.index.childNames(id)) {
      const childId = ctx.index.child(id, name)
      const row = childId === undefined ? undefined : ctx.table.get(childId)
      if (!row || row.type === 'symlink') return false
      const path = paths.join(dest, name)
      if (row.type === 'folder') {
        folders.push(path)
        if (!walk(row.id, path)) return false
      } else {
        bytes += row.size
        if (bytes > MAX_BULK_BYTES) return false
        files.push({ id: row.id, path })
      }
    }
    return true
  }
  if (!walk(srcId, destNorm)) return false
  const entries: BulkEntry[] = folders.map((path) => ({ path, folder: true as const }))
  for (const f of files) {
    const row = ctx.table.get(f.id)
    if (!row) return false
    const content = await readContent(ctx, f.id, row)
    entries.push({ path: f.path, content: content.bytes ?? content.text ?? '' })
  }
  try {
    await writeTreeNow(ctx, entries)
    return true
  } catch (error) {
    // The load's checks refused (limits, names): nothing was written; the entry-by-entry copy reports it.
    if (isFsError(error)) return false
    throw error
  }
}
