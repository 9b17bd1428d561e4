/**
 * MemoryFs: a small in-memory `IFileSystem` for the instance-local layer of
 * `YjsFileSystem` (`/bin`, `/usr`, `/dev`, `/proc`: just-bash's command
 * stubs and devices).
 *
 * It exists so that core needs just-bash only for types: just-bash's
 * `InMemoryFs` lives in its single ~800 KB bundle, which a browser page that
 * never runs a shell must not load. Semantics follow `InMemoryFs` (the
 * differential test runs the same scripts on both):
 * - writes, `symlink` and `cp`/`mv` targets create missing parent folders;
 * - symlinks are followed on every component (at most 40 hops, then ELOOP),
 *   except the last one for `lstat`, `readlink`, `rm`, `cp`/`mv` sources and
 *   write targets (a write replaces a symlink, as in InMemoryFs);
 * - `readdir` is sorted by UTF-16 code unit; `stat` reports an `identity`
 *   per entry;
 * - a path with NUL is ENOENT.
 * Where InMemoryFs stores an entry under a file or a symlink (unreachable
 * afterwards) this follows POSIX instead: parents are resolved through
 * symlinks, and a parent that is a file is ENOTDIR.
 * Errors are `FsError`s with Node's message format.
 *
 * What it deliberately doesn't do: hard links (`link` is ENOSYS, as in the
 * shared workspace), lazy files, size quotas (the layer that owns it counts
 * what it allows).
 */
import type {
  BufferEncoding,
  CpOptions,
  FileContent,
  FsStat,
  IFileSystem,
  MkdirOptions,
  RmOptions,
} from 'just-bash'
import { fromBytes, getEncoding, latin1FromBytes, toBytes } from '../encoding.js'
import { eexist, einval, eisdir, eloop, enoent, enosys, enotdir, enotempty, FsError } from '../errors.js'
import * as paths from '../path.js'

type ReadFileOptions = Parameters<IFileSystem['readFile']>[1]
type WriteFileOptions = Parameters<IFileSystem['writeFile']>[2]
type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem['readdirWithFileTypes']>>>[number]

type Entry =
  | { type: 'file'; content: Uint8Array; mode: number; mtime: Date }
  | { type: 'directory'; mode: number; mtime: Date }
  | { type: 'symlink'; target: string; mode: number; mtime: Date }

const MAX_SYMLINK_HOPS = 40
const FILE_MODE = 0o644
const DIR_MODE = 0o755
const SYMLINK_MODE = 0o777

function checkPath(path: string, syscall: string): void {
  if (path.includes('\0')) throw new FsError('ENOENT', syscall, path, undefined, 'path contains null byte')
}

/** An in-memory filesystem for one instance's local folders. */
export class MemoryFs implements IFileSystem {
  readonly #entries = new Map<string, Entry>()
  /** Children of every folder, so listing and removal do not scan the whole map. */
  readonly #children = new Map<string, Set<string>>()
  readonly #identities = new WeakMap<Entry, string>()
  #nextIdentity = 1

  constructor() {
    this.#entries.set('/', { type: 'directory', mode: DIR_MODE, mtime: new Date() })
    this.#children.set('/', new Set())
  }

  // ------------------------------------------------------------ internals

