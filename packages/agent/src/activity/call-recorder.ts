/**
 * What one tool call changed, for its activity entry: each file it created,
 * deleted, moved or wrote, with the history versions before and after.
 *
 * The tool gets a recording view of the filesystem (recording-fs.ts). Before
 * a mutating call touches a path for the first time in this call, the view's
 * hook records the file's pending changes as a history version
 * (`saveVersion`: edits a person typed since the last version become a
 * version in that person's name), and that version is the call's `before`.
 * After the call the newest recorded version is its `after`. So `before`/`after` are
 * exactly the content the call started from and left, which is what undo
 * merges against. A change of mode or mtime (`chmod`, `touch`) leaves the
 * content as it is: it notes the newest version only, recording none (connected,
 * `saveVersion` fetches and decodes the file's state); a later content change of
 * the same call takes its `before` then. A file whose newest version is the same
 * after the call is not logged, as before.
 *
 * Which change events belong to the call: those of paths it named (the
 * view's `owns`), those a bash run reported as its own (`adopt`), and, when
 * no other call ran on this filesystem meanwhile, every local event (trash
 * restores, checkpoint restores: calls whose paths the view cannot see).
 */
import {
  type ActivityFileChange,
  type FileId,
  type FsEvent,
  isFsError,
  isLocalPath,
  paths,
  type YjsFileSystem,
} from '@yfs/core'
import { type BeforeChange, createRecordingFs, type RecordingFs } from '../recording-fs.js'

export interface CallRecorder {
  /** The filesystem view to hand to the tool. */
  readonly fs: YjsFileSystem
  /** The hook for exec runs of this call (bash). */
  readonly beforeChange: BeforeChange
  /** Count these events (an exec run's own) as the call's. */
  adopt(events: readonly FsEvent[]): void
  /** Stop listening; the files the call changed. */
  finish(): Promise<ActivityFileChange[]>
}

interface Before {
  path: string
  type: ActivityFileChange['type']
  version?: string
}

// Calls in flight per filesystem: a call that overlapped another cannot claim every local event.
const running = new WeakMap<YjsFileSystem, Set<{ overlapped: boolean }>>()

/**
 * The version of the file at `path` now: `save` records pending edits first (the state before a
 * call, which must include what others typed); otherwise the newest recorded one (after a call
 * its own write recorded it; an edit typed during the call is then left out, and undo keeps it).
 */
async function versionAt(fs: YjsFileSystem, path: string, save: boolean): Promise<string | undefined> {
  try {
    return save ? (await fs.saveVersion(path)).id : (await fs.latestVersion(path))?.id
  } catch (error) {
    // Not a file any more, or a codec this instance lacks: no version to name.
    if (isFsError(error)) return undefined
    throw error
  }
}

/** Start recording one call on `fs`. */
export function startCall(fs: YjsFileSystem): CallRecorder {
  return new CallRecording(fs)
}

/** One call's recording: a class, so a call costs one object, not a set of closures. */
class CallRecording implements CallRecorder {
  readonly fs: YjsFileSystem
  readonly beforeChange: BeforeChange
  readonly #target: YjsFileSystem
  readonly #before = new Map<FileId, Before>()
  readonly #looked = new Set<string>()
  // Files whose mode or mtime the call changed before (or without) changing their content, with
  // their newest version then.
  readonly #metadataOnly = new Map<FileId, string | undefined>()
  readonly #startedAt = Date.now()
  readonly #recording: RecordingFs
  readonly #events: FsEvent[] = []
  readonly #adopted = new Set<FsEvent>()
  readonly #off: () => void
  readonly #calls: Set<{ overlapped: boolean }>
  readonly #self: { overlapped: boolean }

  constructor(fs: YjsFileSystem) {
    this.#target = fs
    this.beforeChange = (given, metadataOnly) => this.#noteBefore(given, metadataOnly)
    this.#recording = createRecordingFs(fs, this.beforeChange)
    this.fs = this.#recording.fs
    this.#off = fs.watch((e) => {
      if (e.origin === 'local') this.#events.push(e)
    })
    let calls = running.get(fs)
    if (!calls) {
      calls = new Set()
      running.set(fs, calls)
    }
    this.#calls = calls
    this.#self = { overlapped: calls.size > 0 }
    for (const other of calls) other.overlapped = true
    calls.add(this.#self)
  }

  adopt(list: readonly FsEvent[]): void {
    for (const e of list) this.#adopted.add(e)
  }

  async #noteBefore(given: string[], metadataOnly: boolean): Promise<void> {
    const fs = this.#target
    for (const p of given) {
      const path = paths.resolve('/', p)
      if (this.#looked.has(path) || isLocalPath(path)) continue
      const id = fs.index.lookup(path)
      const row = id === undefined ? undefined : fs.table.get(id)
      // Its content stays: no version now; a later content change of this call takes it then.
      if (metadataOnly) {
        if (row && row.type === 'file' && !this.#before.has(row.id) && !this.#metadataOnly.has(row.id))
          this.#metadataOnly.set(row.id, await versionAt(fs, path, false))
        continue
      }
      this.#looked.add(path)
      if (!row || row.trashedAt !== null || this.#before.has(row.id)) continue
      const version = row.type === 'file' ? await versionAt(fs, path, true) : undefined
      this.#before.set(row.id, { path, type: row.type, ...(version ? { version } : {}) })
    }
  }

  async finish(): Promise<ActivityFileChange[]> {
    const fs = this.#target
    this.#off()
    this.#calls.delete(this.#self)
    const order: FileId[] = []
    const first = new Map<FileId, FsEvent>()
    for (const e of this.#events) {
      if (e.type === 'merge' || e.type === 'conflict') continue
      if (this.#self.overlapped && !this.#adopted.has(e) && !this.#recording.owns(e)) continue
      if (!first.has(e.id)) {
        first.set(e.id, e)
        order.push(e.id)
      }
    }
    const changes: ActivityFileChange[] = []
    for (const id of order) {
      const row = fs.table.get(id)
      const now = row && row.trashedAt === null ? fs.index.pathOf(id) : undefined
      const e = first.get(id)!
      // Touched without passing the hook (below a moved or removed folder): it existed if older
      // than the call, unless the call brought it back from the trash.
      const was =
        this.#before.get(id) ??
        (row && row.createdAt < this.#startedAt && e.type !== 'restore'
          ? { path: e.type === 'rename' ? (e.oldPath ?? e.path) : e.path, type: row.type }
          : undefined)
      if (!was && now === undefined) continue
      const type = row?.type ?? was?.type ?? 'file'
      const change: ActivityFileChange = { id, type, path: now ?? was?.path ?? e.path }
      if (!was) change.created = true
      if (was && now === undefined) change.deleted = true
      if (was && now !== undefined && now !== was.path) change.from = was.path
      if (type === 'file') {
        // Only its mode or mtime changed through the paths the call named: its version then.
        const before = was?.version ?? (this.#before.has(id) ? undefined : this.#metadataOnly.get(id))
        if (before) change.before = before
        const after = now === undefined ? undefined : await versionAt(fs, now, false)
        if (after && after !== before) change.after = after
      }
      const edited = change.after !== undefined && !change.created
      if (!change.created && !change.deleted && !change.from && !edited) continue
      changes.push(change)
    }
    return changes
  }
}
