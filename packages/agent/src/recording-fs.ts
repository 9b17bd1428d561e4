/**
 * Which change events belong to one exec run. Change events (`fs.watch`)
 * say what changed but not who changed it, and several tool calls (other
 * bash runs, other MCP sessions on a shared store) may write to one
 * filesystem at the same time. So a run's shell gets a view of the
 * filesystem that records the paths its own mutating calls named; an event
 * belongs to the run when its path is one of them, lies below one that a
 * call changed as a whole (`cp -r` into a new folder, `rm -r`, `mv`), or is
 * a folder `mkdir -p` created above one.
 *
 * The view forwards every call to the real filesystem unchanged; it adds no
 * checks and keeps nothing but the set of paths. A `beforeChange` hook, when
 * given, runs before each mutating call with the paths it names (the activity
 * recorder notes what was there before: activity/call-recorder.ts).
 */
import { type FsEvent, type FsOp, isFsError, paths, type YjsFileSystem } from '@yfs/core'

/** Mutating IFileSystem methods and which of their arguments are paths they change. */
const MUTATIONS: Record<string, number[]> = {
  writeFile: [0],
  write: [0],
  appendFile: [0],
  restore: [0],
  mkdir: [0],
  rm: [0],
  cp: [1],
  mv: [0, 1],
  chmod: [0],
  utimes: [0],
  symlink: [1],
  link: [1],
}

/** Methods that change only the path they name (a `mkdir -p /a` must not claim every later event under /a). */
const SINGLE_PATH = new Set([
  'writeFile',
  'write',
  'appendFile',
  'restore',
  'mkdir',
  'chmod',
  'utimes',
  'symlink',
  'link',
])

const strings = (values: unknown[]) => values.filter((a): a is string => typeof a === 'string')

/** Paths changed by the batch methods (`transaction`, `writeTree`), read from their op lists. */
const BATCHES: Record<string, (args: unknown[]) => string[]> = {
  // The argument types are the methods' own (YjsFileSystem.transaction, writeTree).
  transaction: ([ops]) =>
    (ops as FsOp[]).flatMap((op) =>
      op.type === 'rename' ? [op.oldPath, op.newPath] : op.type === 'copy' ? [op.dest] : [op.path],
    ),
  writeTree: ([entries]) => strings((entries as { path?: unknown }[]).map((e) => e.path)),
}

export interface RecordingFs {
  /** The view to hand to the shell. */
  fs: YjsFileSystem
  /** True when `event` was caused by a call made through the view. */
  owns(event: FsEvent): boolean
}

/**
 * Runs before a mutating call with the paths it will change (as given, not normalised);
 * `metadataOnly` when the call changes their mode or mtime only (`chmod`, `utimes`), not what
 * they hold or where they are.
 */
export type BeforeChange = (paths: string[], metadataOnly: boolean) => Promise<void>

/** Methods that change an entry's mode or mtime only. */
const METADATA_ONLY = new Set(['chmod', 'utimes'])

/**
 * Wrap `fs` so the change events of the calls made through it can be told apart.
 * One view per tool call: a class, so a call costs one object and its proxy, not a set of closures.
 */
export function createRecordingFs(fs: YjsFileSystem, beforeChange?: BeforeChange): RecordingFs {
  return new Recording(fs, beforeChange)
}

class Recording implements RecordingFs {
  readonly fs: YjsFileSystem
  // Path → whether events below it count too (a removed, copied, moved or restored folder).
  readonly #touched = new Map<string, boolean>()
  // Every folder above a touched path: a `mkdir -p` event of one of them belongs to the call.
  readonly #above = new Set<string>()
  readonly #target: YjsFileSystem
  readonly #beforeChange: BeforeChange | undefined
  // The wrapped methods, made on first use (a tool calls two or three).
  readonly #wrapped = new Map<string | symbol, unknown>()
  #trash: YjsFileSystem['trash'] | undefined

  constructor(target: YjsFileSystem, beforeChange: BeforeChange | undefined) {
    this.#target = target
    this.#beforeChange = beforeChange
    this.fs = new Proxy(target, new ViewHandler(this))
  }

  owns(e: FsEvent): boolean {
    return this.#related(e.path, e.type) || (e.oldPath !== undefined && this.#related(e.oldPath, e.type))
  }

