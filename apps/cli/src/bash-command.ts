/**
 * `yfs bash [script]`: the agents' `bash` tool from a terminal, on a server
 * workspace or a data folder. With a script, run it once and exit with its
 * exit code. Without one, a prompt: each line runs as one tool call (a fresh
 * shell, as for agents) in the current folder, `cd` changes that folder,
 * `exit` or Ctrl+D leaves, Ctrl+C at the prompt clears the line, Ctrl+C (or
 * SIGINT) while a line runs stops it (its status is 130, as in a shell) and
 * the prompt returns; lines are kept in the prompt's history (up/down). Each run is in the activity log as
 * `cli:<user>`, and is a stale-write-safe command like an agent's.
 */
import { createInterface, type Interface } from 'node:readline'
import type { ToolRegistry } from '@yfs/agent'
import type { YjsFileSystem } from '@yfs/core'
import { Command, InvalidArgumentError, Option } from 'commander'
import { openWorkspaceOrExit, terminalTools, workspaceOptions } from './workspace-flags.js'

interface BashOutcome {
  stdout: string
  stderr: string
  exit_code: number
}

// A terminal reads the whole output; the agents' 30,000-character cap is for models.
const CLI_MAX_OUTPUT_CHARS = 50_000_000

function milliseconds(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 1 || n > 120_000) throw new InvalidArgumentError('expected 1–120000 (ms)')
  return n
}

async function runLine(
  tools: ToolRegistry,
  script: string,
  cwd: string,
  timeout: number,
  signal?: AbortSignal,
): Promise<BashOutcome> {
  const r = await tools.execute('bash', { script, cwd, timeout_ms: timeout }, signal ? { signal } : {})
  if (r.isError) return { stdout: '', stderr: `${r.content[0]?.text ?? 'failed'}\n`, exit_code: 2 }
  return r.structuredContent as unknown as BashOutcome
}

/** `cd DIR` (or `cd`): the new folder, or an error message. */
async function changeFolder(fs: YjsFileSystem, cwd: string, arg: string): Promise<string | Error> {
  const target = fs.resolvePath(cwd, arg.trim() === '' ? '/' : arg.trim().replace(/^(['"])(.*)\1$/, '$2'))
  try {
    if (!(await fs.stat(target)).isDirectory) return new Error(`cd: ${target}: Not a directory`)
    return target
  } catch {
    return new Error(`cd: ${target}: No such file or directory`)
  }
}

/** The abort controllers of the lines readline has read and the prompt not yet finished. */
class LineInterrupts {
  private readonly queue: AbortController[] = []
  constructor(rl: Interface) {
    // Registered before the prompt's `for await`, so it runs first for every line.
    rl.on('line', () => this.queue.push(new AbortController()))
  }
  /** The signal of the line the prompt takes now. */
  next(): AbortSignal {
    if (this.queue.length === 0) this.queue.push(new AbortController())
    return this.queue[0]!.signal
  }
  /** The prompt finished its current line. */
  done(): void {
    this.queue.shift()
  }
  /** Abort the current line; `false` when no line is read and unfinished (an idle prompt). */
  interrupt(): boolean {
    const current = this.queue[0]
    if (!current || current.signal.aborted) return current !== undefined
    current.abort()
    return true
  }
}

async function prompt(
  fs: YjsFileSystem,
  tools: ToolRegistry,
  start: string,
  timeout: number,
): Promise<number> {
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: process.stdin.isTTY })
  let cwd = start
  let last = 0
  const ask = () => {
    rl.setPrompt(`yfs:${cwd}$ `)
    rl.prompt()
  }
  // One controller per line read, in order, from the moment readline reads it: a Ctrl+C that
  // comes right after a line's Enter stops that line, even before it has started.
  const lines = new LineInterrupts(rl)
  const interrupt = () => lines.interrupt()
  rl.on('SIGINT', () => {
    if (interrupt()) return
    // Clear the line, as a shell does; the next Ctrl+C on an empty line says how to leave.
    if (rl.line === '') process.stdout.write('\n(exit or Ctrl+D to leave)\n')
    else process.stdout.write('^C\n')
    rl.write(null, { ctrl: true, name: 'u' })
    ask()
  })
  // SIGINT from outside (kill -INT; stdin not a terminal): stop the running line; when idle,
  // end as the signal always did.
  const onSignal = () => {
    if (interrupt()) return
    process.exit(130)
  }
  process.on('SIGINT', onSignal)
  ask()
  for await (const line of rl) {
    const signal = lines.next()
    const text = line.trim()
    if (text === 'exit' || text.startsWith('exit ')) {
      last = Number(text.slice(5)) || last
      break
    }
    if (text !== '') {
      const cd = /^cd(?:\s+(.*))?$/.exec(text)
      if (cd) {
        const next = await changeFolder(fs, cwd, cd[1] ?? '')
        if (next instanceof Error) {
          process.stderr.write(`${next.message}\n`)
          last = 1
        } else {
          cwd = next
          last = 0
        }
      } else {
        const r = await runLine(tools, text, cwd, timeout, signal)
        process.stdout.write(r.stdout)
        process.stderr.write(r.stderr)
        last = r.exit_code
        if (signal.aborted) process.stdout.write('^C\n')
      }
    }
    lines.done()
    ask()
  }
  process.off('SIGINT', onSignal)
  rl.close()
  if (process.stdin.isTTY) process.stdout.write('\n')
  return last
}

export function createBashCommand(): Command {
  return workspaceOptions(
    new Command('bash')
      .description(
        "run a bash script (just-bash) on a workspace, or a prompt without one: the agents' bash tool",
      )
      .argument('[script]', 'the script to run once (none: an interactive prompt)'),
  )
    .addOption(new Option('--cwd <dir>', 'folder to start in').default('/'))
    .addOption(
      new Option('--timeout <ms>', 'wall-clock limit of each run').default(30_000).argParser(milliseconds),
    )
    .addHelpText(
      'after',
      `
Exit code: the script's (one-shot) or the last line's (prompt); 2 when the workspace cannot be
opened. At the prompt Ctrl+C stops a running line (its status is 130) and clears an idle one. Scripts run in a sandbox (just-bash): no network, no real processes.

Examples:
  yfs bash --data ./.yfs --workspace demo 'grep -rn TODO /'
  yfs bash --server ws://127.0.0.1:4321 --workspace team --token $T
  echo 'ls -l /' | yfs bash --data ./.yfs --workspace demo`,
    )
    .action(async (script: string | undefined, flags) => {
      const ws = await openWorkspaceOrExit('bash', flags, 'write')
      if (!ws) return
      try {
        const tools = terminalTools(ws.fs, { maxOutputChars: CLI_MAX_OUTPUT_CHARS })
        if (script !== undefined) {
          const r = await runLine(tools, script, flags.cwd, flags.timeout)
          if (flags.json) process.stdout.write(`${JSON.stringify(r)}\n`)
          else {
            process.stdout.write(r.stdout)
            process.stderr.write(r.stderr)
          }
          process.exitCode = r.exit_code
        } else process.exitCode = await prompt(ws.fs, tools, flags.cwd, flags.timeout)
      } finally {
        await ws.close()
      }
    })
}
