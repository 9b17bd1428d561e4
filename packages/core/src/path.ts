/**
 * Pure POSIX path helpers for virtual paths. No I/O, no node:path, safe in
 * browsers. Semantics match just-bash's `normalizePath`/`resolvePath`
 * (`..` never climbs above `/`, trailing slashes are dropped), so paths
 * compare equal whichever side produced them.
 */

export const ROOT_PATH = '/'

/** Normalise: resolve `.`/`..`, collapse slashes, force a leading `/`, drop a trailing one. */
export function normalize(path: string): string {
  if (!path || path === '/') return '/'
  if (isNormal(path)) return path
  const out: string[] = []
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') out.pop()
    else out.push(part)
  }
  return `/${out.join('/')}`
}

/**
 * True when `path` is already normal: absolute, no empty, `.` or `..` component, no
 * trailing slash. Most paths callers pass are; checking is cheaper than splitting.
 * (Any `/.` rejects, so a hidden name such as `/.git` takes the slow path: still right.)
 */
function isNormal(path: string): boolean {
  return (
    path.charCodeAt(0) === 47 &&
    path.charCodeAt(path.length - 1) !== 47 &&
    !path.includes('//') &&
    !path.includes('/.')
  )
}

/** Resolve `path` against the absolute directory `base`. */
export function resolve(base: string, path: string): string {
  if (path.startsWith('/')) return normalize(path)
  return normalize(base === '/' ? `/${path}` : `${base}/${path}`)
}

/** Parent directory of a normalised path (`/` for `/`). */
export function dirname(path: string): string {
  if (path === '/') return '/'
  const i = path.lastIndexOf('/')
  return i <= 0 ? '/' : path.slice(0, i)
}

/** Last component of a normalised path (`''` for `/`). */
export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

/** Join a directory and a child name without re-normalising. */
export function join(dir: string, name: string): string {
  return dir === '/' ? `/${name}` : `${dir}/${name}`
}

/** Components of a normalised path (`[]` for `/`). */
export function split(path: string): string[] {
  return path === '/' ? [] : path.slice(1).split('/')
}

/** Number of components of a normalised path (`split(path).length`, without the array). */
export function depth(path: string): number {
  if (path === '/') return 0
  let n = 1
  for (let i = path.indexOf('/', 1); i !== -1; i = path.indexOf('/', i + 1)) n++
  return n
}

/** True when `candidate` is `ancestor` or lies below it. */
export function isSameOrDescendant(ancestor: string, candidate: string): boolean {
  return ancestor === '/' || candidate === ancestor || candidate.startsWith(`${ancestor}/`)
}
