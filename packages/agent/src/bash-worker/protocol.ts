/**
 * The messages between the exec backend (main thread) and a bash worker,
 * and how values cross: errors keep their errno fields (`code`, `syscall`,
 * `path`, `dest`) and message, stats and directory entries become plain
 * objects (structured clone drops prototypes and custom error fields).
 *
 * Invariant: the worker may ask only for the IFileSystem methods listed in
 * FS_METHODS; the host refuses any other name.
 */
import type { MessagePort } from 'node:worker_threads'
import type { BashOptions } from 'just-bash'

/** just-bash's execution limits (its own type is not exported by name). */
export type ExecutionLimits = NonNullable<BashOptions['executionLimits']>

/** IFileSystem methods a worker may call, async over the port. */
export const FS_METHODS = [
  'readFile',
  'readFileBuffer',
  'readFileBytes',
  'writeFile',
  'appendFile',
  'exists',
  'stat',
  'lstat',
  'mkdir',
  'readdir',
  'readdirWithFileTypes',
  'rm',
  'cp',
  'mv',
  'chmod',
  'symlink',
  'link',
  'readlink',
  'realpath',
  'utimes',
] as const

export type FsMethod = (typeof FS_METHODS)[number]

/**
 * The one host call that is not an IFileSystem method: `lstatMany(paths)`, the `lstat` of each
 * path in one message (each a stat or the error it threw), for fs-proxy.ts's stat prefetch.
 */
export const LSTAT_MANY = 'lstatMany'

/**
 * The other host call that is not an IFileSystem method: `readMany(paths, kind)`, each path's
 * `readFile` (UTF-8, `kind` 'text'), `readFileBuffer` (`kind` 'bytes') or `readFileBytes` (`kind`
 * 'latin1': just-bash's byte string, what `cat`, `wc`, `head`, `sort` read) in one message, in
 * order, up to READ_MANY_MAX_CHARS characters or bytes in all (the paths after the one that would
 * pass it are left out of the answer), for fs-proxy.ts's read-ahead.
 */
export const READ_MANY = 'readMany'

/** What `readMany` reads: texts (`readFile`, UTF-8), bytes (`readFileBuffer`) or byte strings (`readFileBytes`). */
export type ReadKind = 'text' | 'bytes' | 'latin1'

/** The host method `readMany` calls for each kind. */
export const READ_METHOD_OF = { text: 'readFile', bytes: 'readFileBuffer', latin1: 'readFileBytes' } as const

/** Most paths one `readMany` may ask for. */
export const READ_MANY_MAX = 256

/** Most characters (or bytes) one `readMany` answer holds: a file that would pass it is not read, unless first. */
export const READ_MANY_MAX_CHARS = 1 << 20

/** One path's answer in a `readMany` reply. */
export type ReadResult = { ok: true; value: string | Uint8Array } | { ok: false; error: WireError }

/** Most paths one `lstatMany` may ask for: the host refuses more (run.ts), the worker asks in steps of this many (fs-proxy.ts). */
export const LSTAT_MANY_MAX = 1024

/** One path's answer in a `lstatMany` reply. */
export type LstatResult = { ok: true; value: unknown } | { ok: false; error: WireError }

/** IFileSystem methods that change nothing: any other call of a run empties its stat prefetch. */
export const FS_READ_METHODS: ReadonlySet<string> = new Set([
  'readFile',
  'readFileBuffer',
  'readFileBytes',
  'exists',
  'stat',
  'lstat',
  'readdir',
  'readdirWithFileTypes',
  'readlink',
  'realpath',
])

/**
 * Methods whose answer also names the real path of what they changed (`real` in the
 * `fs-result`, the host's `realpath` after the call): when it is the path the worker asked for
 * (no symlink on the way), the worker updates what it knows of that folder instead of dropping
 * it all (fs-proxy.ts): a loop of `echo … > dir/fN`, or `tar -x`'s `mkdir -p` before each
 * file, then needs no message for its `exists` and `mkdir -p` calls; `touch dir/*` and
 * `chmod … dir/*` change one entry's metadata each and keep the folder's listing.
 */
export const FS_PATH_METHODS: ReadonlySet<string> = new Set([
  'writeFile',
  'appendFile',
  'mkdir',
  'chmod',
  'utimes',
])

/**
 * Listings whose answer names the folder's real path too (`real`, as for FS_PATH_METHODS): a
 * folder listed at its real path is known to be one with no symlink on the way, and the
 * worker may then write into it without waiting (`touch dir/*`, `chmod … dir/*`).
 */
export const FS_LISTING_METHODS: ReadonlySet<string> = new Set(['readdir', 'readdirWithFileTypes'])

/** FS_PATH_METHODS that change an entry's metadata only (mode, mtime): not its kind, size or name. */
export const FS_METADATA_METHODS: ReadonlySet<string> = new Set(['chmod', 'utimes'])

/**
 * Synchronous IFileSystem methods just-bash calls without using a result:
 * `mkdirSync`/`writeFileSync` while a shell starts, for the folders it sets up
 * outside the run's own system folders (`/tmp`, see RUN_LOCAL_FOLDERS). The
 * worker sends them without waiting; the host runs them in order, before the
 * calls sent after them.
 */
export const FS_VOID_METHODS = ['mkdirSync', 'writeFileSync'] as const

export type FsVoidMethod = (typeof FS_VOID_METHODS)[number]

