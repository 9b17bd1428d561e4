/**
 * FileSession: the file open in the editor pane, followed by id, as runes.
 *
 * A session resolves its path to a file id once and then follows the id:
 * a rename or move (of the file or of a folder above it, by anyone) updates
 * `path` without reopening anything, and `kind` says which editor fits the
 * file now — `markdown` (rich text) or `text` (CodeMirror) by the codec of
 * its current name, `binary` while its content doc holds bytes. A rename
 * from `.txt` to `.md` therefore flips `kind` and the pane swaps editors on
 * the same content doc (core has already moved the text to the new codec's
 * keys: convert-on-switch).
 *
 * It holds one pool handle for its lifetime (so the doc and its provider
 * stay connected) and announces the person on the doc's awareness when the
 * connection has content awareness. `destroy()` releases both.
 *
 * What it deliberately doesn't do: bind editors (code-editor.ts,
 * rich-editor.ts) or follow a file out of the trash.
 */
import { type DocAwareness, isNotOnDevice, type WorkspaceConnection } from '@yfs/client'
import { BINARY_KEY, type ContentDocHandle, type FileId } from '@yfs/core'
import type * as Y from 'yjs'
import { describeFsError } from '../yfs/fs-errors.js'
import { announceUser, type EditorUser, leaveAwareness } from './presence.js'

/** Which view the pane shows. */
export type FileKind = 'loading' | 'text' | 'markdown' | 'binary' | 'folder' | 'missing' | 'trashed' | 'error'

export interface FileSessionOptions {
  conn: WorkspaceConnection
  path: string
  user: EditorUser
  /** Called when the open file's path changes (rename/move), or with `undefined` when it is trashed. */
  onPathChange?: (path: string | undefined) => void
}

/** The name part of a path. */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

export class FileSession {
  /** Current path of the open file (follows renames and moves). */
  path = $state('')
  kind = $state<FileKind>('loading')
  /** A readable message for `kind === 'error'`. */
  error = $state('')
  /** Byte size from the files table. */
  size = $state(0)
  /** The content doc once loaded (not deeply reactive: editors bind to it). */
  doc = $state.raw<Y.Doc | undefined>(undefined)
  awareness: DocAwareness | undefined = $state.raw(undefined)
  readonly readOnly: boolean
  /** The connection the file belongs to. */
  readonly conn: WorkspaceConnection
  readonly #onPathChange: ((path: string | undefined) => void) | undefined
  #id: FileId | undefined
  #handle: ContentDocHandle | undefined
  #cleanups: (() => void)[] = []
  #destroyed = false

  constructor(options: FileSessionOptions) {
    this.conn = options.conn
    this.#onPathChange = options.onPathChange
    this.path = options.path
    this.readOnly = options.conn.readOnly
    void this.#open(options.path, options.user)
  }

  /** The id of the open file (`undefined` until resolved or when missing). */
  get id(): FileId | undefined {
    return this.#id
  }

  /** Announce a changed name or colour on the doc's awareness. */
  setUser(user: EditorUser): void {
    if (this.awareness) announceUser(this.awareness, user)
  }

  async #open(path: string, user: EditorUser): Promise<void> {
    const fs = this.conn.fs
    const id = fs.index.lookup(path)
    const row = id === undefined ? undefined : fs.table.get(id)
    if (id === undefined || !row) {
      this.kind = 'missing'
      return
    }
    this.#id = id
    this.size = row.size
    if (row.type === 'folder') {
      this.kind = 'folder'
      return
    }
    try {
      // Reading first heals a file whose content sits under another codec's keys
      // (an interrupted convert-on-switch), so the editor binds to the right keys.
      if (!this.readOnly) await fs.readFile(path)
      const handle = await fs.pool.acquire(id)
      if (this.#destroyed) {
        handle.release()
        return
      }
      this.#handle = handle
    } catch (error) {
      if (this.#destroyed) return
      this.kind = 'error'
      this.error = describeFsError(error)
      // Offline, and this device never had the content: open it as soon as the server is back.
      if (isNotOnDevice(error)) this.#openWhenOnline(path, user)
      return
    }
    const doc = this.#handle.doc
    this.doc = doc
    const awareness = this.conn.awarenessOf(doc)
    if (awareness) {
      announceUser(awareness, user)
      this.awareness = awareness
    }
    const binary = doc.getMap<unknown>(BINARY_KEY)
    const onBinary = () => this.#refresh()
    binary.observe(onBinary)
    this.#cleanups.push(() => binary.unobserve(onBinary))
    this.#cleanups.push(fs.index.onChange(() => this.#refresh()))
    this.#refresh()
  }

  #openWhenOnline(path: string, user: EditorUser): void {
    const off = this.conn.onStatus((status) => {
      if (!status.online || this.#destroyed) return
      off()
      this.kind = 'loading'
      void this.#open(path, user)
    })
    this.#cleanups.push(off)
  }

  /** Re-read path, size and kind of the open file from the table and the doc. */
  #refresh(): void {
    const id = this.#id
    const doc = this.doc
    if (id === undefined || !doc || this.#destroyed) return
    const fs = this.conn.fs
    const row = fs.table.get(id)
    const path = row && row.trashedAt === null ? fs.index.pathOf(id) : undefined
    if (!row || path === undefined) {
      if (this.kind !== 'trashed') {
        this.kind = 'trashed'
        this.#onPathChange?.(undefined)
      }
      return
    }
    this.size = row.size
    if (path !== this.path) {
      this.path = path
      this.#onPathChange?.(path)
    }
    const binary = doc.share.has(BINARY_KEY) && doc.getMap(BINARY_KEY).size > 0
    const kind: FileKind = binary ? 'binary' : fs.codecFor(row.name).id === 'markdown' ? 'markdown' : 'text'
    if (kind !== this.kind) this.kind = kind
  }

  /** Stop following the file, clear this person's presence on it and release the doc. */
  destroy(): void {
    if (this.#destroyed) return
    this.#destroyed = true
    for (const cleanup of this.#cleanups.splice(0)) cleanup()
    if (this.awareness) leaveAwareness(this.awareness)
    this.#handle?.release()
    this.#handle = undefined
  }
}
