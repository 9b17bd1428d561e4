/**
 * delete: move a file or folder to the trash (soft delete, restorable).
 */
import { type } from 'arktype'
import { defineTool } from '../../tool.js'
import { posix, vfs, vfsPath } from '../shared.js'

export const deleteTool = defineTool({
  name: 'delete',
  title: 'Delete (to trash)',
  description:
    'Move a file or folder to the trash (recoverable with restore). A non-empty folder needs recursive: true.',
  input: type({
    path: type(vfsPath).describe('vfs:/// path'),
    'recursive?': type('boolean').describe('needed for a folder that has entries'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(input, { fs }) {
    const path = posix(input.path)
    const id = fs.index.lookup(path)
    await fs.rm(path, { recursive: input.recursive ?? false })
    return { structured: { path: vfs(path), trashed: true, trash_id: id } }
  },
})