  /** The view's property `prop`: a wrapped method, the trash view, or the target's own value. */
  get(prop: string | symbol): unknown {
    const target = this.#target
    // A restore from the trash changes the path it returns.
    if (prop === 'trash') return this.#trashView()
    // Methods are bound to the real instance: YjsFileSystem keeps its state in private fields.
    const value: unknown = Reflect.get(target, prop, target)
    if (typeof value !== 'function') return value
    let wrapped = this.#wrapped.get(prop)
    if (wrapped === undefined) {
      wrapped = this.#wrap(prop, value as (...args: unknown[]) => unknown)
      this.#wrapped.set(prop, wrapped)
    }
    return wrapped
  }

  #wrap(prop: string | symbol, method: (...args: unknown[]) => unknown): unknown {
    const target = this.#target
    const argIndexes = typeof prop === 'string' ? MUTATIONS[prop] : undefined
    const batch = typeof prop === 'string' ? BATCHES[prop] : undefined
    if (!argIndexes && !batch) return method.bind(target)
    const subtree = typeof prop !== 'string' || !SINGLE_PATH.has(prop)
    const follow = prop !== 'rm' && prop !== 'symlink'
    const metadataOnly = typeof prop === 'string' && METADATA_ONLY.has(prop)
    return async (...args: unknown[]) => {
      const changed = batch ? batch(args) : strings(argIndexes!.map((i) => args[i]))
      for (const p of changed) this.#touch(paths.normalize(p), subtree)
      if (this.#beforeChange) await this.#beforeChange(changed, metadataOnly)
      try {
        return await method.apply(target, args)
      } finally {
        for (const p of changed)
          await this.#record(p, follow && !(prop === 'mv' && p === changed[0]), subtree)
      }
    }
  }

  #trashView(): YjsFileSystem['trash'] {
    const fs = this.#target
    this.#trash ??= {
      list: () => fs.trash.list(),
      empty: () => fs.trash.empty(),
      restore: (id) => {
        const path = fs.trash.restore(id)
        this.#touch(path, true)
        return path
      },
    }
    return this.#trash
  }

  #touch(path: string, subtree: boolean): void {
    if (this.#touched.get(path)) return
    this.#touched.set(path, subtree)
    // Stops at the first folder already noted: the ones above it are noted too.
    for (let p = path; p !== '/'; ) {
      p = paths.dirname(p)
      if (this.#above.has(p)) break
      this.#above.add(p)
    }
  }

  /** After the call: where a written path leads (its own path was touched before the call). */
  async #record(path: string, follow: boolean, subtree: boolean): Promise<void> {
    if (!follow) return
    const normal = paths.normalize(path)
    // A write through a symlink changes the link's target: record where it leads too. A path the
    // index holds as a row other than a symlink has no symlink on it (the index lists real rows
    // only): it leads nowhere else, and needs no `realpath`.
    const id = this.#target.index.lookup(normal)
    if (id !== undefined && this.#target.table.get(id)?.type !== 'symlink') return
    try {
      this.#touch(await this.#target.realpath(path), subtree)
    } catch (error) {
      // Gone (rm, mv source) or a dangling link: the path itself is already recorded.
      if (!isFsError(error)) throw error
    }
  }

  /**
   * Whether an event at `path` belongs to the call: the path was touched, or lies below a folder
   * touched as a whole, or (a folder `mkdir -p` made) lies above a touched path. O(depth) per
   * event: a run writing n files has n events and n touched paths.
   */
  #related(path: string, type: FsEvent['type']): boolean {
    if (this.#touched.has(path)) return true
    for (let p = path; p !== '/'; ) {
      p = paths.dirname(p)
      if (this.#touched.get(p) === true) return true
    }
    return type === 'mkdir' && (path === '/' ? this.#touched.size > 0 : this.#above.has(path))
  }
}

/** The proxy's handler: a class, so a view costs no handler closure. */
class ViewHandler implements ProxyHandler<YjsFileSystem> {
  readonly #recording: Recording
  constructor(recording: Recording) {
    this.#recording = recording
  }
  get(_target: YjsFileSystem, prop: string | symbol): unknown {
    return this.#recording.get(prop)
  }
}
