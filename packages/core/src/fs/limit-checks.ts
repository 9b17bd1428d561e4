/**
 * The workspace limits (limits.ts) as checks that run before anything is
 * written, so a failing check changes nothing: name rules and length,
 * path depth and length, node count, file and workspace size.
 *
 * The local layer checks `/tmp` against the same numbers itself
 * (local-layer.ts); bulk loads check a whole tree at once (bulk-load.ts).
 */
import { utf8Length } from '../encoding.js'
import { efbig, einval, enametoolong, enospc } from '../errors.js'
import * as paths from '../path.js'
import type { FsContext } from './fs-context.js'
import { validateName } from './names.js'

/** EINVAL for a bad name, ENAMETOOLONG for a long one. */
export function checkName(ctx: FsContext, name: string, syscall: string, original: string): void {
  validateName(name, syscall, original)
  if (utf8Length(name) > ctx.limits.maxNameLength)
    throw enametoolong(syscall, original, `name longer than ${ctx.limits.maxNameLength} bytes`)
}

/** EINVAL (depth), ENAMETOOLONG (length) or ENOSPC (node count) for `newNodes` new nodes at `path`. */
export function checkNewPath(
  ctx: FsContext,
  path: string,
  syscall: string,
  original: string,
  newNodes = 1,
): void {
  const { limits } = ctx
  if (paths.depth(path) > limits.maxPathDepth)
    throw einval(syscall, original, `path deeper than ${limits.maxPathDepth} levels`)
  if (utf8Length(path) > limits.maxPathLength)
    throw enametoolong(syscall, original, `path longer than ${limits.maxPathLength} bytes`)
  if (ctx.index.nodeCount + newNodes > limits.maxNodeCount)
    throw enospc(syscall, original, `workspace holds the maximum of ${limits.maxNodeCount} nodes`)
}

/** How many folders `mkdir -p` would create (0 when the path exists). */
export function missingFolders(ctx: FsContext, path: string): number {
  let missing = 0
  for (let p = path; p !== '/'; p = paths.dirname(p)) {
    if (ctx.index.lookup(p) !== undefined) break
    missing++
  }
  return missing
}

/** EFBIG for a file over the size limit, ENOSPC when the workspace would outgrow its own. */
export function checkSize(
  ctx: FsContext,
  newSize: number,
  oldSize: number,
  syscall: string,
  original: string,
): void {
  const { limits } = ctx
  if (newSize > limits.maxFileSize)
    throw efbig(syscall, original, `file larger than ${limits.maxFileSize} bytes`)
  if (ctx.index.totalBytes - oldSize + newSize > limits.maxTotalSize)
    throw enospc(
      syscall,
      original,
      `workspace larger than ${limits.maxTotalSize} bytes (empty the trash to free space)`,
    )
}
