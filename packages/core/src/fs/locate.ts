/**
 * Path resolution: a virtual path to a node of the workspace or to a path of
 * the local system layer, following symlinks on the way.
 *
 * Paths under a system root (`/bin`, `/usr`, `/dev`, `/proc`, `/tmp`) are
 * never looked up in the files table: they belong to the local layer, even
 * when a shared folder of that name exists. Symlinks are followed at most
 * `MAX_SYMLINK_HOPS` times (then ELOOP), like Linux.
 *
 * Deliberately not here: checks of names and limits (limit-checks.ts).
 */
import { eisdir, eloop, enoent, enosys, enotdir, FsError } from '../errors.js'
import type { FileRow } from '../files-table.js'
import { type FileId, ROOT_ID } from '../ids.js'
import * as paths from '../path.js'
import type { FsContext } from './fs-context.js'
import { SYSTEM_ROOTS } from './local-layer.js'

const MAX_SYMLINK_HOPS = 40

/** A resolved location: a shared node, or a path in the local system layer. */
export type Location = { kind: 'shared'; id: FileId; path: string } | { kind: 'system'; path: string }

/** Where a write lands: an existing node (`id`) or a new name in a folder. */
export interface WriteTarget {
  id?: FileId
  parentId: FileId
  name: string
  path: string
}

/** True for a normalised path under a system root (the local layer). */
export function isSystemPath(path: string): boolean {
  // Compared in place: this runs several times per call, and slicing the top name allocates.
  const end = path.indexOf('/', 1)
  const length = (end === -1 ? path.length : end) - 1
  for (const root of SYSTEM_ROOTS) if (root.length === length && path.startsWith(root, 1)) return true
  return false
}

/** The absolute normalised form of a caller's path; a NUL byte is ENOENT (as in Node). */
export function normalizePath(path: string, syscall: string): string {
  if (path.includes('\0')) throw new FsError('ENOENT', syscall, path, undefined, 'path contains null byte')
  return paths.resolve('/', path)
}

/**
 * Resolve a normalised path to a node. `followLast` follows a symlink in
 * the last component (stat) or not (lstat). Throws ENOENT, ENOTDIR, ELOOP.
 */
export function locate(
  ctx: FsContext,
  path: string,
  followLast: boolean,
  syscall: string,
  original: string,
): Location {
  const { index, table } = ctx
  let current = path
  for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
    if (isSystemPath(current)) return { kind: 'system', path: current }
    if (index.symlinkCount === 0) {
      const id = index.lookup(current)
      if (id !== undefined) return { kind: 'shared', id, path: current }
    }
    const parts = paths.split(current)
    let cur: FileId = ROOT_ID
    let redirected = false
    for (let i = 0; i < parts.length; i++) {
      if (cur !== ROOT_ID && table.get(cur)?.type !== 'folder') throw enotdir(syscall, original)
      const next = index.child(cur, parts[i]!)
      if (next === undefined) throw enoent(syscall, original)
      const row = table.get(next)
      const last = i === parts.length - 1
      if (row?.type === 'symlink' && (!last || followLast)) {
        const linkPath = `/${parts.slice(0, i + 1).join('/')}`
        const target = paths.resolve(paths.dirname(linkPath), row.target ?? '')
        const rest = parts.slice(i + 1).join('/')
        current = rest ? paths.normalize(`${target}/${rest}`) : target
        redirected = true
        break
      }
      cur = next
    }
    if (!redirected) return { kind: 'shared', id: cur, path: current }
  }
  throw eloop(syscall, original)
}

/** The row of a node; `undefined` for the root, which has none. */
export function rowOf(ctx: FsContext, id: FileId): FileRow | undefined {
  return id === ROOT_ID ? undefined : ctx.table.get(id)
}

/** True for the root and folder rows. */
export function isFolder(ctx: FsContext, id: FileId): boolean {
  return id === ROOT_ID || ctx.table.get(id)?.type === 'folder'
}

/** Resolve the parent folder of a path that may not exist yet (follows symlinks in the parent). */
export function parentFolder(
  ctx: FsContext,
  path: string,
  syscall: string,
  original: string,
): { parentId: FileId; parentPath: string } {
  const parentPath = paths.dirname(path)
  const loc = locate(ctx, parentPath, true, syscall, original)
  if (loc.kind === 'system') throw new FsError('EACCES', syscall, original)
  if (!isFolder(ctx, loc.id)) throw enotdir(syscall, original)
  return { parentId: loc.id, parentPath: loc.path }
}

/** Where a write lands: an existing node (after following symlinks) or a new name in a folder. */
export function resolveWriteTarget(
  ctx: FsContext,
  normalized: string,
  syscall: string,
  original: string,
): WriteTarget {
  // The usual case, without symlinks to follow: the parent is looked up once, nothing allocated
  // but the result. Anything else (missing parent, errors) takes the general walk below.
  if (ctx.index.symlinkCount === 0 && normalized !== '/' && !isSystemPath(normalized)) {
    const cut = normalized.lastIndexOf('/')
    const parentId = ctx.index.lookup(cut === 0 ? '/' : normalized.slice(0, cut))
    if (parentId !== undefined && isFolder(ctx, parentId)) {
      const name = normalized.slice(cut + 1)
      return { id: ctx.index.child(parentId, name), parentId, name, path: normalized }
    }
  }
  let path = normalized
  for (let hops = 0; hops <= MAX_SYMLINK_HOPS; hops++) {
    if (path === '/') throw eisdir('open', original)
    if (isSystemPath(path)) throw new FsError('EACCES', syscall, original)
    const { parentId, parentPath } = parentFolder(ctx, path, syscall, original)
    const name = paths.basename(path)
    const id = ctx.index.child(parentId, name)
    const row = id === undefined ? undefined : ctx.table.get(id)
    if (row?.type === 'symlink') {
      path = paths.resolve(parentPath, row.target ?? '')
      continue
    }
    return { id, parentId, name, path: paths.join(parentPath, name) }
  }
  throw eloop(syscall, original)
}

/** The file a path names (symlinks followed); ENOSYS for system paths, EISDIR for folders. */
export function fileAt(ctx: FsContext, path: string, syscall: string): FileRow {
  const loc = locate(ctx, normalizePath(path, syscall), true, syscall, path)
  if (loc.kind === 'system') throw enosys(syscall, path, 'system paths have no history')
  const row = rowOf(ctx, loc.id)
  if (!row || row.type === 'folder') throw eisdir(syscall, path)
  return row
}
