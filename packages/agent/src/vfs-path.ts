/**
 * The `vfs:///` path scheme at the tool boundary (seed 000): tool arguments
 * and results name workspace paths as `vfs:///src/a.ts`, so a model never
 * confuses the workspace with a real disk.
 *
 * Normalisation converts backslashes, collapses slashes and resolves `.` and
 * `..` without ever climbing above the root. A bare `/path` or a relative
 * path is rejected with EINVAL and a message that shows the corrected form.
 * NUL bytes are rejected. Inside the `bash` tool, plain POSIX paths are used.
 */
import { paths } from '@yfs/core'
import { ToolError } from './tool-error.js'

export const VFS_SCHEME = 'vfs://'

/** `vfs:///a/b` → `/a/b` (normalised). Throws EINVAL for anything else. */
export function fromVfsPath(input: string): string {
  if (typeof input !== 'string' || input.includes('\0'))
    throw new ToolError('EINVAL', 'EINVAL: paths cannot contain NUL bytes')
  const slashed = input.replace(/\\/g, '/')
  if (!slashed.toLowerCase().startsWith(VFS_SCHEME)) {
    throw new ToolError(
      'EINVAL',
      `EINVAL: '${input}' is not a workspace path; workspace paths are vfs:/// URLs: use '${toVfsPath(paths.resolve('/', slashed))}'`,
    )
  }
  const rest = slashed.slice(VFS_SCHEME.length)
  if (!rest.startsWith('/'))
    throw new ToolError(
      'EINVAL',
      `EINVAL: vfs URLs have no host: use '${toVfsPath(paths.resolve('/', rest))}' for '${input}'`,
    )
  return paths.normalize(rest)
}

/** `/a/b` → `vfs:///a/b`. */
export function toVfsPath(path: string): string {
  return `${VFS_SCHEME}${paths.normalize(path)}`
}

/** Rewrite the quoted POSIX paths of an errno message into vfs:/// form. */
export function vfsMessage(message: string): string {
  return message.replace(/'(\/[^']*)'/g, (_, p: string) => `'${toVfsPath(p)}'`)
}
