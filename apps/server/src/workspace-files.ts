/**
 * WorkspaceFiles: answers "is this id a file of that workspace?" from the
 * workspace's main doc, which it keeps loaded (a Hocuspocus direct
 * connection) while the workspace has content docs open or being opened.
 *
 * Core writes a new file's content before its row ("content first, row
 * last"), so a client may open a content doc a moment before the row reaches
 * the server, possibly through another server process and Redis. A missing
 * row is therefore awaited for `waitMs` before the open is refused.
 *
 * Holders are counted; when the count drops to zero the main doc is released
 * after `lingerMs`, so open/close churn does not reload it each time.
 */
import type { Document, Hocuspocus } from '@hocuspocus/server'
import {
  asFileId,
  createFileSystemIndex,
  createFilesTable,
  type FileSystemIndex,
  type FilesTable,
  type FileType,
} from '@yfs/core'
import { mainDocName } from '@yfs/protocol'
import { AuthError } from './auth/auth-error.js'

interface Holder {
  users: number
  ready: Promise<{ document: Document; table: FilesTable; disconnect: () => Promise<void> }>
  linger: NodeJS.Timeout | undefined
  /** The path index of `table`, built on first use (searches resolve paths with it). */
  paths?: FileSystemIndex
  /** Row changes seen while held, and this hold's number: `stamp` (searches skip re-checks). */
  changes: number
  generation: number
}

export interface WorkspaceFilesOptions {
  /** How long to wait for a missing row (ms). Default 10 s. */
  waitMs?: number
  /** How long an unused main doc stays held (ms). Default 2 s. */
  lingerMs?: number
}

export class WorkspaceFiles {
  readonly #holders = new Map<string, Holder>()
  readonly #waitMs: number
  readonly #lingerMs: number
  #instance: Hocuspocus | undefined
  #generation = 0

  constructor(options: WorkspaceFilesOptions = {}) {
    this.#waitMs = options.waitMs ?? 10_000
    this.#lingerMs = options.lingerMs ?? 2_000
  }

  attach(instance: Hocuspocus): void {
    this.#instance = instance
  }

  /**
   * Take a hold on `workspace` and check that `fileId` is a file of it
   * (waiting up to `waitMs` for the row). Throws AuthError `no such file in
   * workspace` (the hold is dropped then); on success the caller owns one
   * hold and gives it back with `release`.
   */
  async acquireFile(workspace: string, fileId: string): Promise<void> {
    const holder = this.#hold(workspace)
    try {
      const { table } = await holder.ready
      const id = asFileId(fileId)
      const isFile = () => table.get(id)?.type === 'file'
      if (isFile()) return
      const found = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => finish(false), this.#waitMs)
        const stop = table.observe((changes) => {
          if (changes.has(id) && isFile()) finish(true)
        })
        const finish = (value: boolean) => {
          clearTimeout(timer)
          stop()
          resolve(value)
        }
      })
      if (!found) throw new AuthError('no such file in workspace', fileId)
    } catch (error) {
      this.release(workspace)
      throw error
    }
  }

  /**
   * The row type of each id in `workspace` (`undefined` for no row), read from the
   * held main doc; the hold is given back at once (it lingers, so a burst reuses it).
   */
  async rowTypes(workspace: string, ids: readonly string[]): Promise<(FileType | undefined)[]> {
    this.#hold(workspace)
    try {
      const { table } = await this.#holders.get(workspace)!.ready
      return ids.map((id) => table.get(asFileId(id))?.type)
    } finally {
      this.release(workspace)
    }
  }

  /**
   * Run `fn` with the workspace's files table and path index (built on first use and kept
   * while the main doc is held), holding the main doc meanwhile.
   */
  async withIndex<T>(
    workspace: string,
    fn: (table: FilesTable, index: FileSystemIndex) => Promise<T>,
  ): Promise<T> {
    const holder = this.#hold(workspace)
    try {
      const { table } = await holder.ready
      holder.paths ??= createFileSystemIndex(table)
      return await fn(table, holder.paths)
    } finally {
      this.release(workspace)
    }
  }

  /**
   * A stamp of the workspace's rows while its main doc is held: equal stamps mean no row
   * changed in between (`undefined` when not held or still loading).
   */
  async stamp(workspace: string): Promise<string | undefined> {
    const holder = this.#holders.get(workspace)
    if (!holder) return undefined
    await holder.ready
    return `${holder.generation}:${holder.changes}`
  }

  /** Give back a hold taken by a successful `acquireFile`. */
  release(workspace: string): void {
    const holder = this.#holders.get(workspace)
    if (!holder || --holder.users > 0) return
    holder.linger = setTimeout(() => this.#drop(workspace, holder), this.#lingerMs)
  }

  /** Number of workspaces whose main doc is held. */
  get size(): number {
    return this.#holders.size
  }

  /** Drop every hold now (shutdown). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.#holders].map(([workspace, holder]) => this.#drop(workspace, holder)))
  }

  #hold(workspace: string): Holder {
    let holder = this.#holders.get(workspace)
    if (!holder) {
      const instance = this.#instance
      if (!instance) throw new Error('WorkspaceFiles used before attach()')
      const ready = instance.openDirectConnection(mainDocName(workspace), { system: true }).then((direct) => {
        const document = direct.document!
        const table = createFilesTable(document)
        table.observe(() => {
          created.changes++
        })
        return {
          document,
          table,
          disconnect: async () => {
            table.destroy()
            await direct.disconnect()
          },
        }
      })
      const created: Holder = {
        users: 0,
        ready,
        linger: undefined,
        changes: 0,
        generation: ++this.#generation,
      }
      holder = created
      this.#holders.set(workspace, holder)
      // A failed load must not leave a broken holder behind.
      ready.catch(() => this.#holders.get(workspace) === holder && this.#holders.delete(workspace))
    }
    if (holder.linger) clearTimeout(holder.linger)
    holder.linger = undefined
    holder.users++
    return holder
  }

  async #drop(workspace: string, holder: Holder): Promise<void> {
    if (holder.linger) clearTimeout(holder.linger)
    if (this.#holders.get(workspace) !== holder) return
    this.#holders.delete(workspace)
    try {
      const { disconnect } = await holder.ready
      holder.paths?.destroy()
      await disconnect()
    } catch {
      // The load failed: nothing to disconnect (the error was reported to the acquirer).
    }
  }
}
