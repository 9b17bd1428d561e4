/**
 * Running one just-bash script in a worker thread (pool.ts) against a
 * filesystem of this thread: the host side of fs-proxy.ts. Every fs call
 * of the script is one message, served here between other work, so the
 * event loop of this thread is never held by the script; only the fs
 * calls themselves run here.
 *
 * Timeouts: at `timeout` the script is asked to stop (just-bash's abort
 * signal, keeping what it printed); a script stuck in one long command
 * that does not stop within ABORT_GRACE_MS has its worker terminated.
 *
 * Invariant: when the returned promise settles, no fs call of the run is
 * still running here and the run's ports are closed.
 */
import { MessageChannel } from 'node:worker_threads'
import { type ErrnoCode, FsError } from '@yfs/core'
import type { CustomCommand, IFileSystem } from 'just-bash'
import { createWorkerPool, WORKER_HEAP_MB } from './pool.js'
import {
  type ExecutionLimits,
  FS_LISTING_METHODS,
  FS_METHODS,
  FS_PATH_METHODS,
  FS_READ_METHODS,
  FS_VOID_METHODS,
  type FsCall,
  type FsMethod,
  type FsVoidMethod,
  LSTAT_MANY,
  LSTAT_MANY_MAX,
  type LstatResult,
  READ_MANY,
  READ_MANY_MAX,
  READ_MANY_MAX_CHARS,
  READ_METHOD_OF,
  type ReadResult,
  type RunMessage,
  type SyncReply,
  toPlain,
  toWire,
  type WireError,
  type WorkerToHost,
  type WriteAllowance,
  type WriteRoom,
} from './protocol.js'

/** How long a script asked to stop may take before its worker is terminated. */
export const ABORT_GRACE_MS = 1000

export interface ShellJob {
  fs: IFileSystem
  /** Commands added to just-bash's (in process only: a worker cannot run this thread's functions). */
  customCommands?: CustomCommand[]
  script: string
  cwd: string
  env: Record<string, string>
  stdin?: string
  limits: ExecutionLimits
  timeout: number
  /** Stop the run when aborted, as at the time limit (the outcome says `interrupted`). */
  signal?: AbortSignal
  /** Cut stdout and stderr to this many characters in the worker (capText). */
  maxOutputChars?: number
  /**
   * Writes the worker may send without waiting for their answer (protocol.ts): the limits, and
   * the room left in the workspace now (asked at the start and after each call that may change
   * something). Absent: none.
   */
  writeBehind?: { limits: Omit<WriteAllowance, keyof WriteRoom>; room(): WriteRoom }
}

export interface ShellOutcome {
  stdout: string
  stderr: string
  exitCode: number
  timedOut: boolean
  /** Stopped by the job's signal. */
  interrupted?: boolean
}

const pool = createWorkerPool()

/** Keep bash workers warm while a long-lived caller needs them (pool.ts `keepWarm`); call the result when done. */
export function keepShellWorkersWarm(): () => void {
  return pool.keepWarm()
}

// An in-process run on this thread blocks these globals while its script runs (see fs-proxy.ts).
const { store: atomicsStore, notify: atomicsNotify } = Atomics

/** A worker's error as thrown here: an FsError again when it was one (errno code, path). */
function fromWire(wire: WireError): Error {
  if (wire.name === 'FsError' && wire.code && wire.syscall !== undefined && wire.path !== undefined) {
    const error = new FsError(wire.code as ErrnoCode, wire.syscall, wire.path, wire.dest)
    error.message = wire.message
    return error
  }
  const error = new Error(wire.message)
  error.name = wire.name
  return error
}

/** The real path of `path` (symlinks resolved), or `undefined` when it has none now. */
async function realPathOf(fs: IFileSystem, path: unknown): Promise<string | undefined> {
  if (typeof path !== 'string') return undefined
  try {
    return await fs.realpath(path)
  } catch {
    // Gone already (a concurrent change): the worker then drops what it knows.
    return undefined
  }
}

