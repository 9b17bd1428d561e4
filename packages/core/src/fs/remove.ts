/**
 * `rm`: a soft delete. The node's row gets `trashedAt` (trash.ts restores
 * it); its descendants disappear with it and keep their rows. `rm -r /`
 * trashes every top-level node but the system roots. In the local layer
 * (`/tmp`, system paths) a removal is for good.
 */
import type { RmOptions } from 'just-bash'
import { eisdir, enotempty, FsError } from '../errors.js'
import { ROOT_ID } from '../ids.js'
import { assertWritable, exclusive, FS_ORIGIN, type FsContext } from './fs-context.js'
import { SYSTEM_ROOTS } from './local-layer.js'
import { isSystemPath, type Location, locate, normalizePath } from './locate.js'

/** `fs.rm`: soft delete in the workspace (see above). ENOENT (unless `force`), EISDIR for `/` without `recursive`, ENOTEMPTY, EACCES. */
export async function rm(ctx: FsContext, path: string, options?: RmOptions): Promise<void> {
  const normalized = normalizePath(path, 'rm')
  if (isSystemPath(normalized)) return ctx.local.rm(normalized, options)
  assertWritable(ctx, 'rm', path)
  return exclusive(ctx, () => remove(ctx, normalized, path, options))
}

/** rm of a normalised path (the caller holds the queue): soft delete in the workspace, gone in the local layer. */
export async function remove(
  ctx: FsContext,
  normalized: string,
  path: string,
  options?: RmOptions,
): Promise<void> {
  if (isSystemPath(normalized)) return ctx.local.rm(normalized, options)
  let loc: Location
  try {
    loc = locate(ctx, normalized, false, 'rm', path)
  } catch (error) {
    if (options?.force && error instanceof FsError && error.code === 'ENOENT') return
    throw error
  }
  if (loc.kind === 'system') return ctx.local.rm(loc.path, options)
  const now = ctx.clock()
  if (loc.id === ROOT_ID) {
    if (!options?.recursive) throw eisdir('rm', path)
    ctx.table.batch(() => {
      for (const name of ctx.index.childNames(ROOT_ID)) {
        if (SYSTEM_ROOTS.includes(name)) continue
        ctx.table.update(ctx.index.child(ROOT_ID, name)!, { trashedAt: now }, FS_ORIGIN)
      }
    }, FS_ORIGIN)
    return
  }
  const row = ctx.table.get(loc.id)!
  if (row.type === 'folder' && !options?.recursive && ctx.index.childNames(loc.id).length > 0)
    throw enotempty('rm', path)
  ctx.table.update(loc.id, { trashedAt: now }, FS_ORIGIN)
}
