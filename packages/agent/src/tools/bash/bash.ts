/**
 * bash: one just-bash script on the workspace, through the exec backend;
 * stdout and stderr capped, the files it changed listed.
 */
import { isFsError } from '@yfs/core'
import { type } from 'arktype'
import { capText } from '../../cap-text.js'
import { ToolError } from '../../errors.js'
import { defineTool } from '../../tool.js'
import { mergeData, mergeNote, posix, vfs } from '../shared.js'

/** `undefined` for a path that does not resolve (ENOENT, ENOTDIR, ELOOP); other failures propagate. */
const orMissing = (error: unknown): undefined => {
  if (isFsError(error)) return undefined
  throw error
}

export const bashTool = defineTool({
  name: 'bash',
  title: 'Run bash',
  description:
    'Run a bash script (just-bash: grep, find, sed, awk, jq, sort, pipes, redirections, loops; no network, no real processes) on the workspace. Paths inside the script are plain POSIX paths (/src/a.ts, not vfs:///). /tmp is scratch space of this server (not synced, not in history, kept between calls): write intermediates there and mv results into the workspace. Returns stdout, stderr, exit code and the files it changed. Output is capped and scripts are limited in time, loop iterations and commands.',
  input: type({
    script: type('string > 0').describe('the bash script'),
    'cwd?': type('string > 0').describe('working directory: a POSIX path or a vfs:/// URL (default /)'),
    'timeout_ms?': type('1 <= number.integer <= 120000').describe('wall-clock limit (default 30000)'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(input, { fs, exec, options, signal }) {
    // A missing or non-folder cwd would only show up as a confusing shell error: say it up front.
    const cwd =
      input.cwd === undefined ? '/' : posix(/^vfs:/i.test(input.cwd) ? input.cwd : `vfs:///${input.cwd}`)
    if (!(await fs.stat(cwd).catch(orMissing))?.isDirectory)
      throw new ToolError('ENOTDIR', `cwd ${vfs(cwd)} is not a folder of the workspace`, vfs(cwd))
    const half = Math.floor(options.maxOutputChars / 2)
    const r = await exec.run(input.script, [], {
      cwd,
      timeout: input.timeout_ms ?? 30_000,
      maxOutputChars: half,
      ...(signal ? { signal } : {}),
    })
    const stdout = capText(r.stdout, half)
    const stderr = capText(r.stderr, half)
    const filesChanged = r.filesChanged.map((p) => `vfs://${p}`)
    return {
      structured: {
        stdout,
        stderr,
        exit_code: r.exitCode,
        files_changed: filesChanged,
        ...(r.timedOut ? { timed_out: true } : {}),
        ...(r.interrupted ? { interrupted: true } : {}),
        ...(r.merges.length ? { merges: r.merges.map(mergeData) } : {}),
      },
      text: [
        stdout,
        stderr ? `[stderr]\n${stderr}` : '',
        `[exit code ${r.exitCode}${r.timedOut ? ', timed out' : ''}${r.interrupted ? ', interrupted' : ''}]${filesChanged.length ? ` changed: ${filesChanged.join(' ')}` : ''}`,
        ...r.merges.map((m) => `[merged] ${mergeNote(m)}`),
      ]
        .filter(Boolean)
        .join('\n'),
    }
  },
})