/**
 * just-bash's system folders, kept in the worker for one run (worker.ts): never asked of the
 * host. (`/tmp`, the other folder of the local layer, is the workspace filesystem's.)
 */
export const RUN_LOCAL_FOLDERS = ['bin', 'usr', 'dev', 'proc'] as const

/**
 * The room left in the workspace: sent with the run, and again with the answer to each call that
 * may change something (any call but a read), taken after the call and the posted calls before it.
 */
export interface WriteRoom {
  /** Bytes the workspace may still grow by. */
  bytes: number
  /** Rows (files, folders, symlinks) it may still gain. */
  rows: number
}

/**
 * What a run may write without waiting for the host's answer (write-behind, fs-proxy.ts): the
 * workspace's limits and its room left (WriteRoom). The worker sends a `writeFile` or
 * `appendFile` as `posted` only when it knows the call succeeds: its folder is one the run
 * made or found (no symlink on the way), the name is new in a listed folder or a file the run
 * wrote, the name and path are within the limits, and the bytes and rows the run has posted so
 * far (each write counted whole) fit in the room left. Absent (a read-only workspace, another
 * filesystem): every call waits for its answer.
 */
export interface WriteAllowance extends WriteRoom {
  maxFileSize: number
  /** UTF-8 bytes. */
  maxNameLength: number
  /** UTF-8 bytes. */
  maxPathLength: number
  /** Components. */
  maxPathDepth: number
  /** Top folders with their own quota (core's local layer, `/tmp`): never written behind. */
  localRoots: string[]
}

/** An error as it crosses the thread boundary. */
export interface WireError {
  name: string
  message: string
  code?: string
  syscall?: string
  path?: string
  dest?: string
}

/** One script to run: sent with the run's own port (fs calls, abort, result) and sync channel. */
export interface RunMessage {
  type: 'run'
  script: string
  cwd: string
  env: Record<string, string>
  stdin?: string
  limits: ExecutionLimits
  /** Cut stdout and stderr to this many characters before sending them (capText). */
  maxOutputChars?: number
  /** The FS_METHODS and FS_VOID_METHODS the host filesystem has (optional ones may be missing). */
  methods: (FsMethod | FsVoidMethod)[]
  port: MessagePort
  /** Synchronous calls (getAllPaths): the worker waits on `flag` until the host answered on `syncPort`. */
  syncPort: MessagePort
  flag: Int32Array
  /** Writes the worker may send without waiting (absent: none). */
  writeAllowance?: WriteAllowance
}

/** One fs call of the script. */
export interface FsCall {
  id: number
  method: FsMethod | typeof LSTAT_MANY | typeof READ_MANY
  args: unknown[]
}

/** Worker → host on the run's port. */
export type WorkerToHost =
  | ({ type: 'fs' } & FsCall)
  /**
   * Calls the worker went on from without waiting (writes within its WriteAllowance), in order,
   * sent together (a message per call would wake this thread per call). The host runs posted
   * calls one after another, and any later call only after them; it answers only one that fails
   * anyway (a peer removed its folder meanwhile), and then stops the script and says so (run.ts).
   */
  | { type: 'fs-posted'; calls: FsCall[] }
  | { type: 'fs-void'; method: FsVoidMethod; args: unknown[] }
  | { type: 'done'; stdout: string; stderr: string; exitCode: number }
  | { type: 'failed'; error: WireError }

/** Host → worker on the run's port. */
export type HostToWorker =
  /**
   * `made`: a `mkdir` whose folder was not there before the call (so it is empty: fs-proxy.ts).
   * `room`: the room left after a call that may change something, in a run with write-behind.
   */
  | { type: 'fs-result'; id: number; ok: true; value: unknown; real?: string; made?: true; room?: WriteRoom }
  | { type: 'fs-result'; id: number; ok: false; error: WireError; room?: WriteRoom }
  | { type: 'abort' }

/** Host → worker on the sync port, after which the host sets `flag` and wakes the worker. */
export type SyncReply = { ok: true; value: unknown } | { ok: false; error: WireError }

/** The fields of an error worth keeping across threads. */
export function toWire(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) }
  const e = error as Error & Partial<Record<'code' | 'syscall' | 'path' | 'dest', unknown>>
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined)
  return {
    name: e.name,
    message: e.message,
    ...(text(e.code) !== undefined ? { code: text(e.code) } : {}),
    ...(text(e.syscall) !== undefined ? { syscall: text(e.syscall) } : {}),
    ...(text(e.path) !== undefined ? { path: text(e.path) } : {}),
    ...(text(e.dest) !== undefined ? { dest: text(e.dest) } : {}),
  }
}

type Plain = Record<string, unknown>

/** A method's result as plain data (stats and dirents may be class instances or have getters). */
export function toPlain(method: FsMethod, value: unknown): unknown {
  if ((method === 'stat' || method === 'lstat') && value && typeof value === 'object') {
    const s = value as Plain
    const out: Plain = {
      isFile: s.isFile,
      isDirectory: s.isDirectory,
      isSymbolicLink: s.isSymbolicLink,
      mode: s.mode,
      size: s.size,
      mtime: s.mtime,
    }
    for (const k of ['dev', 'ino', 'identity']) if (s[k] !== undefined) out[k] = s[k]
    return out
  }
  if (method === 'readdirWithFileTypes' && Array.isArray(value))
    return value.map((d: Plain) => ({
      name: d.name,
      isFile: d.isFile,
      isDirectory: d.isDirectory,
      isSymbolicLink: d.isSymbolicLink,
    }))
  return value
}
