/**
 * Name validation: a name is one path component. `/`, `\` and NUL would make
 * paths ambiguous; empty, `.` and `..` are reserved by POSIX.
 */
import { einval } from '../errors.js'

/** Throws EINVAL (with the offending path) for a name that cannot be stored. */
export function validateName(name: string, syscall: string, path: string): void {
  if (name === '' || name === '.' || name === '..')
    throw einval(syscall, path, `reserved file name '${name}'`)
  if (name.includes('/') || name.includes('\\') || name.includes('\0'))
    throw einval(syscall, path, 'file names cannot contain /, \\ or NUL')
}
