/**
 * Ignore rules: which paths the mirror leaves alone in both directions
 * (never uploaded, never downloaded, never deleted).
 *
 * Sources, all in .gitignore syntax (the `ignore` package):
 * - the defaults (`.git/`, `node_modules/`, the daemon's state folder and
 *   its temp files), unless `useDefaults: false`;
 * - extra patterns from the caller;
 * - `.yfsignore` at the root;
 * - every `.gitignore`, applying below its own folder (git's rule).
 *
 * Rule files are read from disk with `load`/`reload`; the daemon reloads a
 * folder's rules when its `.gitignore` or the root `.yfsignore` changes.
 * Paths are virtual (`/a/b.txt`).
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import ignore, { type Ignore } from 'ignore'
import { TEMP_PREFIX } from './disk-writer.js'
import { isDenied } from './errno.js'

/** Name of the daemon's state folder inside the root. */
export const STATE_DIR = '.yfs-sync'

/** Patterns ignored unless turned off. */
export const DEFAULT_IGNORES: readonly string[] = [
  '.git/',
  'node_modules/',
  `${STATE_DIR}/`,
  `${TEMP_PREFIX}*`,
]

export interface IgnoreRules {
  /** True when `path` (virtual) is ignored; `isDir` for folders. */
  ignores(path: string, isDir: boolean): boolean
  /** (Re)read the rule file(s) of folder `dir` (virtual). */
  reload(dir: string): Promise<void>
  /** True when `path` is a rules file whose change should trigger `reload`. */
  isRulesFile(path: string): boolean
}

async function readRules(host: string): Promise<string | undefined> {
  try {
    return await readFile(host, 'utf8')
  } catch (error) {
    // No rules file in this folder: nothing to add.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined
    // In a folder this process may not read: the scan refuses (and reports) the folder itself.
    if (isDenied(error)) return undefined
    throw error
  }
}

/** Build the rules of the folder at `root` (host path); call `reload('/')` to read the root's files. */
export function createIgnoreRules(
  root: string,
  options: { patterns?: readonly string[]; useDefaults?: boolean } = {},
): IgnoreRules {
  const base = ignore().add([
    ...(options.useDefaults === false ? [] : DEFAULT_IGNORES),
    ...(options.patterns ?? []),
  ])
  // Folder (virtual, '/' or '/a/b') → its .gitignore (and .yfsignore for the root).
  const perFolder = new Map<string, Ignore>()
  const test = (matcher: Ignore, rel: string, isDir: boolean) => matcher.ignores(isDir ? `${rel}/` : rel)

  // Folder (virtual) → whether it is ignored, remembered until the rules change: a path is
  // ignored when its parent folder is, or by a rule looking at the path itself, so each
  // path costs one lookup here instead of a walk over every ancestor.
  const folders = new Map<string, boolean>()

  const ignores = (path: string, isDir: boolean): boolean => {
    const rel = path.replace(/^\/+/, '')
    if (rel === '') return false
    const slash = rel.lastIndexOf('/')
    if (slash > 0 && folderIgnored(`/${rel.slice(0, slash)}`)) return true
    if (test(base, rel, isDir)) return true
    // Every ancestor's own rules, relative to that ancestor.
    if (perFolder.size === 0) return false
    const parts = rel.split('/')
    for (let i = 0; i < parts.length; i++) {
      const matcher = perFolder.get(i === 0 ? '/' : `/${parts.slice(0, i).join('/')}`)
      if (matcher && test(matcher, parts.slice(i).join('/'), isDir)) return true
    }
    return false
  }
  const folderIgnored = (folder: string): boolean => {
    let ignored = folders.get(folder)
    if (ignored === undefined) {
      ignored = ignores(folder, true)
      folders.set(folder, ignored)
    }
    return ignored
  }

  return {
    ignores,
    async reload(dir) {
      const hostDir = dir === '/' ? root : join(root, ...dir.split('/').filter(Boolean))
      const texts = [await readRules(join(hostDir, '.gitignore'))]
      if (dir === '/') texts.push(await readRules(join(hostDir, '.yfsignore')))
      const present = texts.filter((t): t is string => t !== undefined)
      folders.clear()
      if (present.length === 0) perFolder.delete(dir)
      else perFolder.set(dir, ignore().add(present.join('\n')))
    },
    isRulesFile(path) {
      return path.endsWith('/.gitignore') || path === '/.yfsignore'
    },
  }
}
