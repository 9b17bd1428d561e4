/**
 * Symbolic links: rows of type `symlink` holding their `target`, resolved
 * by locate.ts on every lookup; `readlink`, `realpath`. Hard links are
 * ENOSYS: a file has exactly one path.
 */
import { utf8Length } from '../encoding.js'
import { eexist, einval, enosys } from '../errors.js'
import { createFileId, ROOT_ID } from '../ids.js'
import * as paths from '../path.js'
import { assertWritable, exclusive, FS_ORIGIN, type FsContext } from './fs-context.js'
import { checkName, checkNewPath } from './limit-checks.js'
import { isSystemPath, locate, normalizePath, parentFolder, rowOf } from './locate.js'

/** `fs.symlink`: a link at `linkPath` to `target` (stored as given). EEXIST, ENOENT, EACCES. */
export async function symlink(ctx: FsContext, target: string, linkPath: string): Promise<void> {
  const normalized = normalizePath(linkPath, 'symlink')
  if (isSystemPath(normalized)) return ctx.local.symlink(target, normalized)
  assertWritable(ctx, 'symlink', linkPath)
  return exclusive(ctx, () => createSymlink(ctx, target, normalized, linkPath))
}

/** The row of a new symlink at a normalised path; the caller holds the queue. EEXIST, ENOENT, ENOTDIR, EINVAL, ENOSPC. */
export async function createSymlink(
  ctx: FsContext,
  target: string,
  normalized: string,
  linkPath: string,
): Promise<void> {
  if (normalized === '/') throw eexist('symlink', linkPath)
  const { parentId } = parentFolder(ctx, normalized, 'symlink', linkPath)
  const name = paths.basename(normalized)
  if (ctx.index.child(parentId, name) !== undefined) throw eexist('symlink', linkPath)
  checkName(ctx, name, 'symlink', linkPath)
  checkNewPath(ctx, normalized, 'symlink', linkPath)
  const now = ctx.clock()
  ctx.table.set(
    {
      id: createFileId(),
      name,
      parentId: parentId === ROOT_ID ? null : parentId,
      type: 'symlink',
      target,
      size: utf8Length(target),
      createdAt: now,
      updatedAt: now,
      trashedAt: null,
    },
    FS_ORIGIN,
  )
}

/** Hard links: ENOSYS (a file has exactly one path). */
export async function link(existingPath: string, _newPath: string): Promise<void> {
  throw enosys('link', existingPath, 'hard links are not supported')
}

/** `fs.readlink`: a symlink's target. EINVAL when not a symlink, ENOENT. */
export async function readlink(ctx: FsContext, path: string): Promise<string> {
  const loc = locate(ctx, normalizePath(path, 'readlink'), false, 'readlink', path)
  if (loc.kind === 'system') return ctx.local.readlink(loc.path)
  const row = rowOf(ctx, loc.id)
  if (row?.type !== 'symlink') throw einval('readlink', path)
  return row.target ?? ''
}

/** `fs.realpath`: the path with every symlink resolved. ENOENT, ENOTDIR, ELOOP. */
export async function realpath(ctx: FsContext, path: string): Promise<string> {
  const loc = locate(ctx, normalizePath(path, 'realpath'), true, 'realpath', path)
  if (loc.kind === 'system') return ctx.local.realpath(loc.path)
  return ctx.index.pathOf(loc.id) ?? loc.path
}
