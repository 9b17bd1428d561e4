/**
 * move: rename or move a file or folder; refuses to replace unless asked.
 */
import { FsError } from '@yfs/core'
import { defineTool } from '../../tool.js'
import { ensureParent, exists, posix, twoPaths, vfs } from '../shared.js'

export const moveTool = defineTool({
  name: 'move',
  title: 'Move or rename',
  description:
    'Move or rename a file or folder (one metadata change, instant even for big folders). Fails with EEXIST if the destination exists unless overwrite is true. Parent folders of the destination are created.',
  input: twoPaths,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(input, { fs }) {
    const [from, to] = [posix(input.source), posix(input.destination)]
    if (!input.overwrite && from !== to && (await exists(fs, to)))
      throw new FsError('EEXIST', 'rename', from, to)
    await ensureParent(fs, to)
    await fs.mv(from, to)
    return { structured: { source: vfs(from), destination: vfs(to) } }
  },
})
