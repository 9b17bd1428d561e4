/**
 * Name validation for the filesystem's writes: the name rules of names.ts
 * (`/`, `\` and NUL would make paths ambiguous; empty, `.` and `..` are
 * reserved by POSIX) as EINVAL. The length limit is checked by the callers
 * against `limits.maxNameLength` (ENAMETOOLONG).
 */
import { einval } from '../errors.js'
import { nameProblem } from '../names.js'

/** Throws EINVAL (with the offending path) for a name that cannot be stored; length not checked. */
export function validateName(name: string, syscall: string, path: string): void {
  const problem = nameProblem(name, Number.POSITIVE_INFINITY)
  if (problem !== undefined) throw einval(syscall, path, problem)
}
