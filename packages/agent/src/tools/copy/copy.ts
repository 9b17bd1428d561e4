/**
 * copy: copy a file or folder recursively; refuses to replace unless asked.
 */
import { FsError } from '@yfs/core'
import { defineTool } from '../../tool.js'
import { ensureParent, exists, posix, twoPaths, vfs } from '../shared.js'

export const copyTool = defineTool({
  name: 'copy',
  title: 'Copy',
  description:
    'Copy a file or a folder (recursively). Fails with EEXIST if the destination exists unless overwrite is true. Parent folders of the destination are created.',
  input: twoPaths,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(input, { fs }) {
    const [from, to] = [posix(input.source), posix(input.destination)]
    if (!input.overwrite && (await exists(fs, to))) throw new FsError('EEXIST', 'cp', from, to)
    await ensureParent(fs, to)
    await fs.cp(from, to, { recursive: true })
    return { structured: { source: vfs(from), destination: vfs(to) } }
  },
})