  #set(path: string, entry: Entry): void {
    const previous = this.#entries.get(path)
    this.#entries.set(path, entry)
    if (path === '/') return
    if (entry.type === 'directory') {
      if (previous?.type !== 'directory') this.#children.set(path, new Set())
    } else this.#children.delete(path)
    this.#children.get(paths.dirname(path))?.add(paths.basename(path))
  }

  /** Remove one entry (not its children). */
  #delete(path: string): void {
    if (!this.#entries.delete(path)) return
    this.#children.delete(path)
    this.#children.get(paths.dirname(path))?.delete(paths.basename(path))
  }

  /** Create missing parent folders (like InMemoryFs); a parent that is a file or symlink is ENOTDIR. */
  #ensureParents(path: string, syscall: string, original: string): void {
    const parent = paths.dirname(path)
    if (parent === '/') return
    const entry = this.#entries.get(parent)
    if (entry?.type === 'directory') return
    // InMemoryFs would store the child under a file or link, where nothing can reach it.
    if (entry) throw enotdir(syscall, original)
    this.#ensureParents(parent, syscall, original)
    this.#set(parent, { type: 'directory', mode: DIR_MODE, mtime: new Date() })
  }

  /** Follow symlinks on every component (or all but the last), as InMemoryFs does. */
  #resolve(path: string, syscall: string, followLast = true): string {
    const parts = paths.split(paths.normalize(path))
    let current = '/'
    const seen = new Set<string>()
    for (let i = 0; i < parts.length; i++) {
      current = paths.join(current, parts[i]!)
      if (!followLast && i === parts.length - 1) break
      let entry = this.#entries.get(current)
      let hops = 0
      while (entry?.type === 'symlink') {
        if (seen.has(current) || hops >= MAX_SYMLINK_HOPS) throw eloop(syscall, path)
        seen.add(current)
        current = paths.resolve(paths.dirname(current), entry.target)
        entry = this.#entries.get(current)
        hops++
      }
    }
    return current
  }

  /** Child names in UTF-16 code-unit order (InMemoryFs's listing and traversal order). */
  #sortedChildren(dir: string): string[] {
    return [...(this.#children.get(dir) ?? [])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  }

  #identity(entry: Entry): string {
    let identity = this.#identities.get(entry)
    if (!identity) {
      identity = `memfs:${this.#nextIdentity++}`
      this.#identities.set(entry, identity)
    }
    return identity
  }

  #statOf(entry: Entry): FsStat {
    if (entry.type === 'symlink') {
      return {
        isFile: false,
        isDirectory: false,
        isSymbolicLink: true,
        mode: entry.mode,
        size: entry.target.length,
        mtime: entry.mtime,
      }
    }
    return {
      isFile: entry.type === 'file',
      isDirectory: entry.type === 'directory',
      isSymbolicLink: false,
      mode: entry.mode,
      size: entry.type === 'file' ? entry.content.byteLength : 0,
      mtime: entry.mtime,
      identity: this.#identity(entry),
    }
  }

  #file(path: string): Uint8Array {
    checkPath(path, 'open')
    const entry = this.#entries.get(this.#resolve(path, 'open'))
    if (!entry) throw enoent('open', path)
    if (entry.type !== 'file') throw eisdir('read', path)
    return entry.content
  }

  // ------------------------------------------------------------ reads

  async readFile(path: string, options?: ReadFileOptions | BufferEncoding): Promise<string> {
    return fromBytes(this.#file(path), getEncoding(options ?? undefined))
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    return this.#file(path)
  }

  /** The bytes as a latin1 string (just-bash's `ByteString`), for byte-exact commands. */
  async readFileBytes(path: string): Promise<never> {
    // ByteString is an opaque brand over a latin1 string (just-bash encoding.ts); we cannot name it.
    return latin1FromBytes(this.#file(path)) as never
  }

  async exists(path: string): Promise<boolean> {
    if (path.includes('\0')) return false
    try {
      return this.#entries.has(this.#resolve(path, 'access'))
    } catch (error) {
      // A symlink loop: the path does not resolve to anything, so it does not exist.
      if (error instanceof FsError && error.code === 'ELOOP') return false
      throw error
    }
  }

  async stat(path: string): Promise<FsStat> {
    checkPath(path, 'stat')
    const entry = this.#entries.get(this.#resolve(path, 'stat'))
    if (!entry) throw enoent('stat', path)
    return this.#statOf(entry)
  }

  async lstat(path: string): Promise<FsStat> {
    checkPath(path, 'lstat')
    const entry = this.#entries.get(this.#resolve(path, 'lstat', false))
    if (!entry) throw enoent('lstat', path)
    return this.#statOf(entry)
  }

  async readdir(path: string): Promise<string[]> {
    return (await this.readdirWithFileTypes(path)).map((entry) => entry.name)
  }

  async readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    checkPath(path, 'scandir')
    const dir = this.#resolve(path, 'scandir')
    const entry = this.#entries.get(dir)
    if (!entry) throw enoent('scandir', path)
    if (entry.type !== 'directory') throw enotdir('scandir', path)
    const names = this.#sortedChildren(dir)
    return names.map((name) => {
      const child = this.#entries.get(paths.join(dir, name))
      return {
        name,
        isFile: child?.type === 'file',
        isDirectory: child?.type === 'directory',
        isSymbolicLink: child?.type === 'symlink',
      }
    })
  }

  async readlink(path: string): Promise<string> {
    checkPath(path, 'readlink')
    const entry = this.#entries.get(this.#resolve(path, 'readlink', false))
    if (!entry) throw enoent('readlink', path)
    if (entry.type !== 'symlink') throw einval('readlink', path)
    return entry.target
  }

  async realpath(path: string): Promise<string> {
    checkPath(path, 'realpath')
    const resolved = this.#resolve(path, 'realpath')
    if (!this.#entries.has(resolved)) throw enoent('realpath', path)
    return resolved
  }

  getAllPaths(): string[] {
    return [...this.#entries.keys()]
  }

  resolvePath(base: string, path: string): string {
    return paths.resolve(base, path)
  }

  // ------------------------------------------------------------ writes

  /** Synchronous write (just-bash writes command stubs and devices while it sets up). */
  writeFileSync(path: string, content: FileContent, options?: WriteFileOptions | BufferEncoding): void {
    checkPath(path, 'write')
    const target = this.#resolve(path, 'open', false)
    if (this.#entries.get(target)?.type === 'directory') throw eisdir('open', path)
    this.#ensureParents(target, 'open', path)
    this.#set(target, {
      type: 'file',
      // A copy: the caller may reuse its buffer.
      content: new Uint8Array(toBytes(content, getEncoding(options))),
      mode: FILE_MODE,
      mtime: new Date(),
    })
  }

  async writeFile(
    path: string,
    content: FileContent,
    options?: WriteFileOptions | BufferEncoding,
  ): Promise<void> {
    this.writeFileSync(path, content, options)
  }

  async appendFile(
    path: string,
    content: FileContent,
    options?: WriteFileOptions | BufferEncoding,
  ): Promise<void> {
    checkPath(path, 'append')
    const target = this.#resolve(path, 'open', false)
    const entry = this.#entries.get(target)
    if (entry?.type === 'directory') throw eisdir('write', path)
    if (entry?.type !== 'file') {
      this.writeFileSync(path, content, options)
      return
    }
    const added = toBytes(content, getEncoding(options))
    const joined = new Uint8Array(entry.content.byteLength + added.byteLength)
    joined.set(entry.content)
    joined.set(added, entry.content.byteLength)
    this.#set(target, { type: 'file', content: joined, mode: entry.mode, mtime: new Date() })
  }

  /** Synchronous mkdir (just-bash creates its system folders while it sets up). */
  mkdirSync(path: string, options?: MkdirOptions): void {
    checkPath(path, 'mkdir')
    const target = this.#resolve(path, 'mkdir', false)
    const existing = this.#entries.get(target)
    if (existing) {
      // Like InMemoryFs: `mkdir -p` accepts an existing folder or symlink, never a file.
      if (existing.type !== 'file' && options?.recursive) return
      throw eexist('mkdir', path)
    }
    const parent = this.#entries.get(paths.dirname(target))
    if (!parent) {
      if (!options?.recursive) throw enoent('mkdir', path)
      this.mkdirSync(paths.dirname(target), { recursive: true })
    } else if (parent.type !== 'directory') throw enotdir('mkdir', path)
    this.#set(target, { type: 'directory', mode: DIR_MODE, mtime: new Date() })
  }

  async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    this.mkdirSync(path, options)
  }

  async rm(path: string, options?: RmOptions): Promise<void> {
    checkPath(path, 'rm')
    const target = this.#resolve(path, 'rm', false)
    const entry = this.#entries.get(target)
    if (!entry) {
      if (options?.force) return
      throw enoent('rm', path)
    }
    if (entry.type === 'directory') {
      const children = this.#sortedChildren(target)
      if (children.length > 0 && !options?.recursive) throw enotempty('rm', path)
      for (const name of children) await this.rm(paths.join(target, name), options)
    }
    if (target !== '/') this.#delete(target)
  }

  async cp(src: string, dest: string, options?: CpOptions): Promise<void> {
    checkPath(src, 'cp')
    checkPath(dest, 'cp')
    const from = this.#resolve(src, 'cp', false)
    const to = this.#resolve(dest, 'cp', false)
    const entry = this.#entries.get(from)
    if (!entry) throw enoent('cp', src)
    if (entry.type === 'directory') {
      if (!options?.recursive) throw new FsError('EISDIR', 'cp', src, undefined, 'is a directory')
      if (paths.isSameOrDescendant(from, to)) {
        throw new FsError('EINVAL', 'cp', src, dest, 'cannot copy a folder into itself')
      }
      this.mkdirSync(to, { recursive: true })
      for (const name of this.#sortedChildren(from)) {
        await this.cp(paths.join(from, name), paths.join(to, name), options)
      }
      return
    }
    this.#ensureParents(to, 'cp', dest)
    this.#set(to, entry.type === 'file' ? { ...entry, content: new Uint8Array(entry.content) } : { ...entry })
  }

  async mv(src: string, dest: string): Promise<void> {
    checkPath(src, 'mv')
    checkPath(dest, 'mv')
    const from = this.#resolve(src, 'rename', false)
    const to = this.#resolve(dest, 'rename', false)
    if (from === to) return
    const entry = this.#entries.get(from)
    if (!entry) throw enoent('mv', src)
    if (entry.type === 'directory') {
      if (paths.isSameOrDescendant(from, to)) {
        throw new FsError('EINVAL', 'mv', src, dest, 'cannot move a folder into itself')
      }
      this.mkdirSync(to, { recursive: true })
      for (const name of this.#sortedChildren(from)) {
        await this.mv(paths.join(from, name), paths.join(to, name))
      }
      this.#delete(from)
      return
    }
    this.#ensureParents(to, 'rename', dest)
    this.#set(to, entry)
    this.#delete(from)
  }

  async chmod(path: string, mode: number): Promise<void> {
    checkPath(path, 'chmod')
    const entry = this.#entries.get(this.#resolve(path, 'chmod', false))
    if (!entry) throw enoent('chmod', path)
    entry.mode = mode
  }

  async utimes(path: string, _atime: Date, mtime: Date): Promise<void> {
    checkPath(path, 'utimes')
    const entry = this.#entries.get(this.#resolve(path, 'utimes'))
    if (!entry) throw enoent('utimes', path)
    entry.mtime = mtime
  }

  async symlink(target: string, linkPath: string): Promise<void> {
    checkPath(linkPath, 'symlink')
    const link = this.#resolve(linkPath, 'symlink', false)
    if (this.#entries.has(link)) throw eexist('symlink', linkPath)
    this.#ensureParents(link, 'symlink', linkPath)
    this.#set(link, { type: 'symlink', target, mode: SYMLINK_MODE, mtime: new Date() })
  }

  async link(existingPath: string, _newPath: string): Promise<void> {
    throw enosys('link', existingPath, 'hard links are not supported')
  }
}
