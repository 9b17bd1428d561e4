/**
 * File-tree state for the sidebar, as Svelte runes over a YjsFileSystem.
 *
 * The tree is the visible rows of the filesystem's path index (what every
 * replica shows: display-name suffixes such as `a (1).md`, orphans at the
 * top, trashed rows hidden), flattened for the expanded folders only, so
 * cost follows what is on screen and not the size of the workspace. It is
 * rebuilt at most once per animation frame after any change to the files
 * table, local or remote (an agent's `mv`, the disk daemon, another
 * browser), so the tree follows without reload.
 *
 * Folders are expanded by id, so a folder keeps its state when it (or a
 * parent) is renamed or moved. The instance-local system folders (`/bin`,
 * `/usr`, `/dev`, `/proc`) are not workspace folders and are left out.
 *
 * Operations take display paths and throw FsError (fs-errors.ts turns them
 * into sentences). Unlike `mv`, renaming or moving onto an existing name is
 * refused with EEXIST instead of trashing the file that is there.
 *
 * Components get plain objects from here, never Y types.
 */
import { type FileId, FsError, paths, ROOT_ID, SYSTEM_ROOTS, type YjsFileSystem } from '@yfs/core'

/** One visible row of the tree. */
export interface TreeRow {
  id: FileId
  /** Display path (what the filesystem calls it now). */
  path: string
  /** Display name (with a suffix when peers created the same name at once). */
  name: string
  kind: 'file' | 'folder'
  /** 1 for the top level (aria-level). */
  level: number
  expanded: boolean
  /** Position among its siblings, from 1, and their number (aria-posinset / aria-setsize). */
  position: number
  siblings: number
}

/** An entry of the Trash view. */
export interface TrashItem {
  id: FileId
  name: string
  kind: 'file' | 'folder'
  trashedAt: number
  /** Where it was, when that folder still exists. */
  originalPath: string | undefined
}

interface Child {
  id: FileId
  name: string
  kind: 'file' | 'folder'
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' })

/** Live tree state of one filesystem; `destroy()` when done. */
export class FileTree {
  /** Visible rows, top to bottom. */
  rows: TreeRow[] = $state.raw([])
  /** Id of the selected row (also the keyboard focus inside the tree). */
  selectedId: FileId | undefined = $state()
  /** Trashed entries, newest first; kept up to date while `watchTrash` is on. */
  trash: TrashItem[] = $state.raw([])
  readonly fs: YjsFileSystem
  #expanded = new Set<FileId>()
  // Sorted children per folder, keyed by the index's childNames array (a new array after any change).
  #sorted = new WeakMap<readonly string[], Child[]>()
  #frame: number | undefined
  #watchTrash = false
  #unsubscribe: () => void

  constructor(fs: YjsFileSystem) {
    this.fs = fs
    this.#unsubscribe = fs.index.onChange(() => this.#schedule())
    this.refresh()
  }

  /** Rebuild the rows now (normally done once per frame after changes). */
  refresh(): void {
    if (this.#frame !== undefined) cancelAnimationFrame(this.#frame)
    this.#frame = undefined
    const out: TreeRow[] = []
    const walk = (folder: FileId, prefix: string, level: number) => {
      const children = this.#children(folder)
      children.forEach((child, i) => {
        const path = prefix + child.name
        const expanded = child.kind === 'folder' && this.#expanded.has(child.id)
        out.push({ ...child, path, level, expanded, position: i + 1, siblings: children.length })
        if (expanded) walk(child.id, `${path}/`, level + 1)
      })
    }
    walk(ROOT_ID, '/', 1)
    this.rows = out
    if (this.selectedId !== undefined && this.fs.index.pathOf(this.selectedId) === undefined)
      this.selectedId = undefined
    if (this.#watchTrash) this.trash = this.#trashItems()
  }

  /** The children of a folder as the tree shows them: folders first, then natural name order. */
  #children(folder: FileId): Child[] {
    const names = this.fs.index.childNames(folder)
    let children = this.#sorted.get(names)
    if (children) return children
    children = []
    for (const name of names) {
      if (folder === ROOT_ID && SYSTEM_ROOTS.includes(name)) continue
      const id = this.fs.index.child(folder, name)
      const row = id === undefined ? undefined : this.fs.table.get(id)
      if (!row || row.type === 'symlink') continue
      children.push({ id: row.id, name, kind: row.type })
    }
    children.sort((a, b) =>
      a.kind !== b.kind
        ? a.kind === 'folder'
          ? -1
          : 1
        : collator.compare(a.name, b.name) || (a.name < b.name ? -1 : 1),
    )
    this.#sorted.set(names, children)
    return children
  }

  #schedule(): void {
    if (this.#frame !== undefined) return
    this.#frame = requestAnimationFrame(() => {
      this.#frame = undefined
      this.refresh()
    })
  }

