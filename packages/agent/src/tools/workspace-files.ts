/**
 * The workspace's files as glob and grep see them: every path below a
 * folder except the bash tool's local system folders, with .gitignore files
 * applied (each to the paths below its own folder), and the check that
 * patterns are relative to the search folder.
 */
import { isLocalPath, type YjsFileSystem } from '@yfs/core'
import ignore, { type Ignore } from 'ignore'
import { ToolError } from '../errors.js'
import { vfs } from './shared.js'

/**
 * Workspace file paths below `base` (local paths excluded), honouring .gitignore files unless
 * told not to. A `base` in the local layer (`/tmp/work`) lists that folder's local paths instead.
 */
export async function filesUnder(fs: YjsFileSystem, base: string, gitignore: boolean): Promise<string[]> {
  // Below a local folder (/tmp): its own paths, not the workspace's.
  if (isLocalPath(base))
    return fs
      .getAllPaths()
      .filter((p) => p === base || p.startsWith(`${base}/`))
      .sort()
  const all = fs.index
    .allPaths()
    .filter((p) => !isLocalPath(p) && (base === '/' || p === base || p.startsWith(`${base}/`)))
  if (!gitignore) return all
  // Each .gitignore applies to the paths below its folder.
  const rules: [string, Ignore][] = []
  for (const p of all) {
    if (!p.endsWith('/.gitignore')) continue
    const dir = p.slice(0, -'/.gitignore'.length) || '/'
    rules.push([dir, ignore().add(await fs.readFile(p))])
  }
  if (rules.length === 0) return all
  return all.filter((p) =>
    rules.every(([dir, ig]) => {
      if (dir !== '/' && !p.startsWith(`${dir}/`)) return true
      const rel = p.slice(dir === '/' ? 1 : dir.length + 1)
      return rel === '' || !ig.ignores(rel)
    }),
  )
}

/**
 * Glob patterns are relative to the search folder. An absolute pattern
 * (`/src/*.ts`, `vfs:///src/*.ts`) would silently match nothing, so it is
 * EINVAL with the relative form to use instead.
 */
export function checkRelative(pattern: string, base: string, what: string): void {
  const bare = pattern.startsWith('!') ? pattern.slice(1) : pattern
  if (!bare.startsWith('/') && !/^vfs:/i.test(bare)) return
  const abs = bare.replace(/^vfs:\/\//i, '').replace(/^\/+/, '/')
  const rel =
    base === '/' ? abs.slice(1) : abs.startsWith(`${base}/`) ? abs.slice(base.length + 1) : undefined
  throw new ToolError(
    'EINVAL',
    `${what} '${pattern}' is absolute; patterns are relative to path (${vfs(base)})` +
      (rel ? `: use '${pattern.startsWith('!') ? '!' : ''}${rel}'` : `: set path to a folder above it`),
  )
}
