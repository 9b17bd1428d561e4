/**
 * Exec backends (seed 001): where a command line runs against the
 * workspace. The first backend is just-bash on the YjsFileSystem; a VM
 * backend can implement the same interface later.
 *
 * `filesChanged` is real: it is the set of workspace paths with change
 * events (write, delete, rename, mkdir, restore) caused by the run. Events
 * of other writers during the run (another tool call, another session on a
 * shared store, a person) are left out (see recording-fs.ts).
 *
 * The shell runs in a worker thread (bash-worker/): a script that computes
 * for long, or one slow command, does not hold this thread's event loop
 * (other clients of a server keep being served); the workspace stays here
 * and the worker reaches it by messages, one per fs call. `inProcess: true`
 * runs the shell on this thread instead (for comparison, and where worker
 * threads are not available).
 *
 * Each run starts in `cwd` (default `/`) with `HOME=/` and `TMPDIR=/tmp`:
 * both exist in every workspace (`/tmp` is the instance-local scratch folder,
 * see core's local-layer.ts), so `cd`, `~/x` and `$TMPDIR/x` never point at
 * a missing folder.
 */
import {
  type ConflictRegion,
  type FsEvent,
  isFsError,
  openCommandScope,
  SYSTEM_ROOTS,
  type YjsFileSystem,
} from '@yfs/core'
import { Bash } from 'just-bash'
import { runInWorker, type ShellJob, type ShellOutcome } from './bash-worker/run.js'
import { capText } from './cap-text.js'
import { type BeforeChange, createRecordingFs } from './recording-fs.js'
import { createIndexedGrep } from './search/indexed-grep.js'

export interface ExecOptions {
  cwd?: string
  env?: Record<string, string>
  /** Wall-clock limit in ms (default 30 s). */
  timeout?: number
  stdin?: string
  /**
   * Cut stdout and stderr each to this many characters (with capText's note)
   * before they leave the shell's thread: a script printing 64 MiB does not
   * make the main thread copy 64 MiB only for a tool to show 15,000 characters.
   */
  maxOutputChars?: number
  /** Stop the run when aborted (as at the time limit, but `interrupted`, exit code 130). */
  signal?: AbortSignal
  /** Runs before each mutating fs call of the run, with the paths it changes (the activity recorder). */
  beforeChange?: BeforeChange
}

export interface ExecResult {
  stdout: string
  stderr: string
  exitCode: number
  filesChanged: string[]
  /** True when the run hit the time limit. */
  timedOut?: boolean
  /** True when the run was stopped by its `signal` (exit code 130). */
  interrupted?: boolean
  /** Whole-file writes of the run that merged changes made since the file was last read (stale writes). */
  merges: ExecMerge[]
  /** The change events the run caused, in order (others' events left out); the activity log uses them. */
  events?: FsEvent[]
}

/** A stale write of a run: merged with concurrent changes; `conflict` when part of them was overwritten. */
export interface ExecMerge {
  path: string
  conflict: boolean
  conflicts: ConflictRegion[]
  /** History version holding the content the write replaced (with `conflict`). */
  versionId?: string
}

export interface ExecBackend {
  run(command: string, args: string[], options?: ExecOptions): Promise<ExecResult>
  dispose(): Promise<void>
}

export interface JustBashLimits {
  maxCommandCount: number
  maxLoopIterations: number
  maxCallDepth: number
}

export const DEFAULT_EXEC_LIMITS: JustBashLimits = {
  maxCommandCount: 10_000,
  maxLoopIterations: 10_000,
  maxCallDepth: 100,
}

/**
 * just-bash lets a failed redirection write escape `exec` (`echo x > /missing/f`:
 * InMemoryFs creates the folder, so it never fails there). Report it the way bash
 * does, `bash: /missing/f: No such file or directory` with exit 1, instead of
 * failing the whole call. What the script printed before is lost with the throw.
 */
function shellErrorResult(error: unknown): { stdout: string; stderr: string; exitCode: number } {
  if (!isFsError(error)) throw error
  const reason = /^E[A-Z]+: ([^,]*)/.exec(error.message)?.[1] ?? error.code
  const said = reason.charAt(0).toUpperCase() + reason.slice(1)
  return { stdout: '', stderr: `bash: ${error.path}: ${said}\n`, exitCode: 1 }
}

/** just-bash on this thread: the script holds the event loop between its awaits. */
async function runInProcess(job: ShellJob): Promise<ShellOutcome> {
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, job.timeout)
  const interrupt = () => controller.abort()
  job.signal?.addEventListener('abort', interrupt, { once: true })
  if (job.signal?.aborted) controller.abort()
  try {
    const bash = new Bash({
      fs: job.fs,
      cwd: job.cwd,
      env: job.env,
      executionLimits: job.limits,
      ...(job.customCommands ? { customCommands: job.customCommands } : {}),
    })
    const r = await bash.exec(job.script, {
      signal: controller.signal,
      ...(job.stdin ? { stdin: job.stdin } : {}),
    })
    const cap = (text: string) =>
      job.maxOutputChars === undefined ? text : capText(text, job.maxOutputChars)
    return {
      stdout: cap(r.stdout),
      stderr: cap(r.stderr),
      exitCode: r.exitCode,
      timedOut,
      interrupted: controller.signal.aborted && !timedOut,
    }
  } finally {
    clearTimeout(timer)
    job.signal?.removeEventListener('abort', interrupt)
  }
}

