/**
 * `yfs log` and `yfs undo`: the activity log of a workspace, and undo of a
 * session, for people at a terminal. Both work against a running server
 * (`--server`, `--token`, `--workspace`) or a data folder (`--data` /
 * `--postgres`, `--workspace`), which is served for the command's duration
 * by an in-process server on 127.0.0.1 with a token made for the command and
 * revoked after (so the changes are stored exactly as a client's would be).
 * Do not point `--data` at the folder of a server that is running: use
 * `--server` then, so the server's clients see the undo live.
 *
 * `undo` runs the agent tool `undo` through a tool registry, so it is itself
 * an activity entry (who: `cli:<user>`) and can be undone. A read token can
 * list the log but not undo (EACCES).
 */
import { type PersonEdit, peopleEdits } from '@yfs/agent'
import { type ActivityEntry, attachActivityLog } from '@yfs/core'
import { Command, InvalidArgumentError, Option } from 'commander'
import { openWorkspace, terminalTools, workspaceOptions } from './workspace-flags.js'

function count(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a non-negative integer')
  return n
}

function isoTime(value: string): number {
  const t = Date.parse(value)
  if (Number.isNaN(t)) throw new InvalidArgumentError('expected an ISO time, e.g. 2026-11-27T14:00:00Z')
  return t
}

/** One line per entry, newest first: time, session, who, tool, status, files. */
export function formatEntries(entries: readonly ActivityEntry[]): string {
  if (entries.length === 0) return '(no activity)\n'
  const lines = entries.map((e) => {
    const files = e.files.map((f) =>
      f.created
        ? `+${f.path}`
        : f.deleted
          ? `-${f.path}`
          : f.from
            ? `${f.from} -> ${f.path}${f.after ? ' (edited)' : ''}`
            : `~${f.path}`,
    )
    const status = e.status === 'ok' ? 'ok' : `error ${e.error ?? ''}`.trim()
    return `${new Date(e.time).toISOString()}  ${e.id}  session ${e.session}  ${e.who}  ${e.tool}  ${status}${files.length ? `  ${files.join(' ')}` : ''}`
  })
  return `${lines.join('\n')}\n`
}

/** People's edits, newest first, under the entries. */
export function formatEdits(edits: readonly PersonEdit[]): string {
  const lines = edits.map(
    (e) => `${new Date(e.time).toISOString()}  ${e.version}  ${e.who}  ${e.reason}  ${e.path}`,
  )
  return `people's edits:\n${lines.join('\n')}\n`
}

export function createLogCommand(): Command {
  return workspaceOptions(new Command('log').description("show a workspace's activity log, newest first"))
    .option('--session <id>', 'only this session')
    .option('--path <prefix>', 'only entries that changed files at or below this path (/src)')
    .addOption(new Option('--since <time>', 'only entries at or after this ISO time').argParser(isoTime))
    .option('--limit <n>', 'most entries (default 100)', (v) => Number.parseInt(v, 10))
    .option('--edits', "also list people's edits (history versions) of the files the entries changed")
    .option(
      '--keep-entries <n>',
      "set the workspace's retention: keep at most n entries (a write token)",
      count,
    )
    .option(
      '--keep-days <n>',
      "set the workspace's retention: drop entries older than n days (a write token)",
      count,
    )
    .addHelpText(
      'after',
      `
Examples:
  yfs log --server ws://127.0.0.1:4321 --workspace team --token $T
  yfs log --data ./.yfs --workspace team --session 3f2a… --json
  yfs log --server ... --workspace team --token $T --path /src --since 2026-11-27T09:00:00Z
  yfs log --data ./.yfs --workspace team --keep-entries 5000 --keep-days 14   (defaults: 10000, 30)`,
    )
    .action(async (flags) => {
      try {
        const retain = flags.keepEntries !== undefined || flags.keepDays !== undefined
        const ws = await openWorkspace(flags, retain ? 'write' : 'read')
        try {
          const log = attachActivityLog(ws.fs.doc)
          if (retain) {
            if (ws.fs.readOnly) throw new Error('setting the retention needs a write token')
            log.setRetention({
              ...(flags.keepEntries !== undefined ? { maxEntries: flags.keepEntries } : {}),
              ...(flags.keepDays !== undefined ? { maxAgeMs: flags.keepDays * 24 * 3600_000 } : {}),
            })
          }
          const entries = log.list({
            ...(flags.session ? { session: flags.session } : {}),
            ...(flags.path ? { pathPrefix: flags.path } : {}),
            ...(flags.since !== undefined ? { since: flags.since } : {}),
            limit: flags.limit ?? 100,
          })
          const edits: PersonEdit[] | undefined = flags.edits
            ? await peopleEdits(ws.fs, entries, flags.since ?? entries.at(-1)?.time ?? 0)
            : undefined
          const { maxEntries, maxAgeMs } = log.retention()
          const retention = { max_entries: maxEntries, max_age_days: maxAgeMs / (24 * 3600_000) }
          process.stdout.write(
            flags.json
              ? `${JSON.stringify({ entries, ...(edits ? { edits } : {}), retention })}\n`
              : `${formatEntries(entries)}${edits?.length ? formatEdits(edits) : ''}${retain ? `retention: ${maxEntries} entries, ${retention.max_age_days} days\n` : ''}`,
          )
        } finally {
          await ws.close()
        }
      } catch (error) {
        process.stderr.write(`yfs log: ${(error as Error).message}\n`)
        process.exitCode = 2
      }
    })
}

