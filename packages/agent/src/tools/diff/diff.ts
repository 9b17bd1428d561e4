/**
 * diff: unified diff of a file between two versions (or a version and now).
 */
import { type } from 'arktype'
import { defineTool } from '../../tool.js'
import { posix, vfsPath } from '../shared.js'

export const diffTool = defineTool({
  name: 'diff',
  title: 'Diff versions',
  description: 'Unified diff of a file between two versions (to_version omitted: the current content).',
  input: type({
    path: type(vfsPath).describe('vfs:/// path'),
    from_version: type('string > 0').describe('version id from history'),
    'to_version?': type('string > 0').describe('version id from history (default: the current content)'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs }) {
    const diff = await fs.diff(posix(input.path), input.from_version, input.to_version)
    return { structured: { diff }, text: diff }
  },
})