  /** Keep `trash` up to date (the Trash view is open) or stop. */
  watchTrash(on: boolean): void {
    this.#watchTrash = on
    if (on) this.trash = this.#trashItems()
  }

  #trashItems(): TrashItem[] {
    return this.fs.trash
      .list()
      .filter((e) => e.type !== 'symlink')
      .map((e) => ({
        id: e.id,
        name: e.name,
        kind: e.type === 'folder' ? 'folder' : 'file',
        trashedAt: e.trashedAt,
        originalPath: e.originalPath,
      }))
  }

  // ------------------------------------------------------------ expansion

  isExpanded(id: FileId): boolean {
    return this.#expanded.has(id)
  }

  /** Expand or collapse a folder. */
  setExpanded(id: FileId, expanded: boolean): void {
    if (expanded === this.#expanded.has(id)) return
    if (expanded) this.#expanded.add(id)
    else this.#expanded.delete(id)
    this.refresh()
  }

  /** Expand every folder above `path`, so its row is visible. */
  reveal(path: string): void {
    let changed = false
    let cur = paths.dirname(path)
    while (cur !== '/') {
      const id = this.fs.index.lookup(cur)
      if (id !== undefined && !this.#expanded.has(id)) {
        this.#expanded.add(id)
        changed = true
      }
      cur = paths.dirname(cur)
    }
    if (changed) this.refresh()
  }

  /** Id and kind of the node at a display path. */
  find(path: string): { id: FileId; kind: 'file' | 'folder' } | undefined {
    const id = this.fs.index.lookup(path)
    const row = id === undefined ? undefined : this.fs.table.get(id)
    return row && row.type !== 'symlink' ? { id: row.id, kind: row.type } : undefined
  }

  /** Current display path of a node, `undefined` once it is gone or trashed. */
  pathOf(id: FileId): string | undefined {
    return this.fs.index.pathOf(id)
  }

  // ----------------------------------------------------------- operations

  /** The folder new files go into: the selected folder, or the folder of the selected file. */
  targetFolder(): string {
    if (this.selectedId === undefined) return '/'
    const path = this.fs.index.pathOf(this.selectedId)
    if (path === undefined) return '/'
    return this.fs.table.get(this.selectedId)?.type === 'folder' ? path : paths.dirname(path)
  }

  /** Create an empty file or a folder; returns its path. Throws FsError (EEXIST, EINVAL, EACCES …). */
  async create(folder: string, name: string, kind: 'file' | 'folder'): Promise<string> {
    const path = paths.join(folder, name)
    if (await this.fs.exists(path)) throw new FsError('EEXIST', kind === 'folder' ? 'mkdir' : 'open', path)
    if (kind === 'folder') await this.fs.mkdir(path)
    else await this.fs.writeFile(path, '')
    this.reveal(path)
    return path
  }

  /** Rename in place; returns the new path. Throws FsError (EEXIST for a taken name). */
  async rename(path: string, name: string): Promise<string> {
    const dest = paths.join(paths.dirname(path), name)
    if (dest === path) return path
    await this.#moveTo(path, dest)
    return dest
  }

  /** Move into another folder, keeping the name; returns the new path. Throws FsError. */
  async move(path: string, folder: string): Promise<string> {
    const dest = paths.join(folder, paths.basename(path))
    if (dest === path) return path
    await this.#moveTo(path, dest)
    if (folder !== '/') {
      const id = this.fs.index.lookup(folder)
      if (id !== undefined) this.setExpanded(id, true)
    }
    return dest
  }

  async #moveTo(path: string, dest: string): Promise<void> {
    // A case-only rename names the same node on a case-sensitive tree, so only refuse other nodes.
    const existing = this.fs.index.lookup(dest)
    if (existing !== undefined && existing !== this.fs.index.lookup(path))
      throw new FsError('EEXIST', 'rename', path, dest)
    await this.fs.mv(path, dest)
  }

  /** Move a file or folder (with everything in it) to the trash. Throws FsError. */
  async remove(path: string): Promise<void> {
    await this.fs.rm(path, { recursive: true })
  }

  /** Bring an entry back from the trash; returns where it landed. Throws FsError. */
  restore(id: FileId): string {
    const path = this.fs.trash.restore(id)
    this.reveal(path)
    return path
  }

  /** Delete everything in the trash for good; returns the number of rows removed. Throws FsError. */
  emptyTrash(): number {
    return this.fs.trash.empty()
  }

  destroy(): void {
    if (this.#frame !== undefined) cancelAnimationFrame(this.#frame)
    this.#unsubscribe()
  }
}
