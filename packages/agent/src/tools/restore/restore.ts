/**
 * restore: list the trash, or put an item back by its trash id.
 */
import { asFileId } from '@yfs/core'
import { type } from 'arktype'
import { ToolError } from '../../errors.js'
import { defineTool } from '../../tool.js'
import { vfs } from '../shared.js'

export const restoreTool = defineTool({
  name: 'restore',
  title: 'Restore from trash',
  description:
    'Restore an item from the trash by its trash_id (returned by delete). Without trash_id, lists the trash. It goes back where it was, or to the root if its folder is gone, under a free name.',
  input: type({ 'trash_id?': type('string > 0').describe('id from delete or from the trash listing') }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(input, { fs }) {
    if (input.trash_id === undefined) {
      const trash = fs.trash.list().map((t) => ({
        trash_id: t.id,
        name: t.name,
        type: t.type,
        trashed_at: new Date(t.trashedAt).toISOString(),
        original_path: t.originalPath ? vfs(t.originalPath) : null,
      }))
      return { structured: { trash } }
    }
    // A trash id is a file id; an unknown string simply finds no row.
    const row = fs.table.get(asFileId(input.trash_id))
    if (!row) throw new ToolError('ENOENT', `no trash item '${input.trash_id}'`)
    return { structured: { path: vfs(fs.trash.restore(row.id)), restored: true } }
  },
})
