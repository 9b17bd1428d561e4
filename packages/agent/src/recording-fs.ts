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

const isUnder = (path: string, dir: string) => dir === '/' || path.startsWith(`${dir}/`)

/** Runs before a mutating call with the paths it will change (as given, not normalised). */
export type BeforeChange = (paths: string[]) => Promise<void>

/** Wrap `fs` so the change events of the calls made through it can be told apart. */
export function createRecordingFs(fs: YjsFileSystem, beforeChange?: BeforeChange): RecordingFs {
  // Path → whether events below it count too (a removed, copied, moved or restored folder).
  const touched = new Map<string, boolean>()
  const touch = (path: string, subtree: boolean) => {
    if (!touched.get(path)) touched.set(path, subtree)
  }
  const record = async (path: string, follow: boolean, subtree: boolean) => {
    touch(paths.normalize(path), subtree)
    if (!follow) return
    // A write through a symlink changes the link's target: record where it leads too.
    try {
      touch(await fs.realpath(path), subtree)
    } catch (error) {
      // Gone (rm, mv source) or a dangling link: the path itself is already recorded.
      if (!isFsError(error)) throw error
    }
  }
  const trashView: YjsFileSystem['trash'] = {
    list: () => fs.trash.list(),
    empty: () => fs.trash.empty(),
    restore: (id) => {
      const path = fs.trash.restore(id)
      touch(path, true)
      return path
    },
  }
  // Methods are bound to the real instance: YjsFileSystem keeps its state in private fields.
  const view = new Proxy(fs, {
    get(target, prop, _receiver) {
      const value: unknown = Reflect.get(target, prop, target)
      // A restore from the trash changes the path it returns.
      if (prop === 'trash') return trashView
      if (typeof value !== 'function') return value
      const argIndexes = typeof prop === 'string' ? MUTATIONS[prop] : undefined
      const batch = typeof prop === 'string' ? BATCHES[prop] : undefined
      if (!argIndexes && !batch) return value.bind(target)
      return async (...args: unknown[]) => {
        const changed = batch ? batch(args) : strings(argIndexes!.map((i) => args[i]))
        const subtree = typeof prop !== 'string' || !SINGLE_PATH.has(prop)
        for (const p of changed) touch(paths.normalize(p), subtree)
        if (beforeChange) await beforeChange(changed)
        try {
          return await value.apply(target, args)
        } finally {
          const follow = prop !== 'rm' && prop !== 'symlink'
          for (const p of changed) await record(p, follow && !(prop === 'mv' && p === changed[0]), subtree)
        }
      }
    },
  })
  const related = (path: string, type: FsEvent['type']) => {
    for (const [t, subtree] of touched) {
      if (path === t || (subtree && isUnder(path, t))) return true
      if (type === 'mkdir' && isUnder(t, path)) return true
    }
    return false
  }
  return {
    fs: view,
    owns: (e) => related(e.path, e.type) || (e.oldPath !== undefined && related(e.oldPath, e.type)),
  }
}
