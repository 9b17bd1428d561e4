/**
 * The filesystem a worker's shell sees: the workspace (through fs-proxy.ts)
 * with just-bash's system folders (`/bin`, `/usr`, `/dev`, `/proc`) kept in
 * the worker, fresh for each run (just-bash's `MountableFs`, an `InMemoryFs`
 * per folder).
 *
 * Why: just-bash writes its ~180 command stubs there as every shell starts,
 * and looks a command up there each time it runs one (`stat /usr/bin/cat`);
 * on the workspace each was a message to the main thread and back (a loop
 * running `cat > /dev/null` 1,000 times sent 5,000). `/tmp`, the local
 * layer's other folder, stays on the workspace filesystem, where it outlives
 * the run and has its quota.
 *
 * `MountableFs` has no synchronous methods, which just-bash needs to set up
 * those folders (it skips the setup without them), so this subclass adds the
 * two it uses, routed the same way.
 */
import {
  type FileContent,
  type FsStat,
  type IFileSystem,
  InMemoryFs,
  type MkdirOptions,
  MountableFs,
} from 'just-bash'

/** just-bash's dirent (its type is not exported by name). */
type DirentEntry = Awaited<ReturnType<NonNullable<IFileSystem['readdirWithFileTypes']>>>[number]

import { resolveVirtualPath } from './fs-proxy.js'
import { RUN_LOCAL_FOLDERS } from './protocol.js'

type SyncWriteOptions = Parameters<InMemoryFs['writeFileSync']>[2]
type ReadOptions = Parameters<IFileSystem['readFile']>[1]
type WriteOptions = Parameters<IFileSystem['writeFile']>[2]
type SyncMetadata = Parameters<InMemoryFs['writeFileSync']>[3]
type SyncMkdirOptions = Parameters<InMemoryFs['mkdirSync']>[1]

interface SyncMethods {
  mkdirSync?(path: string, options?: SyncMkdirOptions): void
  writeFileSync?(
    path: string,
    content: FileContent,
    options?: SyncWriteOptions,
    metadata?: SyncMetadata,
  ): void
}

class RunFs extends MountableFs {
  readonly #workspace: IFileSystem & SyncMethods
  readonly #folders = new Map<string, InMemoryFs>()

  constructor(workspace: IFileSystem) {
    const folders = RUN_LOCAL_FOLDERS.map((name) => [name, new InMemoryFs()] as const)
    super({
      base: workspace,
      mounts: folders.map(([name, fs]) => ({ mountPoint: `/${name}`, filesystem: fs })),
    })
    this.#workspace = workspace
    for (const [name, fs] of folders) this.#folders.set(name, fs)
  }

  /** The filesystem that holds `path` and the path within it (as `MountableFs` routes it). */
  #route(path: string): { fs: SyncMethods; path: string } {
    const normalized = resolveVirtualPath('/', path)
    const end = normalized.indexOf('/', 1)
    const folder = this.#folders.get(normalized.slice(1, end === -1 ? undefined : end))
    if (!folder) return { fs: this.#workspace, path: normalized }
    return { fs: folder, path: end === -1 ? '/' : normalized.slice(end) }
  }

  /**
   * `path` normalised when it is a workspace path that no run-local folder is at or below (not
   * `/`, which lists them), else `undefined`. For such a path `MountableFs` does exactly what
   * the methods below do, after normalising it twice and looking at every mount point for each
   * call: a tenth of a worker's time under `cp -r` of 1,000 files (one `lstat` per entry).
   */
  #workspacePath(path: string): string | undefined {
    // MountableFs's own error for a NUL byte.
    if (path.includes('\0')) return undefined
    const to = this.#route(path)
    return to.fs === this.#workspace && to.path !== '/' ? to.path : undefined
  }

  override async lstat(path: string): Promise<FsStat> {
    const at = this.#workspacePath(path)
    return at === undefined ? super.lstat(path) : this.#workspace.lstat(at)
  }

  override async stat(path: string): Promise<FsStat> {
    const at = this.#workspacePath(path)
    return at === undefined ? super.stat(path) : this.#workspace.stat(at)
  }

  override async exists(path: string): Promise<boolean> {
    const at = this.#workspacePath(path)
    return at === undefined ? super.exists(path) : this.#workspace.exists(at)
  }

  override async readFile(path: string, options?: ReadOptions): Promise<string> {
    const at = this.#workspacePath(path)
    return at === undefined ? super.readFile(path, options) : this.#workspace.readFile(at, options)
  }

  override async readFileBuffer(path: string): Promise<Uint8Array> {
    const at = this.#workspacePath(path)
    return at === undefined ? super.readFileBuffer(path) : this.#workspace.readFileBuffer(at)
  }

  override async writeFile(path: string, content: FileContent, options?: WriteOptions): Promise<void> {
    const at = this.#workspacePath(path)
    return at === undefined
      ? super.writeFile(path, content, options)
      : this.#workspace.writeFile(at, content, options)
  }

  override async appendFile(path: string, content: FileContent, options?: WriteOptions): Promise<void> {
    const at = this.#workspacePath(path)
    return at === undefined
      ? super.appendFile(path, content, options)
      : this.#workspace.appendFile(at, content, options)
  }

  override async mkdir(path: string, options?: MkdirOptions): Promise<void> {
    const at = this.#workspacePath(path)
    return at === undefined ? super.mkdir(path, options) : this.#workspace.mkdir(at, options)
  }

  mkdirSync(path: string, options?: SyncMkdirOptions): void {
    const to = this.#route(path)
    to.fs.mkdirSync?.(to.path, options)
  }

  writeFileSync(
    path: string,
    content: FileContent,
    options?: SyncWriteOptions,
    metadata?: SyncMetadata,
  ): void {
    const to = this.#route(path)
    to.fs.writeFileSync?.(to.path, content, options, metadata)
  }

  /**
   * Entries with their kinds, routed as `readdir` is (`MountableFs` has no such method, so
   * just-bash's globs listed by name and the worker never learned which entries are files:
   * fs-proxy.ts's write-behind needs that to overwrite without waiting).
   */
  async readdirWithFileTypes(path: string): Promise<DirentEntry[]> {
    const normalized = resolveVirtualPath('/', path)
    const to = this.#route(normalized)
    if (to.fs !== this.#workspace) return (to.fs as InMemoryFs).readdirWithFileTypes(to.path)
    const workspace = this.#workspace
    if (!workspace.readdirWithFileTypes)
      return Promise.all(
        (await this.readdir(normalized)).map(async (name) => {
          const s = await this.lstat(normalized === '/' ? `/${name}` : `${normalized}/${name}`)
          return { name, isFile: s.isFile, isDirectory: s.isDirectory, isSymbolicLink: s.isSymbolicLink }
        }),
      )
    const entries = await workspace.readdirWithFileTypes(normalized)
    if (normalized !== '/') return entries
    // The root shows the run's own folders, as `readdir` does (over any workspace entry of that name).
    const own = new Set<string>(RUN_LOCAL_FOLDERS)
    const folders = RUN_LOCAL_FOLDERS.map((name) => ({
      name,
      isFile: false,
      isDirectory: true,
      isSymbolicLink: false,
    }))
    return [...entries.filter((e) => !own.has(e.name)), ...folders].sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )
  }
}

/** `workspace` with just-bash's system folders kept in this worker for one run (see the module comment). */
export function withRunLocalFolders(workspace: IFileSystem): IFileSystem {
  return new RunFs(workspace)
}
