/**
 * undo: take back a session's (or one entry's) changes as new changes,
 * keeping what others changed since and reporting it (activity/undo.ts).
 */
import type { ActivityEntry } from '@yfs/core'
import { type } from 'arktype'
import { undoEntries } from '../../activity/undo.js'
import { ToolError } from '../../errors.js'
import { defineTool } from '../../tool.js'
import { vfs } from '../shared.js'

export const undoTool = defineTool({
  name: 'undo',
  title: 'Undo a session or entry',
  description:
    'Revert what one session (or one activity entry) changed, newest first, as new changes: edits are reverted line by line, created files trashed, deleted files restored from the trash, moves and renames moved back. Where someone else changed the same lines or moved the file since, their change is kept and reported as a conflict with the version ids to diff. dry_run: true reports the same without changing anything. The undo is itself an activity entry and can be undone. Find sessions and entry ids with the activity tool.',
  input: type({
    'session?': type('string > 0').describe('session id to undo (from activity)'),
    'entry?': type('string > 0').describe('a single activity entry id to undo'),
    'dry_run?': type('boolean').describe('report what would change without changing anything'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(input, { fs, activity }) {
    if ((input.session === undefined) === (input.entry === undefined))
      throw new ToolError('EINVAL', 'undo: give either session or entry')
    const dryRun = input.dry_run ?? false
    if (fs.readOnly && !dryRun) throw new ToolError('EACCES', 'undo: this workspace is read-only')
    let entries: ActivityEntry[]
    if (input.session !== undefined) {
      entries = activity.log.list({ session: input.session })
      if (entries.length === 0)
        throw new ToolError(
          'ENOENT',
          `undo: no activity for session '${input.session}'`,
          undefined,
          'List sessions with the activity tool.',
        )
    } else {
      const one = activity.log.get(input.entry!)
      if (!one)
        throw new ToolError(
          'ENOENT',
          `undo: no activity entry '${input.entry}'`,
          undefined,
          'List entries with the activity tool.',
        )
      entries = [one]
    }
    const report = await undoEntries(fs, entries, dryRun)
    const structured = {
      dry_run: report.dry_run,
      entries: report.entries,
      reverted: report.reverted.map((a) => ({
        ...a,
        path: vfs(a.path),
        ...(a.from ? { from: vfs(a.from) } : {}),
      })),
      conflicts: report.conflicts.map((c) => ({ ...c, path: vfs(c.path) })),
    }
    const verb = dryRun ? 'would revert' : 'reverted'
    const text = [
      `${verb} ${report.reverted.length} change(s) of ${report.entries.length} entr${report.entries.length === 1 ? 'y' : 'ies'}; ${report.conflicts.length} kept as conflict(s)`,
      ...structured.reverted.map((a) => `  ${a.action} ${a.path}${a.from ? ` (from ${a.from})` : ''}`),
      ...structured.conflicts.map(
        (c) =>
          `  kept ${c.path}: ${c.reason}${c.session_version ? ` (diff from_version ${c.session_version})` : ''}`,
      ),
    ].join('\n')
    return { structured, text }
  },
})