interface UndoStructured {
  dry_run: boolean
  entries: string[]
  reverted: { action: string; path: string; from?: string }[]
  conflicts: { path: string; reason: string; session_version?: string; before_version?: string }[]
}

/** The undo report for a person. */
export function formatUndo(r: UndoStructured): string {
  const lines = [
    `${r.dry_run ? 'would revert' : 'reverted'} ${r.reverted.length} change(s) in ${r.entries.length} entr${r.entries.length === 1 ? 'y' : 'ies'}`,
    ...r.reverted.map(
      (a) =>
        `  ${a.action} ${a.path.replace(/^vfs:\/\//, '')}${a.from ? ` (from ${a.from.replace(/^vfs:\/\//, '')})` : ''}`,
    ),
  ]
  if (r.conflicts.length) {
    lines.push(`kept ${r.conflicts.length} change(s) made since by others:`)
    for (const c of r.conflicts)
      lines.push(
        `  ${c.path.replace(/^vfs:\/\//, '')}: ${c.reason}${c.session_version ? ` (versions: session ${c.session_version}, before ${c.before_version ?? '-'})` : ''}`,
      )
  }
  return `${lines.join('\n')}\n`
}

export function createUndoCommand(): Command {
  return workspaceOptions(
    new Command('undo').description("take back a session's changes, keeping what others changed since"),
  )
    .addOption(new Option('--session <id>', 'the session to undo (see yfs log)').makeOptionMandatory())
    .option('--dry-run', 'report what would change, change nothing')
    .addHelpText(
      'after',
      `
Lines, placements or files that someone else changed since the session are kept as they
are and reported, with the version ids to compare (yfs does not overwrite them).

Examples:
  yfs undo --server ws://127.0.0.1:4321 --workspace team --token $T --session 3f2a… --dry-run
  yfs undo --data ./.yfs --workspace team --session 3f2a… --json`,
    )
    .action(async (flags) => {
      try {
        const ws = await openWorkspace(flags, 'write')
        try {
          const tools = terminalTools(ws.fs)
          const r = await tools.execute('undo', { session: flags.session, dry_run: flags.dryRun === true })
          if (r.isError) {
            process.stderr.write(`yfs undo: ${r.content[0]?.text ?? 'failed'}\n`)
            process.exitCode = 2
            return
          }
          // The undo tool's structured result (tools/undo/undo.ts) has this shape.
          const report = r.structuredContent as unknown as UndoStructured
          process.stdout.write(flags.json ? `${JSON.stringify(report)}\n` : formatUndo(report))
          process.exitCode = report.conflicts.length ? 1 : 0
        } finally {
          await ws.close()
        }
      } catch (error) {
        process.stderr.write(`yfs undo: ${(error as Error).message}\n`)
        process.exitCode = 2
      }
    })
}
