/**
 * mkdir: create a folder and its parents (idempotent).
 */
import { type } from 'arktype'
import { defineTool } from '../../tool.js'
import { posix, vfs, vfsPath } from '../shared.js'

export const mkdirTool = defineTool({
  name: 'mkdir',
  title: 'Create folder',
  description: 'Create a folder and any missing parents. Succeeds if it already exists as a folder.',
  input: type({ path: type(vfsPath).describe('vfs:/// path') }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(input, { fs }) {
    const path = posix(input.path)
    await fs.mkdir(path, { recursive: true })
    return { structured: { path: vfs(path), created: true } }
  },
})
