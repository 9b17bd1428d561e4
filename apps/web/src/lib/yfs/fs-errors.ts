/**
 * Filesystem errors as sentences for people. The filesystem throws FsError
 * with a POSIX code and Node's message (`EEXIST: file already exists, rename
 * '/a' -> '/b'`), which agents understand and people should not have to.
 * The app shows these next to the row, field or button that caused them.
 */
import { isNotOnDevice } from '@yfs/client'
import { isFsError, paths } from '@yfs/core'

const quote = (path: string) => `“${paths.basename(path) || '/'}”`
const where = (path: string) => {
  const dir = paths.dirname(path)
  return dir === '/' ? 'the top folder' : `“${dir.slice(1)}”`
}

/** A readable sentence for an error from the filesystem (or anything else thrown). */
export function describeFsError(error: unknown): string {
  if (!isFsError(error)) return error instanceof Error ? error.message : String(error)
  const target = error.dest ?? error.path
  switch (error.code) {
    case 'EEXIST':
      return `${quote(target)} already exists in ${where(target)}. Choose another name.`
    case 'EACCES':
    case 'EPERM':
      return 'Your token is read-only: files can be viewed but not changed.'
    case 'ENOENT':
      return `${quote(error.path)} no longer exists; someone may have moved or deleted it.`
    case 'EINVAL': {
      const detail = /: ([^,]+),/.exec(error.message)?.[1]
      if (detail?.includes('cannot contain')) return 'Names cannot contain /, \\ or NUL.'
      if (detail?.includes('reserved')) return 'That name is reserved; choose another.'
      if (detail?.includes('into itself') || error.syscall === 'rename')
        return `${quote(error.path)} cannot be moved into itself.`
      return `That is not possible here (${detail ?? 'invalid argument'}).`
    }
    case 'ENAMETOOLONG':
      return 'That name is too long.'
    case 'ENOTDIR':
      return `${where(target)} is not a folder.`
    case 'EISDIR':
      return `${quote(error.path)} is a folder.`
    case 'ENOTEMPTY':
      return `${quote(error.path)} is not empty.`
    case 'EIO':
      if (isNotOnDevice(error))
        return 'this file is not on this device yet; it opens as soon as the connection is back.'
      return error.message
    case 'EFBIG':
    case 'ENOSPC':
      return 'The workspace is over its size limit.'
    default:
      return error.message
  }
}

/** Check a name typed for a new or renamed file; returns a sentence, or `undefined` when it is fine. */
export function checkName(name: string): string | undefined {
  if (name.trim() === '') return 'A name is required.'
  if (name === '.' || name === '..') return 'That name is reserved; choose another.'
  if (/[/\\\0]/.test(name)) return 'Names cannot contain /, \\ or NUL.'
  return undefined
}