/**
 * What a run in the worker may write without waiting (bash-worker/protocol.ts): the limits and
 * the room left now; none on a read-only workspace. Writes of other parties during the run may
 * use the same room: a write that then fails stops the script and says so (bash-worker/run.ts).
 */
function writeBehindOf(fs: YjsFileSystem): ShellJob['writeBehind'] {
  if (fs.readOnly) return undefined
  const { limits, index } = fs
  return {
    limits: {
      maxFileSize: limits.maxFileSize,
      // Already at most MAX_NAME_BYTES: the filesystem caps it.
      maxNameLength: limits.maxNameLength,
      maxPathLength: limits.maxPathLength,
      maxPathDepth: limits.maxPathDepth,
      localRoots: [...SYSTEM_ROOTS],
    },
    room: () => ({
      bytes: Math.max(0, limits.maxTotalSize - index.totalBytes),
      rows: Math.max(0, limits.maxNodeCount - index.nodeCount),
    }),
  }
}

export interface JustBashBackendOptions {
  /** Run the shell on this thread instead of a worker thread (default false). */
  inProcess?: boolean
  /** In process: `grep -r` through the search index (search/indexed-grep.ts). Default true. */
  indexedGrep?: boolean
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`)

/**
 * just-bash on a YjsFileSystem: each run is a fresh shell (no state leaks between tool calls),
 * in a worker thread by default (bash-worker/). In process (`inProcess`), `grep -r` uses the
 * filesystem's search index unless `options.indexedGrep` is false; the worker runs just-bash's own
 * grep (the index lives on this thread).
 */
export function createJustBashBackend(
  fs: YjsFileSystem,
  limits: Partial<JustBashLimits> = {},
  { inProcess = false, indexedGrep = true }: JustBashBackendOptions = {},
): ExecBackend {
  const executionLimits = { ...DEFAULT_EXEC_LIMITS, ...limits }
  const runShell = inProcess ? runInProcess : runInWorker
  const grep = inProcess && indexedGrep ? createIndexedGrep(fs) : undefined
  return {
    async run(command, args, options = {}) {
      const script = [command, ...args.map(quote)].join(' ')
      const recording = createRecordingFs(fs, options.beforeChange)
      // `> f` truncate-then-write is one write against what was last read (see openCommandScope).
      const scope = openCommandScope(recording.fs)
      const events: FsEvent[] = []
      const off = fs.watch((e) => {
        if (e.origin === 'local') events.push(e)
      })
      const timeout = options.timeout ?? 30_000
      try {
        const result = await runShell({
          fs: grep ? grep.view(scope.fs) : scope.fs,
          ...(grep ? { customCommands: [grep.command] } : {}),
          script,
          cwd: options.cwd ?? '/',
          // Folders that exist in every workspace: `cd`, `~` and mktemp-style `$TMPDIR/x` work.
          env: { HOME: '/', TMPDIR: '/tmp', ...options.env },
          ...(options.stdin ? { stdin: options.stdin } : {}),
          limits: executionLimits,
          timeout,
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.maxOutputChars === undefined ? {} : { maxOutputChars: options.maxOutputChars }),
          ...(inProcess ? {} : { writeBehind: writeBehindOf(fs) }),
        }).catch((error: unknown): ShellOutcome => ({ ...shellErrorResult(error), timedOut: false }))
        await scope.close()
        const timedOut = result.timedOut
        const interrupted = result.interrupted === true
        const changed = new Set<string>()
        const merges: ExecMerge[] = []
        const owned = events.filter((e) => recording.owns(e))
        for (const e of owned) {
          changed.add(e.path)
          if (e.oldPath) changed.add(e.oldPath)
          if (e.type === 'merge' || e.type === 'conflict')
            merges.push({
              path: e.path,
              conflict: e.type === 'conflict',
              conflicts: e.conflicts ?? [],
              ...(e.versionId ? { versionId: e.versionId } : {}),
            })
        }
        return {
          stdout: result.stdout,
          stderr: timedOut ? `${result.stderr}bash: timed out after ${timeout} ms\n` : result.stderr,
          exitCode: interrupted ? 130 : timedOut && result.exitCode === 0 ? 124 : result.exitCode,
          filesChanged: [...changed].sort(),
          timedOut,
          ...(interrupted ? { interrupted } : {}),
          merges,
          events: owned,
        }
      } finally {
        // Held truncations of a failed run still apply (idempotent after the close above).
        await scope.close()
        off()
      }
    },
    async dispose() {},
  }
}
