/**
 * A node's metadata: `stat`, `lstat`, `exists`, and the two calls that
 * change only metadata, `chmod` and `utimes`.
 *
 * Everything comes from the row: mode (defaults 644, 755, 777 for links),
 * size, mtime (`updatedAt`: content changes and `utimes`, not renames). `ino` is
 * a hash of the file id, so it is the same on every replica; `dev` is one
 * number for the whole workspace. The root has no row: a folder, mtime 0.
 */
import type { FsStat } from 'just-bash'
import { FsError } from '../errors.js'
import { type FileId, ROOT_ID } from '../ids.js'
import * as paths from '../path.js'
import { assertWritable, FS_ORIGIN, type FsContext } from './fs-context.js'
import { isSystemPath, locate, normalizePath } from './locate.js'

const DEFAULT_FILE_MODE = 0o644
const DEFAULT_DIR_MODE = 0o755
const SYMLINK_MODE = 0o777

/** Device number of every node in the workspace (one filesystem). */
const WORKSPACE_DEV = 0x79f5

/** A stable inode number for a file id (FNV-1a, 53 bits): the same on every replica. */
function inodeOf(id: string): number {
  let h = 0xcbf29ce484222325n
  for (let i = 0; i < id.length; i++) h = BigInt.asUintN(64, (h ^ BigInt(id.charCodeAt(i))) * 0x100000001b3n)
  return Number(h & 0x1fffffffffffffn)
}

/** `fs.stat` (symlinks followed). ENOENT, ENOTDIR, ELOOP. */
export async function stat(ctx: FsContext, path: string): Promise<FsStat> {
  const loc = locate(ctx, normalizePath(path, 'stat'), true, 'stat', path)
  if (loc.kind === 'system') return ctx.local.stat(loc.path)
  return statOf(ctx, loc.id)
}

/** `fs.lstat` (a symlink itself). ENOENT, ENOTDIR, ELOOP. */
export async function lstat(ctx: FsContext, path: string): Promise<FsStat> {
  const loc = locate(ctx, normalizePath(path, 'lstat'), false, 'lstat', path)
  if (loc.kind === 'system') return ctx.local.lstat(loc.path)
  return statOf(ctx, loc.id)
}

function statOf(ctx: FsContext, id: FileId): FsStat {
  if (id === ROOT_ID) {
    return {
      isFile: false,
      isDirectory: true,
      isSymbolicLink: false,
      mode: DEFAULT_DIR_MODE,
      size: 0,
      mtime: new Date(0),
    }
  }
  const row = ctx.table.get(id)!
  const isLink = row.type === 'symlink'
  return {
    isFile: row.type === 'file',
    isDirectory: row.type === 'folder',
    isSymbolicLink: isLink,
    mode: row.mode ?? (isLink ? SYMLINK_MODE : row.type === 'folder' ? DEFAULT_DIR_MODE : DEFAULT_FILE_MODE),
    size: row.size,
    mtime: new Date(row.updatedAt),
    identity: row.id,
    dev: WORKSPACE_DEV,
    ino: inodeOf(row.id),
  }
}

/** `fs.exists`: false for any errno failure (a NUL byte, a missing parent, a loop). */
export async function exists(ctx: FsContext, path: string): Promise<boolean> {
  if (path.includes('\0')) return false
  const normalized = paths.resolve('/', path)
  // The usual case, without symlinks: one index lookup, and no error built for a missing path
  // (a shell asks `exists` before every `>`).
  if (ctx.index.symlinkCount === 0 && !isSystemPath(normalized))
    return ctx.index.lookup(normalized) !== undefined
  try {
    const loc = locate(ctx, normalized, true, 'access', path)
    if (loc.kind === 'system') return ctx.local.exists(loc.path)
    return true
  } catch (error) {
    if (error instanceof FsError) return false
    throw error
  }
}

/** `fs.chmod`: stores `mode & 0o7777` on the row (symlinks followed); a no-op on the root. ENOENT, EACCES when read-only. */
export async function chmod(ctx: FsContext, path: string, mode: number): Promise<void> {
  const loc = locate(ctx, normalizePath(path, 'chmod'), true, 'chmod', path)
  if (loc.kind === 'system') return ctx.local.chmod(loc.path, mode)
  assertWritable(ctx, 'chmod', path)
  if (loc.id === ROOT_ID) return
  ctx.table.update(loc.id, { mode: mode & 0o7777 }, FS_ORIGIN)
}

/** `fs.utimes`: sets mtime (`updatedAt`); atime is not stored. ENOENT, EACCES when read-only. */
export async function utimes(ctx: FsContext, path: string, _atime: Date, mtime: Date): Promise<void> {
  const loc = locate(ctx, normalizePath(path, 'utime'), true, 'utime', path)
  if (loc.kind === 'system') return ctx.local.utimes(loc.path, _atime, mtime)
  assertWritable(ctx, 'utime', path)
  if (loc.id === ROOT_ID) return
  ctx.table.update(loc.id, { updatedAt: mtime.getTime() }, FS_ORIGIN)
}