/** `lstat` of each path, in order, each a plain stat or the error it threw. */
async function lstatMany(fs: IFileSystem, given: unknown): Promise<LstatResult[]> {
  const paths = pathList(given, LSTAT_MANY, LSTAT_MANY_MAX)
  if (!(await inOneRealFolder(fs, paths))) return paths.map(() => NOT_AHEAD)
  const out: LstatResult[] = []
  for (const path of paths) {
    try {
      out.push({ ok: true, value: toPlain('lstat', await fs.lstat(path)) })
    } catch (error) {
      out.push({ ok: false, error: toWire(error) })
    }
  }
  return out
}

/** `given` as the paths of a `method` call from the worker: up to `max` strings, else an error. */
function pathList(given: unknown, method: string, max: number): string[] {
  if (!Array.isArray(given) || given.length > max || !given.every((p) => typeof p === 'string'))
    throw new Error(`bash worker: ${method} takes up to ${max} paths`)
  return given
}

/** The answer for a path not fetched ahead (the worker then asks for it on its own). */
const NOT_AHEAD = {
  ok: false as const,
  error: { name: 'Error', message: 'bash worker: not fetched ahead (a symlink on the way)' },
}

/**
 * Whether `paths` all lie in one folder with no symlink on the way. What the worker keeps of
 * them (stats, texts) is keyed by these paths and dropped when the run changes one: through a
 * linked folder, a write through the real path would not drop the linked path's copy.
 */
async function inOneRealFolder(fs: IFileSystem, paths: string[]): Promise<boolean> {
  if (paths.length === 0) return true
  const dirOf = (path: string) => path.slice(0, Math.max(1, path.lastIndexOf('/')))
  const dir = dirOf(paths[0]!)
  if (!paths.every((p) => p.startsWith('/') && dirOf(p) === dir)) return false
  try {
    return (await fs.realpath(dir)) === dir
  } catch {
    return false
  }
}

/**
 * The outcome of a script some of whose posted writes failed: each said on stderr as bash says a
 * failed redirection, then that the script was stopped there, and exit status 1 (the time limit's
 * 124 and an interruption's 130 stay).
 */
function withFailedWrites(failed: readonly WireError[], outcome: ShellOutcome): ShellOutcome {
  if (failed.length === 0) return outcome
  // A file's `> f` and then its write fail alike: each message once.
  const messages = [...new Set(failed.map((e) => e.message))]
  const said = messages.slice(0, 10).map((m) => `bash: ${m}\n`)
  if (messages.length > 10) said.push(`bash: ${messages.length - 10} more writes failed\n`)
  return {
    ...outcome,
    stderr: `${outcome.stderr}${said.join('')}bash: the script was stopped: a write it had gone on from failed\n`,
    exitCode: outcome.interrupted ? 130 : outcome.timedOut ? 124 : 1,
  }
}

/**
 * Each path's `readFile` (UTF-8), `readFileBuffer` or `readFileBytes` (`kind`), in order, until the answers hold
 * READ_MANY_MAX_CHARS: a file whose size would pass it is not read unless it is the first (the
 * one the script asked for).
 */
async function readMany(fs: IFileSystem, given: unknown, kind: unknown): Promise<ReadResult[]> {
  const paths = pathList(given, READ_MANY, READ_MANY_MAX)
  if (kind !== 'text' && kind !== 'bytes' && kind !== 'latin1')
    throw new Error('bash worker: readMany reads text, bytes or latin1')
  const method = READ_METHOD_OF[kind]
  const read = (
    fs as unknown as Record<string, ((path: string) => Promise<string | Uint8Array>) | undefined>
  )[method]
  if (!read) throw new Error(`bash worker: readMany of ${kind}: the filesystem has no ${method}`)
  if (!(await inOneRealFolder(fs, paths))) return []
  const out: ReadResult[] = []
  let held = 0
  for (const path of paths) {
    try {
      const entry = await fs.lstat(path)
      // A link's text is its target's: a write through the target's path would not drop it.
      if (entry.isSymbolicLink) {
        out.push(NOT_AHEAD)
        continue
      }
      if (out.length > 0 && held + entry.size > READ_MANY_MAX_CHARS) break
      const value = await read.call(fs, path)
      out.push({ ok: true, value })
      held += typeof value === 'string' ? value.length : value.byteLength
    } catch (error) {
      out.push({ ok: false, error: toWire(error) })
    }
  }
  return out
}

