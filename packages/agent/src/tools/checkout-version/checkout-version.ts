/**
 * checkout_version: make a file equal to an earlier version (a new change).
 */
import { type } from 'arktype'
import { defineTool } from '../../tool.js'
import { posix, vfs, vfsPath } from '../shared.js'

export const checkoutVersionTool = defineTool({
  name: 'checkout_version',
  title: 'Restore a version',
  description:
    "Make a file's content equal to an earlier version. This is a new change (history is kept), visible to everyone.",
  input: type({
    path: type(vfsPath).describe('vfs:/// path'),
    version: type('string > 0').describe('version id from history'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(input, { fs }) {
    const path = posix(input.path)
    const v = await fs.restore(path, input.version)
    return { structured: { path: vfs(path), restored_from: input.version, new_version: v.id } }
  },
})
