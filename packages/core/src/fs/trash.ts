/**
 * The trash (`fs.trash`): `rm` is a soft delete that sets a row's
 * `trashedAt`; its descendants are hidden with it but keep their rows, so a
 * restore brings the whole subtree back. `empty` deletes for good, except
 * content a checkpoint still references, which stays restorable.
 */
import { enoent } from '../errors.js'
import type { FileRow } from '../files-table.js'
import { type FileId, ROOT_ID } from '../ids.js'
import * as paths from '../path.js'
import { suffixedName } from '../sibling-names.js'
import { checkpointedFileIds } from './checkpoints.js'
import { assertWritable, FS_ORIGIN, type FsContext } from './fs-context.js'

export interface TrashEntry {
  id: FileId
  name: string
  type: FileRow['type']
  trashedAt: number
  /** Where it was, when its folder is still visible. */
  originalPath: string | undefined
}

export interface Trash {
  /** Rows in the trash (the ones trashed themselves, not their descendants). */
  list(): TrashEntry[]
  /** Bring a row back; to the root if its folder is gone, with a free name if its name is taken. Returns the new path. */
  restore(id: FileId): string
  /** Delete every trashed row and everything below it, for good. */
  empty(): number
}

/** The `fs.trash` object of a filesystem. */
export function createTrash(ctx: FsContext): Trash {
  return {
    list: () => listTrash(ctx),
    restore: (id) => restoreFromTrash(ctx, id),
    empty: () => emptyTrash(ctx),
  }
}

function listTrash(ctx: FsContext): TrashEntry[] {
  const out: TrashEntry[] = []
  for (const row of ctx.table.rows()) {
    if (row.trashedAt === null) continue
    const parent = ctx.index.effectiveParent(row.id) ?? ROOT_ID
    const parentPath = ctx.index.pathOf(parent)
    out.push({
      id: row.id,
      name: row.name,
      type: row.type,
      trashedAt: row.trashedAt,
      originalPath: parentPath === undefined ? undefined : paths.join(parentPath, row.name),
    })
  }
  return out.sort((a, b) => b.trashedAt - a.trashedAt)
}

function restoreFromTrash(ctx: FsContext, id: FileId): string {
  assertWritable(ctx, 'restore', id)
  const row = ctx.table.get(id)
  if (!row) throw enoent('restore', id)
  if (row.trashedAt === null) return ctx.index.pathOf(id) ?? '/'
  let parentId = ctx.index.effectiveParent(id) ?? ROOT_ID
  if (ctx.index.pathOf(parentId) === undefined) parentId = ROOT_ID
  let name = row.name
  for (let n = 1; ctx.index.child(parentId, name) !== undefined; n++) name = suffixedName(row.name, n)
  ctx.table.update(id, { trashedAt: null, name, parentId: parentId === ROOT_ID ? null : parentId }, FS_ORIGIN)
  return ctx.index.pathOf(id) ?? '/'
}

function emptyTrash(ctx: FsContext): number {
  assertWritable(ctx, 'rm', '/')
  const doomed = new Set<FileId>()
  const collect = (id: FileId) => {
    if (doomed.has(id)) return
    doomed.add(id)
    for (const child of ctx.index.allChildren(id)) collect(child)
  }
  for (const row of ctx.table.rows()) if (row.trashedAt !== null) collect(row.id)
  ctx.table.delete(doomed, FS_ORIGIN)
  // Content a checkpoint still references stays restorable.
  const referenced = checkpointedFileIds(ctx)
  for (const id of doomed) {
    if (!referenced.has(id)) ctx.pool.forget(id)
    ctx.index.plaintext.delete(id)
    ctx.seen.forget(id)
  }
  return doomed.size
}
