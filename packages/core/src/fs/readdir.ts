/**
 * Listing folders: `readdir`, `readdirWithFileTypes` and `getAllPaths`.
 *
 * The root always lists the system roots (`bin`, `dev`, `proc`, `tmp`,
 * `usr`) of the local layer; shared nodes with those names are hidden
 * behind them. Names are the index's display names (sibling suffixes).
 */
import type { IFileSystem } from 'just-bash'
import { enotdir } from '../errors.js'
import { type FileId, ROOT_ID } from '../ids.js'
import type { FsContext } from './fs-context.js'
import { SYSTEM_ROOTS } from './local-layer.js'
import { isFolder, isSystemPath, locate, normalizePath } from './locate.js'

type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem['readdirWithFileTypes']>>>[number]

/** `fs.readdir`: display names, sorted. ENOENT, ENOTDIR. */
export async function readdir(ctx: FsContext, path: string): Promise<string[]> {
  const { id, system } = dir(ctx, path)
  if (system !== undefined) return ctx.local.readdir(system)
  const names = ctx.index.childNames(id)
  if (id !== ROOT_ID) return [...names]
  return [...new Set([...names.filter((n) => !SYSTEM_ROOTS.includes(n)), ...SYSTEM_ROOTS])].sort()
}

/** `fs.readdirWithFileTypes`: names with their types. ENOENT, ENOTDIR. */
export async function readdirWithFileTypes(ctx: FsContext, path: string): Promise<DirentEntry[]> {
  const { id, system } = dir(ctx, path)
  if (system !== undefined) return ctx.local.readdirWithFileTypes(system)
  const out: DirentEntry[] = []
  for (const name of ctx.index.childNames(id)) {
    if (id === ROOT_ID && SYSTEM_ROOTS.includes(name)) continue
    const row = ctx.table.get(ctx.index.child(id, name)!)!
    out.push({
      name,
      isFile: row.type === 'file',
      isDirectory: row.type === 'folder',
      isSymbolicLink: row.type === 'symlink',
    })
  }
  if (id === ROOT_ID) {
    for (const name of SYSTEM_ROOTS)
      out.push({ name, isFile: false, isDirectory: true, isSymbolicLink: false })
    out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  }
  return out
}

/** Every path: the local layer's, then the workspace's (without the shadowed system roots). */
export function getAllPaths(ctx: FsContext): string[] {
  const local = ctx.local.getAllPaths()
  const shared = ctx.index.allPaths().filter((p) => !isSystemPath(p))
  return [...local, ...shared]
}

function dir(ctx: FsContext, path: string): { id: FileId; system?: string } {
  const loc = locate(ctx, normalizePath(path, 'scandir'), true, 'scandir', path)
  if (loc.kind === 'system') return { id: ROOT_ID, system: loc.path }
  if (!isFolder(ctx, loc.id)) throw enotdir('scandir', path)
  return { id: loc.id }
}
