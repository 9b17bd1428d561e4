/**
 * history: the versions of a file, oldest first.
 */
import { type } from 'arktype'
import { defineTool } from '../../tool.js'
import { posix, vfs, vfsPath } from '../shared.js'

export const historyTool = defineTool({
  name: 'history',
  title: 'File history',
  description:
    'Versions of a file, oldest first: id, time, author, reason, size. Use diff and checkout_version with the ids.',
  input: type({ path: type(vfsPath).describe('vfs:/// path of a file') }),
  // Listing may first record pending editor edits as a version; no file changes.
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs }) {
    const path = posix(input.path)
    const versions = (await fs.history(path)).map((v) => ({
      id: v.id,
      time: new Date(v.ts).toISOString(),
      author: v.author,
      reason: v.reason,
      size: v.size,
    }))
    return {
      structured: { path: vfs(path), versions },
      text: versions.map((v) => `${v.id}  ${v.time}  ${v.author}  ${v.reason}  ${v.size} B`).join('\n'),
    }
  },
})
