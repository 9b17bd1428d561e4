/**
 * Root guard: every host path the daemon touches is derived here from a
 * virtual workspace path, and checked to stay inside the sync root.
 *
 * Refused (a `RootGuardError` with a reason, reported and skipped by the
 * caller, never thrown past it):
 * - names that are empty, `.` or `..`, or contain `/`, `\` or NUL
 *   (a peer can put any string in a row; core only validates its own writes);
 * - names longer than 255 UTF-8 bytes (what Linux and macOS allow);
 * - a parent folder that is a symlink resolving outside the root
 *   (`resolveInside` compares real paths);
 * - symlink targets that are absolute or climb out of the root.
 *
 * It deliberately does not follow the last component: the caller decides
 * whether it writes through a symlink (it never does; disk-writer replaces
 * the link itself).
 */
import { realpath } from 'node:fs/promises'
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'

const MAX_NAME_BYTES = 255

/** A path the daemon refuses to touch; `path` is the virtual path. */
export class RootGuardError extends Error {
  readonly path: string
  readonly reason: string
  constructor(path: string, reason: string) {
    super(`EACCES: ${reason}, sync '${path}'`)
    this.name = 'RootGuardError'
    this.path = path
    this.reason = reason
  }
}

/** Why `name` cannot be a file name on this host, or undefined when it can. */
export function invalidNameReason(name: string): string | undefined {
  if (name === '' || name === '.' || name === '..') return `reserved file name '${name}'`
  if (name.includes('/') || name.includes('\\') || name.includes('\0'))
    return 'file names cannot contain /, \\ or NUL'
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) return 'file name longer than 255 bytes'
  if (process.platform === 'win32' && /[<>:"|?*]|[. ]$/.test(name)) return 'name not allowed on Windows'
  return undefined
}

/** True when `candidate` is `root` or below it (both absolute, normalised). */
export function isInside(root: string, candidate: string): boolean {
  const rel = relative(root, candidate)
  // `..` as the first segment leaves the root; a name that merely starts with dots (`..notes`) does not.
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel))
}

/**
 * The host path of virtual `path` (`/a/b.txt`) under `root`. Throws
 * RootGuardError for an invalid component or a result outside the root.
 */
export function toHostPath(root: string, path: string): string {
  const parts = path.split('/').filter((p, i) => i > 0 || p !== '')
  if (parts.length === 0) return root
  for (const part of parts) {
    const reason = invalidNameReason(part)
    if (reason) throw new RootGuardError(path, reason)
  }
  const host = join(root, ...parts)
  if (!isInside(root, host) || host === root) throw new RootGuardError(path, 'path outside the sync root')
  return host
}

/** The virtual path (`/a/b.txt`) of a host path inside `root`. */
export function toVirtualPath(root: string, host: string): string {
  // The common case (a normalised path below the root) without path.relative, which the watcher calls per entry.
  if (host.length > root.length + 1 && host.startsWith(root) && host[root.length] === sep && sep === '/') {
    const rest = host.slice(root.length + 1)
    if (!rest.includes('//') && !rest.split('/').some((p) => p === '.' || p === '..' || p === ''))
      return `/${rest}`
  }
  const rel = relative(root, host)
  if (rel === '') return '/'
  return `/${rel.split(sep).join('/')}`
}

/**
 * Check that the folder `host` will be written into is really inside the
 * root: a parent that is (or goes through) a symlink leaving the root is
 * refused. `realRoot` is `realpath(root)`. Missing parents are fine (they
 * will be created as real folders).
 */
export async function assertParentInside(realRoot: string, host: string, path: string): Promise<void> {
  let dir = dirname(host)
  for (;;) {
    try {
      const real = await realpath(dir)
      if (!isInside(realRoot, real))
        throw new RootGuardError(path, 'parent folder resolves outside the sync root')
      return
    } catch (error) {
      if (error instanceof RootGuardError) throw error
      // ENOENT: this folder does not exist yet; check the nearest existing ancestor instead.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      const up = dirname(dir)
      if (up === dir) return
      dir = up
    }
  }
}

/**
 * Why a symlink at `host` with `target` would point outside `root`, or
 * undefined when it stays inside. Absolute targets are always refused (they
 * mean something different on every machine).
 */
export function symlinkEscapeReason(root: string, host: string, target: string): string | undefined {
  if (target === '' || target.includes('\0')) return 'invalid symlink target'
  if (isAbsolute(target)) return 'absolute symlink target'
  if (!isInside(root, resolve(dirname(host), target))) return 'symlink target outside the sync root'
  return undefined
}