/** Run `job.script` in a pooled worker; rejects only with the error the shell itself threw. */
export async function runInWorker(job: ShellJob): Promise<ShellOutcome> {
  const worker = await pool.acquire()
  const has = (m: string) => typeof (job.fs as unknown as Record<string, unknown>)[m] === 'function'
  const methods = FS_METHODS.filter(has)
  const voidMethods = FS_VOID_METHODS.filter(has)
  const channel = new MessageChannel()
  const sync = new MessageChannel()
  const flag = new Int32Array(new SharedArrayBuffer(4))
  const inflight = new Set<Promise<void>>()
  const fsRecord = job.fs as unknown as Record<FsMethod | FsVoidMethod, (...args: unknown[]) => unknown>

  let healthy = true
  let timedOut = false
  let interrupted = false
  // Posted calls (write-behind) run one after another on `posted`; a later call waits for them.
  let posted: Promise<void> = Promise.resolve()
  let postedWaiting = 0
  // What the posted writes that failed said (the script is stopped at the first).
  const failedWrites: WireError[] = []
  let settle!: (outcome: { ok: true; value: ShellOutcome } | { ok: false; error: Error }) => void
  const ended = new Promise<Parameters<typeof settle>[0]>((resolve) => {
    settle = resolve
  })

  /** The room left, after a call that may have changed something (write-behind's runs only). */
  const roomAfter = (method: string): { room?: WriteRoom } =>
    job.writeBehind && !FS_READ_METHODS.has(method) && method !== LSTAT_MANY && method !== READ_MANY
      ? { room: job.writeBehind.room() }
      : {}
  /** `then` once every posted call has run (at once when none waits). */
  const afterPosted = (then: () => void) => {
    if (postedWaiting === 0) then()
    else void posted.then(then)
  }
  channel.port1.on('message', (message: WorkerToHost) => {
    // The script has ended (stopped or not): its thread is not ended after the grace period while
    // the writes it went on from are still being run here (a bounded queue: fs-proxy.ts).
    if (message.type === 'done' || message.type === 'failed') clearTimeout(kill)
    // The script's end waits for the writes it went on from: its outcome says whether they failed.
    if (message.type === 'done')
      return afterPosted(() =>
        settle({
          ok: true,
          value: withFailedWrites(failedWrites, {
            stdout: message.stdout,
            stderr: message.stderr,
            exitCode: message.exitCode,
            timedOut,
            ...(interrupted ? { interrupted } : {}),
          }),
        }),
      )
    if (message.type === 'failed')
      return afterPosted(() => settle({ ok: false, error: fromWire(message.error) }))
    if (message.type === 'fs-void') {
      try {
        if (voidMethods.includes(message.method)) fsRecord[message.method](...message.args)
      } catch {
        // Setting up /bin, /dev, /proc of the local layer: nothing for a script to see fail.
      }
      return
    }
    if (message.type === 'fs-posted') {
      for (const call of message.calls) serveCall(call, true)
      return
    }
    serveCall(message, false)
  })
  /** Run one fs call of the script; a posted one after the posted before it, any other after all of them. */
  function serveCall(call: FsCall, isPosted: boolean): void {
    const { id, method, args } = call
    const serve = async () => {
      try {
        if (method === LSTAT_MANY || method === READ_MANY) {
          const value =
            method === LSTAT_MANY
              ? await lstatMany(job.fs, args[0])
              : await readMany(job.fs, args[0], args[1])
          channel.port1.postMessage({ type: 'fs-result', id, ok: true, value })
          return
        }
        if (!methods.includes(method)) throw new Error(`bash worker: no fs method ${String(method)}`)
        // A folder `mkdir` makes is empty: the worker then knows every name in it is new.
        const made = method === 'mkdir' && typeof args[0] === 'string' && !(await job.fs.exists(args[0]))
        const value = toPlain(method, await fsRecord[method](...args))
        // A posted write's path was known to be real: the worker does not wait to be told.
        if (isPosted) return // The worker went on: only a failure is answered.
        const real =
          FS_PATH_METHODS.has(method) || FS_LISTING_METHODS.has(method)
            ? await realPathOf(job.fs, args[0])
            : undefined
        channel.port1.postMessage({
          type: 'fs-result',
          id,
          ok: true,
          value,
          ...(real === undefined ? {} : { real }),
          ...(made ? { made } : {}),
          ...roomAfter(method),
        })
      } catch (error) {
        const wire = toWire(error)
        // The script went on from this write: it is stopped, and its outcome says why.
        if (isPosted && failedWrites.push(wire) === 1) stop()
        channel.port1.postMessage({ type: 'fs-result', id, ok: false, error: wire, ...roomAfter(method) })
      }
    }
    let served: Promise<void>
    if (isPosted) {
      postedWaiting++
      served = posted.then(serve).finally(() => {
        postedWaiting--
      })
      posted = served
    } else served = postedWaiting === 0 ? serve() : posted.then(serve)
    inflight.add(served)
    void served.finally(() => inflight.delete(served))
  }
  sync.port1.on('message', () =>
    // `ls` with a glob sees the writes the script went on from.
    afterPosted(() => {
      let reply: SyncReply
      try {
        reply = { ok: true, value: job.fs.getAllPaths() }
      } catch (error) {
        reply = { ok: false, error: toWire(error) }
      }
      sync.port1.postMessage(reply)
      atomicsStore(flag, 0, 1)
      atomicsNotify(flag, 0)
    }),
  )
  const onError = (error: Error) => {
    healthy = false
    const oom = (error as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY'
    settle({
      ok: true,
      value: {
        stdout: '',
        stderr: oom
          ? `bash: out of memory: the script used more than ${WORKER_HEAP_MB} MB and was stopped\n`
          : `bash: the shell stopped: ${error.message}\n`,
        exitCode: oom ? 137 : 1,
        timedOut,
      },
    })
  }
  const onExit = () => onError(new Error('the shell worker exited'))
  worker.on('error', onError)
  worker.on('exit', onExit)

  let kill: NodeJS.Timeout | undefined
  // Ask the script to stop; terminate its worker if it does not within the grace period.
  function stop() {
    if (kill) return
    channel.port1.postMessage({ type: 'abort' })
    kill = setTimeout(() => {
      healthy = false
      settle({
        ok: true,
        value: withFailedWrites(failedWrites, {
          stdout: '',
          stderr: '',
          // A failed posted write makes it 1 (withFailedWrites).
          exitCode: interrupted ? 130 : 124,
          timedOut,
          ...(interrupted ? { interrupted } : {}),
        }),
      })
    }, ABORT_GRACE_MS)
  }
  const timer = setTimeout(() => {
    timedOut = true
    stop()
  }, job.timeout)
  const interrupt = () => {
    if (!timedOut) interrupted = true
    stop()
  }
  job.signal?.addEventListener('abort', interrupt, { once: true })

  const run: RunMessage = {
    type: 'run',
    script: job.script,
    cwd: job.cwd,
    env: job.env,
    ...(job.stdin ? { stdin: job.stdin } : {}),
    limits: job.limits,
    ...(job.maxOutputChars === undefined ? {} : { maxOutputChars: job.maxOutputChars }),
    methods: [...methods, ...voidMethods],
    port: channel.port2,
    syncPort: sync.port2,
    flag,
    ...(job.writeBehind ? { writeAllowance: { ...job.writeBehind.limits, ...job.writeBehind.room() } } : {}),
  }
  worker.postMessage(run, [channel.port2, sync.port2])
  if (job.signal?.aborted) interrupt()

  const outcome = await ended
  clearTimeout(timer)
  clearTimeout(kill)
  job.signal?.removeEventListener('abort', interrupt)
  worker.off('error', onError)
  worker.off('exit', onExit)
  channel.port1.close()
  sync.port1.close()
  // A terminated worker may leave calls running here: they finish before the run's scope closes.
  await Promise.all([...inflight])
  pool.release(worker, healthy)
  if (!outcome.ok) throw outcome.error
  return outcome.value
}
