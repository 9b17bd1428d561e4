/**
 * Filesystem errors with POSIX codes.
 *
 * Messages copy Node exactly (`ENOENT: no such file or directory, open '/x'`)
 * because just-bash commands recognise failures by substring and models
 * already know these messages. Unlike just-bash we also set `.code`, so
 * callers branch on the code instead of parsing text.
 */

export type ErrnoCode =
  | 'ENOENT'
  | 'EEXIST'
  | 'EISDIR'
  | 'ENOTDIR'
  | 'ENOTEMPTY'
  | 'EINVAL'
  | 'EACCES'
  | 'EPERM'
  | 'EFBIG'
  | 'ENOSPC'
  | 'ENOSYS'
  | 'ELOOP'
  | 'ENAMETOOLONG'
  | 'EBUSY'
  | 'EIO'

const descriptions: Record<ErrnoCode, string> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'file already exists',
  EISDIR: 'illegal operation on a directory',
  ENOTDIR: 'not a directory',
  ENOTEMPTY: 'directory not empty',
  EINVAL: 'invalid argument',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EFBIG: 'file too large',
  ENOSPC: 'no space left on device',
  ENOSYS: 'function not implemented',
  ELOOP: 'too many levels of symbolic links',
  ENAMETOOLONG: 'name too long',
  EBUSY: 'resource busy or locked',
  EIO: 'i/o error',
}

/** An errno-style error: `code`, `syscall`, virtual `path` and optional `dest`. */
export class FsError extends Error {
  readonly code: ErrnoCode
  readonly syscall: string
  readonly path: string
  readonly dest: string | undefined

  constructor(code: ErrnoCode, syscall: string, path: string, dest?: string, description?: string) {
    const what = description ?? descriptions[code]
    const where = dest === undefined ? `'${path}'` : `'${path}' -> '${dest}'`
    super(`${code}: ${what}, ${syscall} ${where}`)
    this.name = 'FsError'
    this.code = code
    this.syscall = syscall
    this.path = path
    this.dest = dest
  }
}

/** True when `error` is an {@link FsError}, optionally with the given code. */
export function isFsError(error: unknown, code?: ErrnoCode): error is FsError {
  return error instanceof FsError && (code === undefined || error.code === code)
}

export const enoent = (syscall: string, path: string, dest?: string) =>
  new FsError('ENOENT', syscall, path, dest)
export const eexist = (syscall: string, path: string, dest?: string) =>
  new FsError('EEXIST', syscall, path, dest)
export const eisdir = (syscall: string, path: string, dest?: string) =>
  new FsError('EISDIR', syscall, path, dest)
export const enotdir = (syscall: string, path: string, dest?: string) =>
  new FsError('ENOTDIR', syscall, path, dest)
export const enotempty = (syscall: string, path: string, dest?: string) =>
  new FsError('ENOTEMPTY', syscall, path, dest)
export const einval = (syscall: string, path: string, description?: string) =>
  new FsError('EINVAL', syscall, path, undefined, description)
export const eacces = (syscall: string, path: string) => new FsError('EACCES', syscall, path)
export const eperm = (syscall: string, path: string) => new FsError('EPERM', syscall, path)
export const efbig = (syscall: string, path: string, description?: string) =>
  new FsError('EFBIG', syscall, path, undefined, description)
export const enospc = (syscall: string, path: string, description?: string) =>
  new FsError('ENOSPC', syscall, path, undefined, description)
export const enosys = (syscall: string, path: string, description?: string) =>
  new FsError('ENOSYS', syscall, path, undefined, description)
export const eio = (syscall: string, path: string, description?: string) =>
  new FsError('EIO', syscall, path, undefined, description)
export const eloop = (syscall: string, path: string) => new FsError('ELOOP', syscall, path)
export const enametoolong = (syscall: string, path: string, description?: string) =>
  new FsError('ENAMETOOLONG', syscall, path, undefined, description)
