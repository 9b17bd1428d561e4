/**
 * activity: the workspace's activity log, newest first — every agent tool
 * call and bash run, with who, session, outcome and the files changed.
 */
import type { ActivityEntry, ActivityFileChange } from '@yfs/core'
import { type } from 'arktype'
import { peopleEdits } from '../../activity/people-edits.js'
import { ToolError } from '../../errors.js'
import { defineTool } from '../../tool.js'
import { posix, vfs, vfsPath } from '../shared.js'

/** A file change as tools show it (vfs:/// paths). */
export const fileView = (f: ActivityFileChange) => ({
  path: vfs(f.path),
  ...(f.from ? { from: vfs(f.from) } : {}),
  type: f.type,
  change: f.created
    ? 'created'
    : f.deleted
      ? 'deleted'
      : f.from && !f.after
        ? 'moved'
        : f.from
          ? 'moved+edited'
          : 'edited',
  ...(f.before ? { before_version: f.before } : {}),
  ...(f.after ? { after_version: f.after } : {}),
})

/** An entry as tools show it. */
export const entryView = (e: ActivityEntry) => ({
  id: e.id,
  time: new Date(e.time).toISOString(),
  session: e.session,
  who: e.who,
  tool: e.tool,
  status: e.status,
  ...(e.error ? { error: e.error } : {}),
  duration_ms: e.durationMs,
  args: e.args,
  files: e.files.map(fileView),
})

export const activityTool = defineTool({
  name: 'activity',
  title: 'Activity log',
  description:
    "The workspace's activity log, newest first: each agent tool call and bash run with id, time, session, who, tool, status and the files it changed (with history versions before and after, for diff and checkout_version). Filter by session, by path prefix, by time. Use undo with a session or an entry id to take changes back.",
  input: type({
    'session?': type('string > 0').describe('only this session'),
    'path?': type(vfsPath).describe('vfs:/// path prefix: only entries that changed files at or below it'),
    'since?': type('string > 0').describe('only entries at or after this ISO time (2026-11-27T14:00:00Z)'),
    'limit?': type('1 <= number.integer <= 1000').describe('most entries returned (default 50)'),
    'include_edits?': type('boolean').describe(
      "also list people's edits (history versions) of the files these entries changed",
    ),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs, activity }) {
    const since = input.since === undefined ? undefined : Date.parse(input.since)
    if (since !== undefined && Number.isNaN(since))
      throw new ToolError('EINVAL', `since: '${input.since}' is not an ISO time`)
    const pathPrefix = input.path === undefined ? undefined : posix(input.path)
    const listed = activity.log.list({
      ...(input.session ? { session: input.session } : {}),
      ...(pathPrefix ? { pathPrefix } : {}),
      ...(since !== undefined ? { since } : {}),
      limit: input.limit ?? 50,
    })
    const entries = listed.map(entryView)
    const edits = input.include_edits
      ? (await peopleEdits(fs, listed, since ?? listed.at(-1)?.time ?? 0)).map((e) => ({
          time: new Date(e.time).toISOString(),
          who: e.who,
          path: vfs(e.path),
          version: e.version,
          reason: e.reason,
        }))
      : undefined
    const lines = entries.map(
      (e) =>
        `${e.id}  ${e.time}  ${e.session.slice(0, 8)}  ${e.who}  ${e.tool}  ${e.status}${e.error ? ` ${e.error}` : ''}${e.files.length ? `  ${e.files.map((f) => `${f.change} ${f.path}`).join(', ')}` : ''}`,
    )
    if (edits?.length)
      lines.push(
        "people's edits:",
        ...edits.map((e) => `${e.version}  ${e.time}  ${e.who}  ${e.reason} ${e.path}`),
      )
    return {
      structured: { entries, ...(edits ? { edits } : {}) },
      text: lines.length ? lines.join('\n') : '(no activity)',
    }
  },
})
