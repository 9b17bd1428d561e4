/**
 * The local layer: top-level folders that belong to one `YjsFileSystem`
 * instance (the machine it runs on) and never reach the Y.Doc.
 *
 * - `/bin`, `/usr`, `/dev`, `/proc`: what just-bash writes while it sets up
 *   (command stubs, `/dev/null`, `/proc/self`). Passed through unchecked. (A
 *   shell in `@yfs/agent`'s bash worker keeps its own for the run instead.)
 * - `/tmp`: scratch space for scripts (`awk '{ print > "/tmp/out" }'`,
 *   `split … /tmp/chunk_`, `mktemp -d`). Local like on a real machine, where
 *   `/tmp` belongs to the machine and not to the project: scratch files never
 *   sync to peers, never enter history, trash or checkpoints, and two replicas
 *   cannot race to create the folder. It lasts as long as the instance (one
 *   agent session, one MCP server process), so a script's scratch files are
 *   there for the next tool call. Unlike the other local folders it obeys the
 *   workspace rules: POSIX parents (ENOENT for a missing folder, no implicit
 *   `mkdir -p`), the name rules, and the limits as its own quota (the same
 *   numbers as the workspace: file size, total size, node count, name and
 *   path length, depth), because anyone with a read-only token can still
 *   write there. `/tmp` itself cannot be removed or moved: `rm -rf /tmp`
 *   empties it.
 *
 * The layer wraps a plain in-memory backend (`MemoryFs`) and turns any plain
 * `Error`s of a backend ("ENOENT: …, open '/x'") into `FsError`s with the
 * same message, so callers branch on `.code` for local paths too. Usage of `/tmp` is counted here
 * (bytes and nodes), incrementally: a write knows its size, a removal
 * measures the subtree it removes.
 *
 * Not done: symlinks inside `/tmp` resolve inside the local layer only (a
 * link from `/tmp` to a workspace path dangles), and hard links are ENOSYS
 * like everywhere else.
 *
 * (A little over 400 lines: one method per `IFileSystem` method, each
 * applying the `/tmp` rules above; the storage itself is memory-fs.ts.)
 */
import type { BufferEncoding, FileContent, FsStat, IFileSystem, MkdirOptions, RmOptions } from 'just-bash'
import { getEncoding, toBytes, utf8Length } from '../encoding.js'
import {
  type ErrnoCode,
  efbig,
  einval,
  eisdir,
  enametoolong,
  enoent,
  enospc,
  enosys,
  enotdir,
  enotempty,
  FsError,
} from '../errors.js'
import type { FileSystemLimits } from '../limits.js'
import * as paths from '../path.js'
import { validateName } from './names.js'

type ReadFileOptions = Parameters<IFileSystem['readFile']>[1]
type WriteFileOptions = Parameters<IFileSystem['writeFile']>[2]
type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem['readdirWithFileTypes']>>>[number]

/** Top-level folders that are local to each instance: just-bash's system folders and `/tmp`. */
export const SYSTEM_ROOTS: readonly string[] = ['bin', 'usr', 'dev', 'proc', 'tmp']

/** The scratch folder: local to each instance, under the workspace limits (see local-layer.ts). */
export const TMP_PATH = '/tmp'

/**
 * True when `path` (absolute; `vfs:`-free) is in the local layer: it exists on
 * this instance only and is not part of the shared workspace. The web app
 * shows these apart; tools list them only when asked.
 * @example isLocalPath('/tmp/out.txt') // true
 * @example isLocalPath('/src/tmp/x') // false
 */
export function isLocalPath(path: string): boolean {
  const normalized = paths.resolve('/', path)
  if (normalized === '/') return false
  const end = normalized.indexOf('/', 1)
  return SYSTEM_ROOTS.includes(end === -1 ? normalized.slice(1) : normalized.slice(1, end))
}

/** True for `/tmp` and everything below it (`normalized` must be normalised). */
export function isTmpPath(normalized: string): boolean {
  return normalized === TMP_PATH || normalized.startsWith(`${TMP_PATH}/`)
}

/** What the local layer needs of its backend: an `IFileSystem` with just-bash's synchronous set-up calls. */
export type LocalBackend = IFileSystem & {
  mkdirSync(path: string, options?: MkdirOptions): void
  writeFileSync(path: string, content: FileContent): void
}

const KNOWN_CODES = new Set<string>([
  'ENOENT',
  'EEXIST',
  'EISDIR',
  'ENOTDIR',
  'ENOTEMPTY',
  'EINVAL',
  'EACCES',
  'EPERM',
  'EFBIG',
  'ENOSPC',
  'ENOSYS',
  'ELOOP',
  'ENAMETOOLONG',
  'EBUSY',
  'EIO',
])

