/**
 * Undo as one logged call, without the tool registry: what a person's undo
 * in the web app runs. It records the files the undo changes (the same call
 * recorder the registry uses) and appends one `undo` entry to the activity
 * log, so a person's undo can be seen and undone like an agent's.
 *
 * Browser-safe on purpose (exported as `@yfs/agent/activity`): this module
 * and what it imports use only `@yfs/core`, never just-bash, the MCP SDK or
 * Node built-ins. A dry run changes nothing and is not logged. It also hands
 * a page `undoEntries` and `peopleEdits` (people's edits for the timeline).
 */
import { type ActivityEntry, type ActivityLog, attachActivityLog, type YjsFileSystem } from '@yfs/core'
import { startCall } from './call-recorder.js'
import { type UndoReport, undoEntries } from './undo.js'

export type { PersonEdit } from './people-edits.js'
export { peopleEdits } from './people-edits.js'
export type { UndoAction, UndoConflict, UndoReport } from './undo.js'
export { undoEntries } from './undo.js'

export interface RunUndoOptions {
  /** Entries to undo (a session's listing, or one entry). */
  entries: readonly ActivityEntry[]
  dryRun: boolean
  /** Session the undo is logged under. */
  session: string
  /** Who undoes (e.g. `user:Ana`). */
  who: string
  /** What the entry's arguments say was undone (`{ session }` or `{ entry }`). */
  args: Record<string, unknown>
  /** The log to append to (default: the filesystem's). */
  log?: ActivityLog
}

const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

/** 12 random base64url characters, like the registry's entry ids. */
function entryId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12))
  return Array.from(bytes, (b) => ID_ALPHABET[b & 63]).join('')
}

/**
 * Undo `entries` on `fs`; unless a dry run, log it as one `undo` entry. Throws EACCES (from the
 * filesystem) on a read-only workspace when not a dry run.
 * @example
 * const report = await runUndo(fs, { entries: log.list({ session }), dryRun: true, session: 'web-1', who: 'user:Ana', args: { session } })
 */
export async function runUndo(fs: YjsFileSystem, options: RunUndoOptions): Promise<UndoReport> {
  if (options.dryRun) return undoEntries(fs, options.entries, true)
  const time = Date.now()
  const started = performance.now()
  const recorder = startCall(fs)
  let report: UndoReport | undefined
  let error: unknown
  try {
    report = await undoEntries(recorder.fs, options.entries, false)
    return report
  } catch (e) {
    error = e
    throw e
  } finally {
    const files = await recorder.finish()
    const code = (error as { code?: unknown } | undefined)?.code
    const entry: ActivityEntry = {
      id: entryId(),
      time,
      session: options.session,
      who: options.who,
      tool: 'undo',
      args: options.args,
      status: report ? 'ok' : 'error',
      ...(report ? {} : { error: typeof code === 'string' ? code : 'EIO' }),
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
      files,
    }
    if (!fs.readOnly) (options.log ?? attachActivityLog(fs.doc)).append([entry])
  }
}
