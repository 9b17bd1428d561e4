/**
 * All CLI formatting of sync events in one place: a progress bar (counts
 * and rate) for the initial pass on a terminal, `--verbose` one line per
 * change with its direction, `--json` one JSON object per line for scripts.
 * Skips, conflicts and errors are always printed (to stderr unless --json).
 */
import { SingleBar } from 'cli-progress'
import type { SyncEvent, SyncEventHandler } from './sync-events.js'

export interface ReporterOptions {
  verbose: boolean
  json: boolean
  /** Show the progress bar (default: stderr is a terminal and not --json). */
  progress?: boolean
  out?: NodeJS.WritableStream
  err?: NodeJS.WritableStream
}

const ARROW = { 'to-workspace': 'disk → workspace', 'to-disk': 'workspace → disk' } as const

/** One human-readable line for an event, or undefined when it is not shown. */
export function formatEvent(event: SyncEvent, verbose: boolean): string | undefined {
  switch (event.type) {
    case 'change': {
      const always = event.action === 'conflict'
      if (!verbose && !always) return undefined
      const from = event.from ? ` (from ${event.from})` : ''
      return `${ARROW[event.direction]}  ${event.action.padEnd(8)} ${event.path}${from}`
    }
    case 'skip':
      return `skipped ${event.path}: ${event.code} ${event.reason}`
    case 'error':
      return `error${event.path ? ` ${event.path}` : ''}: ${event.message}`
    case 'ready':
      return `in sync: ${event.entries} entries (${event.toWorkspace} to the workspace, ${event.toDisk} to disk) in ${(event.ms / 1000).toFixed(1)} s; watching`
    case 'stopped':
      return 'stopped'
    case 'progress':
      return undefined
  }
}

/** A handler printing events as the options say; `stop()` clears the progress bar. */
export function createReporter(options: ReporterOptions): SyncEventHandler & { stop(): void } {
  const out = options.out ?? process.stdout
  const err = options.err ?? process.stderr
  const showBar = options.progress ?? (!options.json && Boolean((err as NodeJS.WriteStream).isTTY))
  let bar: SingleBar | undefined
  let started = 0
  const stopBar = () => {
    bar?.stop()
    bar = undefined
  }
  const handler = (event: SyncEvent) => {
    if (options.json) {
      out.write(`${JSON.stringify({ ts: new Date().toISOString(), ...event })}\n`)
      return
    }
    if (event.type === 'progress') {
      if (!showBar) return
      if (!bar) {
        started = Date.now()
        bar = new SingleBar({
          format: 'sync |{bar}| {value}/{total} entries | {rate}/s | {eta_formatted} left',
          stream: err,
          hideCursor: true,
        })
        bar.start(event.total, 0, { rate: '0' })
      }
      const seconds = Math.max(0.001, (Date.now() - started) / 1000)
      bar.setTotal(event.total)
      bar.update(event.done, { rate: Math.round(event.done / seconds).toString() })
      return
    }
    if (event.type === 'ready') stopBar()
    const line = formatEvent(event, options.verbose)
    if (line === undefined) return
    const toErr = event.type === 'skip' || event.type === 'error'
    ;(toErr ? err : out).write(`${line}\n`)
  }
  return Object.assign(handler, { stop: stopBar })
}