/** A backend `Error` ("ENOENT: no such file or directory, open '/x'") as an FsError with the same message. */
function toFsError(error: unknown): unknown {
  if (error instanceof FsError || !(error instanceof Error)) return error
  const m = /^(E[A-Z]+): (.*), (\w+) '(.*)'$/s.exec(error.message)
  if (!m || !KNOWN_CODES.has(m[1]!)) return error
  return new FsError(m[1] as ErrnoCode, m[3]!, m[4]!, undefined, m[2])
}

async function translated<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run()
  } catch (error) {
    throw toFsError(error)
  }
}

function translatedSync<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    throw toFsError(error)
  }
}

/** Bytes and nodes below a path. */
interface Usage {
  bytes: number
  nodes: number
}

const NONE: Usage = { bytes: 0, nodes: 0 }

/** The local layer of one instance; `/tmp` checked and counted, the rest passed through. */
export class LocalLayer {
  readonly #backend: LocalBackend
  readonly #limits: FileSystemLimits
  readonly #used: Usage = { bytes: 0, nodes: 0 }
  #queue: Promise<unknown> = Promise.resolve()

  constructor(backend: LocalBackend, limits: FileSystemLimits) {
    this.#backend = backend
    this.#limits = limits
    for (const root of SYSTEM_ROOTS) backend.mkdirSync(`/${root}`, { recursive: true })
  }

  /** Bytes and nodes (files, folders, symlinks) in `/tmp`, `/tmp` itself not counted. */
  get tmpUsage(): Readonly<Usage> {
    return { ...this.#used }
  }

  /** One `/tmp` change at a time, so a check and its write never interleave with another's. */
  #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn)
    this.#queue = run.catch(() => undefined)
    return translated(() => run)
  }

  // ----------------------------------------------------------------- reads

