/**
 * Creating folders: `mkdir` (queued like every mutation) and `mkdirSync`
 * (folders have no content doc, and just-bash calls it while setting up).
 *
 * A recursive mkdir checks the whole chain first, so one that fails creates
 * nothing. An existing folder, or a symlink to one, is EEXIST unless
 * `recursive`.
 */
import type { MkdirOptions } from 'just-bash'
import { eexist, FsError } from '../errors.js'
import { createFileId, type FileId, ROOT_ID } from '../ids.js'
import * as paths from '../path.js'
import { assertWritable, exclusive, FS_ORIGIN, type FsContext } from './fs-context.js'
import { checkName, checkNewPath, missingFolders } from './limit-checks.js'
import { isFolder, isSystemPath, locate, normalizePath, parentFolder } from './locate.js'

/** `fs.mkdir`: `mkdirSync` in the mutation queue. */
export async function mkdir(ctx: FsContext, path: string, options?: MkdirOptions): Promise<void> {
  const normalized = normalizePath(path, 'mkdir')
  if (isSystemPath(normalized)) return ctx.local.mkdir(normalized, options)
  // Queued like every other mutation, so it cannot slip between a write's check and its row.
  return exclusive(ctx, () => mkdirSync(ctx, path, options))
}

/** Synchronous mkdir (folders have no content doc); just-bash calls it while setting up. */
export function mkdirSync(ctx: FsContext, path: string, options?: MkdirOptions): void {
  const normalized = normalizePath(path, 'mkdir')
  if (isSystemPath(normalized)) {
    ctx.local.mkdirSync(normalized, options)
    return
  }
  assertWritable(ctx, 'mkdir', path)
  if (normalized === '/') {
    if (options?.recursive) return
    throw new FsError('EEXIST', 'mkdir', path, undefined, 'directory already exists')
  }
  const parentPath = paths.dirname(normalized)
  if (options?.recursive && ctx.index.symlinkCount === 0) {
    // Check the whole chain first: a recursive mkdir that fails creates nothing.
    const missing = missingFolders(ctx, normalized)
    if (missing > 0) {
      for (const name of paths.split(normalized).slice(-missing)) checkName(ctx, name, 'mkdir', path)
      checkNewPath(ctx, normalized, 'mkdir', path, missing)
    }
  }
  let parent: { parentId: FileId; parentPath: string }
  try {
    parent = parentFolder(ctx, normalized, 'mkdir', path)
  } catch (error) {
    if (!(error instanceof FsError) || error.code !== 'ENOENT' || !options?.recursive) throw error
    mkdirSync(ctx, parentPath, options)
    parent = parentFolder(ctx, normalized, 'mkdir', path)
  }
  const name = paths.basename(normalized)
  const existing = ctx.index.child(parent.parentId, name)
  if (existing !== undefined) {
    const row = ctx.table.get(existing)!
    if (row.type === 'folder' || (row.type === 'symlink' && isDirLink(ctx, normalized))) {
      if (options?.recursive) return
      throw new FsError('EEXIST', 'mkdir', path, undefined, 'directory already exists')
    }
    throw eexist('mkdir', path)
  }
  checkName(ctx, name, 'mkdir', path)
  checkNewPath(ctx, normalized, 'mkdir', path)
  const now = ctx.clock()
  ctx.table.set(
    {
      id: createFileId(),
      name,
      parentId: parent.parentId === ROOT_ID ? null : parent.parentId,
      type: 'folder',
      size: 0,
      createdAt: now,
      updatedAt: now,
      trashedAt: null,
    },
    FS_ORIGIN,
  )
}

function isDirLink(ctx: FsContext, path: string): boolean {
  try {
    const loc = locate(ctx, path, true, 'mkdir', path)
    return loc.kind === 'system' || isFolder(ctx, loc.id)
  } catch {
    // A dangling link is not a directory.
    return false
  }
}
