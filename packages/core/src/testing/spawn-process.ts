/**
 * Run a child process in a test: the one spawner of yfs's process tests (the CLI, `node --import
 * tsx` scripts, `sh -c`). Its stdout and stderr are kept as text; a wait for a line or for the exit
 * is bounded, and its error says what the process printed; `stop` and `stopSpawned` end it (its
 * whole process group with `group`) so a failed test leaves nothing running. Node built-ins only.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'

export interface SpawnProcessOptions extends Omit<SpawnOptions, 'detached'> {
  /**
   * Run it in a process group of its own and signal the whole group (`sh -c` and what it started
   * end together; a signal to `sh` alone would leave its child running).
   */
  group?: boolean
  /** Called with each complete line of stdout, as it arrives (a JSON log, an event stream). */
  onStdoutLine?: (line: string) => void
}

export interface SpawnedProcess {
  child: ChildProcess
  /** What it printed on stdout so far. */
  stdout(): string
  /** What it printed on stderr so far. */
  stderr(): string
  /** Both streams, in the order the chunks arrived. */
  output(): string
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>
  /**
   * Resolve with the check's first truthy value, checked now and on every chunk it prints; reject
   * naming `what` and its output if it exits first or `timeoutMs` passes (it is killed then).
   * A string or RegExp is looked for in `output()`.
   */
  waitForOutput<T>(check: (p: SpawnedProcess) => T, what: string, timeoutMs: number): Promise<Truthy<T>>
  waitForOutput(check: string | RegExp, what: string, timeoutMs: number): Promise<true>
  /** Resolve with the exit code; after `timeoutMs` kill it and reject naming `what` and its output. */
  waitForExit(timeoutMs: number, what?: string): Promise<number | null>
  /** Send `signal` (to its group with `group`); no-op once it exited. */
  kill(signal?: NodeJS.Signals): void
  /** Send `signal` unless it already exited, and resolve with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** What a check's truthy value can be. */
type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>

const running = new Set<SpawnedProcess>()

/** What a process printed, for an error message. */
function printed(p: SpawnedProcess): string {
  return `\n--- stdout ---\n${p.stdout()}\n--- stderr ---\n${p.stderr()}`
}

/** Spawn `command args` with stdout and stderr piped and kept (stdin piped unless `stdio` says otherwise). */
export function spawnProcess(
  command: string,
  args: string[],
  options: SpawnProcessOptions = {},
): SpawnedProcess {
  const { group = false, onStdoutLine, ...spawnOptions } = options
  const child = spawn(command, args, {
    stdio: ['pipe', 'pipe', 'pipe'],
    ...spawnOptions,
    detached: group,
  })
  let stdout = ''
  let stderr = ''
  let output = ''
  const listeners = new Set<() => void>()
  const changed = () => {
    for (const listener of [...listeners]) listener()
  }
  let partial = ''
  child.stdout?.on('data', (chunk) => {
    const text = String(chunk)
    stdout += text
    output += text
    if (onStdoutLine) {
      partial += text
      for (let nl = partial.indexOf('\n'); nl !== -1; nl = partial.indexOf('\n')) {
        const line = partial.slice(0, nl)
        partial = partial.slice(nl + 1)
        onStdoutLine(line)
      }
    }
    changed()
  })
  child.stderr?.on('data', (chunk) => {
    const text = String(chunk)
    stderr += text
    output += text
    changed()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const done = () => child.exitCode !== null || child.signalCode !== null

  const kill = (signal: NodeJS.Signals = 'SIGTERM') => {
    if (done()) return
    try {
      if (group && child.pid) process.kill(-child.pid, signal)
      else child.kill(signal)
    } catch {
      // Gone between the check and the signal.
    }
  }

  const p: SpawnedProcess = {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    output: () => output,
    exited,
    waitForOutput<T>(
      check: string | RegExp | ((p: SpawnedProcess) => T),
      what: string,
      timeoutMs: number,
    ): Promise<Truthy<T> & true> {
      const test =
        typeof check === 'function'
          ? () => check(p)
          : typeof check === 'string'
            ? () => output.includes(check)
            : () => check.test(output)
      return new Promise<Truthy<T> & true>((resolve, reject) => {
        let timer: ReturnType<typeof setTimeout> | undefined
        const finish = (error?: Error, value?: Truthy<T> & true) => {
          clearTimeout(timer)
          listeners.delete(listener)
          if (error) reject(error)
          else resolve(value!)
        }
        const listener = () => {
          try {
            const value = test()
            if (value) finish(undefined, value as Truthy<T> & true)
          } catch (error) {
            finish(error as Error)
          }
        }
        listeners.add(listener)
        listener()
        if (!listeners.has(listener)) return
        timer = setTimeout(() => {
          kill('SIGKILL')
          finish(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${printed(p)}`))
        }, timeoutMs)
        void exited.then((code) => {
          // A last chunk may be read after the exit event: look once more before calling it missed.
          setImmediate(() => {
            listener()
            if (listeners.has(listener)) finish(new Error(`exited with ${code} before ${what}${printed(p)}`))
          })
        })
      })
    },
    async waitForExit(timeoutMs, what = 'the process to exit') {
      let timer: ReturnType<typeof setTimeout> | undefined
      const timedOut = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          kill('SIGKILL')
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}${printed(p)}`))
        }, timeoutMs)
      })
      try {
        return await Promise.race([exited, timedOut])
      } finally {
        clearTimeout(timer)
      }
    },
    kill,
    async stop(signal = 'SIGTERM') {
      if (done()) return child.exitCode
      kill(signal)
      return exited
    },
  }
  running.add(p)
  void exited.then(() => running.delete(p))
  return p
}

/** Teardown: kill every process `spawnProcess` started that still runs (SIGKILL by default), and wait for each. */
export async function stopSpawned(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(signal)))
}

/**
 * CPU time (user + system) process `pid` has used so far, in ms, from Linux's `/proc/<pid>/stat`
 * (its 14th and 15th fields, in clock ticks of 10 ms). For benchmarks that report a child's CPU.
 */
export function processCpuMs(pid: number): number {
  // The command name (2nd field, in parentheses) may hold spaces: fields are counted after it.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10
}