  readFile(path: string, options?: ReadFileOptions): Promise<string> {
    return translated(() => this.#backend.readFile(path, options))
  }
  readFileBuffer(path: string): Promise<Uint8Array> {
    return translated(() => this.#backend.readFileBuffer(path))
  }
  readFileBytes(path: string): Promise<string> {
    const b = this.#backend
    return translated(async () => (b.readFileBytes ? b.readFileBytes(path) : '') as string)
  }
  exists(path: string): Promise<boolean> {
    return this.#backend.exists(path)
  }
  stat(path: string): Promise<FsStat> {
    return translated(() => this.#backend.stat(path))
  }
  lstat(path: string): Promise<FsStat> {
    return translated(() => this.#backend.lstat(path))
  }
  readdir(path: string): Promise<string[]> {
    return translated(() => this.#backend.readdir(path))
  }
  readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    const b = this.#backend
    return translated(async () => {
      if (b.readdirWithFileTypes) return b.readdirWithFileTypes(path)
      const out: DirentEntry[] = []
      for (const name of await b.readdir(path)) {
        const st = await b.lstat(paths.join(path, name))
        out.push({ name, isFile: st.isFile, isDirectory: st.isDirectory, isSymbolicLink: st.isSymbolicLink })
      }
      return out
    })
  }
  readlink(path: string): Promise<string> {
    return translated(() => this.#backend.readlink(path))
  }
  realpath(path: string): Promise<string> {
    return translated(() => this.#backend.realpath(path))
  }
  getAllPaths(): string[] {
    return this.#backend.getAllPaths()
  }

  // ------------------------------------------------------- set-up (sync)

  /** just-bash's set-up (`/bin` stubs, `/dev`, `/proc`); under `/tmp` only `/tmp` itself (it exists). */
  mkdirSync(path: string, options?: MkdirOptions): void {
    if (isTmpPath(path) && path !== TMP_PATH)
      throw enosys('mkdir', path, 'synchronous mkdir is only for system paths')
    translatedSync(() => this.#backend.mkdirSync(path, path === TMP_PATH ? { recursive: true } : options))
  }
  writeFileSync(path: string, content: FileContent): void {
    if (isTmpPath(path)) throw enosys('write', path, 'synchronous writes are only for system paths')
    translatedSync(() => this.#backend.writeFileSync(path, content))
  }

  // ---------------------------------------------------------------- writes

  writeFile(path: string, content: FileContent, options?: WriteFileOptions): Promise<void> {
    if (!isTmpPath(path)) return translated(() => this.#backend.writeFile(path, content, options))
    return this.#exclusive(async () => {
      const target = await this.#writeTarget(path, 'open')
      const size = byteLength(content, getEncoding(options))
      this.#checkFile(target.path, path, 'open', size, target.size)
      await this.#backend.writeFile(target.path, content, options)
      this.#add(size - (target.size ?? 0), target.size === undefined ? 1 : 0, target.path)
    })
  }

  appendFile(path: string, content: FileContent, options?: WriteFileOptions): Promise<void> {
    if (!isTmpPath(path)) return translated(() => this.#backend.appendFile(path, content, options))
    return this.#exclusive(async () => {
      const target = await this.#writeTarget(path, 'append')
      const added = byteLength(content, getEncoding(options))
      this.#checkFile(target.path, path, 'append', (target.size ?? 0) + added, target.size)
      await this.#backend.appendFile(target.path, content, options)
      this.#add(added, target.size === undefined ? 1 : 0, target.path)
    })
  }

  mkdir(path: string, options?: MkdirOptions): Promise<void> {
    if (!isTmpPath(path) || path === TMP_PATH) return translated(() => this.#backend.mkdir(path, options))
    return this.#exclusive(async () => {
      const missing: string[] = []
      for (let p = path; p !== TMP_PATH && !(await this.#backend.exists(p)); p = paths.dirname(p))
        missing.push(p)
      // Existing path, or a missing grandparent without -p: the backend gives the POSIX error.
      if (missing.length === 0 || (!options?.recursive && missing.length > 1)) {
        if (missing.length > 1) throw enoent('mkdir', path)
        return this.#backend.mkdir(path, options)
      }
      const parent = paths.dirname(missing.at(-1)!)
      if (!(await this.#backend.stat(parent)).isDirectory) throw enotdir('mkdir', path)
      for (const p of missing) this.#checkName(paths.basename(p), 'mkdir', path)
      this.#checkPath(path, 'mkdir', path, missing.length)
      await this.#backend.mkdir(path, { recursive: true })
      this.#add(0, missing.length, path)
    })
  }

  symlink(target: string, linkPath: string): Promise<void> {
    if (!isTmpPath(linkPath)) return translated(() => this.#backend.symlink(target, linkPath))
    return this.#exclusive(async () => {
      await this.#parentOf(linkPath, 'symlink')
      if (await this.#lstatOrUndefined(linkPath)) throw new FsError('EEXIST', 'symlink', linkPath)
      this.#checkName(paths.basename(linkPath), 'symlink', linkPath)
      this.#checkPath(linkPath, 'symlink', linkPath, 1)
      await this.#backend.symlink(target, linkPath)
      this.#add(0, 1, linkPath)
    })
  }

  rm(path: string, options?: RmOptions): Promise<void> {
    if (!isTmpPath(path)) return translated(() => this.#backend.rm(path, options))
    return this.#exclusive(async () => {
      if (path === TMP_PATH) {
        // /tmp stays (like a mount point); `rm -r` empties it.
        if (!options?.recursive) throw eisdir('rm', path)
        for (const name of await this.#backend.readdir(TMP_PATH))
          await this.#remove(paths.join(TMP_PATH, name))
        return
      }
      const st = await this.#lstatOrUndefined(path)
      if (!st) {
        if (options?.force) return
        throw enoent('rm', path)
      }
      if (st.isDirectory && !options?.recursive && (await this.#backend.readdir(path)).length > 0)
        throw enotempty('rm', path)
      await this.#remove(path)
    })
  }

  /** Both paths local; moves between `/tmp` and the other local folders are EACCES. */
  mv(src: string, dest: string): Promise<void> {
    if (!isTmpPath(src) && !isTmpPath(dest)) return translated(() => this.#backend.mv(src, dest))
    if (!isTmpPath(src) || !isTmpPath(dest)) return Promise.reject(new FsError('EACCES', 'rename', src, dest))
    return this.#exclusive(async () => {
      if (src === TMP_PATH || dest === TMP_PATH) throw new FsError('EBUSY', 'rename', src, dest)
      const from = await this.#lstatOrUndefined(src)
      if (!from) throw enoent('rename', src, dest)
      if (from.isDirectory && paths.isSameOrDescendant(src, dest))
        throw einval('mv', src, `cannot move '${src}' into itself, '${dest}'`)
      await this.#parentOf(dest, 'rename')
      const to = await this.#lstatOrUndefined(dest)
      let replaced = NONE
      if (to) {
        if (from.isDirectory && !to.isDirectory) throw new FsError('ENOTDIR', 'rename', src, dest)
        if (!from.isDirectory && to.isDirectory) throw new FsError('EISDIR', 'rename', src, dest)
        if (to.isDirectory && (await this.#backend.readdir(dest)).length > 0)
          throw new FsError('ENOTEMPTY', 'rename', src, dest)
        replaced = await this.#measure(dest)
      }
      this.#checkName(paths.basename(dest), 'rename', dest)
      this.#checkPath(dest, 'rename', dest, 0)
      if (to) await this.#backend.rm(dest, { recursive: true })
      await this.#backend.mv(src, dest)
      this.#add(-replaced.bytes, -replaced.nodes, dest)
    })
  }

  chmod(path: string, mode: number): Promise<void> {
    return translated(() => this.#backend.chmod(path, mode))
  }
  utimes(path: string, atime: Date, mtime: Date): Promise<void> {
    return translated(() => this.#backend.utimes(path, atime, mtime))
  }

  // --------------------------------------------------------------- helpers

  async #lstatOrUndefined(path: string): Promise<FsStat | undefined> {
    try {
      return await this.#backend.lstat(path)
    } catch (error) {
      // Missing (or a file in the middle of the path): there is nothing to count.
      if (toFsError(error) instanceof FsError) return undefined
      throw error
    }
  }

  /** The real folder a new entry of `path` goes into: ENOENT when missing, ENOTDIR when a file. */
  async #parentOf(path: string, syscall: string): Promise<string> {
    let parent: string
    try {
      parent = await this.#backend.realpath(paths.dirname(path))
    } catch (error) {
      if (toFsError(error) instanceof FsError) throw enoent(syscall, path)
      throw error
    }
    if (!(await this.#backend.stat(parent)).isDirectory) throw enotdir(syscall, path)
    return parent
  }

  /** Where a write lands (symlinks followed) and the size it replaces (`undefined`: a new file). */
  async #writeTarget(path: string, syscall: string): Promise<{ path: string; size?: number }> {
    let real: string
    try {
      real = await this.#backend.realpath(path)
    } catch {
      // Not there yet (or a dangling link): a new entry in its parent folder.
      const parent = await this.#parentOf(path, syscall)
      real = paths.join(parent, paths.basename(path))
      const link = await this.#lstatOrUndefined(real)
      if (link?.isSymbolicLink) throw enoent(syscall, path)
      this.#checkName(paths.basename(real), syscall, path)
      return { path: real }
    }
    const st = await this.#backend.stat(real)
    if (st.isDirectory) throw eisdir(syscall, path)
    if (!isTmpPath(real)) return { path: real, size: 0 }
    return { path: real, size: st.size }
  }

  #checkName(name: string, syscall: string, original: string): void {
    validateName(name, syscall, original)
    if (utf8Length(name) > this.#limits.maxNameLength)
      throw enametoolong(syscall, original, `name longer than ${this.#limits.maxNameLength} bytes`)
  }

  #checkPath(path: string, syscall: string, original: string, newNodes: number): void {
    if (paths.split(path).length > this.#limits.maxPathDepth)
      throw einval(syscall, original, `path deeper than ${this.#limits.maxPathDepth} levels`)
    if (utf8Length(path) > this.#limits.maxPathLength)
      throw enametoolong(syscall, original, `path longer than ${this.#limits.maxPathLength} bytes`)
    if (this.#used.nodes + newNodes > this.#limits.maxNodeCount)
      throw enospc(syscall, original, `/tmp holds the maximum of ${this.#limits.maxNodeCount} nodes`)
  }

  #checkFile(real: string, original: string, syscall: string, size: number, oldSize?: number): void {
    if (!isTmpPath(real)) return
    if (oldSize === undefined) this.#checkPath(real, syscall, original, 1)
    if (size > this.#limits.maxFileSize)
      throw efbig(syscall, original, `file larger than ${this.#limits.maxFileSize} bytes`)
    if (this.#used.bytes - (oldSize ?? 0) + size > this.#limits.maxTotalSize)
      throw enospc(syscall, original, `/tmp larger than ${this.#limits.maxTotalSize} bytes`)
  }

  #add(bytes: number, nodes: number, real: string): void {
    if (!isTmpPath(real)) return
    this.#used.bytes += bytes
    this.#used.nodes += nodes
  }

  /** Bytes and nodes of `path` and everything below it (symlinks not followed). */
  async #measure(path: string): Promise<Usage> {
    const st = await this.#backend.lstat(path)
    if (!st.isDirectory) return { bytes: st.isFile ? st.size : 0, nodes: 1 }
    const total = { bytes: 0, nodes: 1 }
    for (const name of await this.#backend.readdir(path)) {
      const child = await this.#measure(paths.join(path, name))
      total.bytes += child.bytes
      total.nodes += child.nodes
    }
    return total
  }

  async #remove(path: string): Promise<void> {
    const usage = await this.#measure(path)
    await this.#backend.rm(path, { recursive: true, force: true })
    this.#add(-usage.bytes, -usage.nodes, path)
  }
}

function byteLength(content: FileContent, encoding: BufferEncoding): number {
  if (typeof content === 'string' && (encoding === 'utf8' || encoding === 'utf-8')) return utf8Length(content)
  return toBytes(content, encoding).byteLength
}
