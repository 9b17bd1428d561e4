/**
 * restore_checkpoint: roll the workspace back to a checkpoint, after a safety
 * checkpoint of the current state.
 */
import { type } from 'arktype'
import { defineTool } from '../../tool.js'
import { vfs } from '../shared.js'

export const restoreCheckpointTool = defineTool({
  name: 'restore_checkpoint',
  title: 'Roll back to a checkpoint',
  description:
    'Make the whole workspace equal to a checkpoint (files added since go to the trash). A safety checkpoint of the current state is taken first; its id is returned.',
  input: type({ id: type('string > 0').describe('checkpoint id') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(input, { fs }) {
    const before = await fs.diffCheckpoint(input.id)
    const { safetyCheckpoint } = await fs.restoreCheckpoint(input.id)
    return {
      structured: {
        restored: input.id,
        safety_checkpoint: safetyCheckpoint.id,
        undone: {
          added: before.added.map(vfs),
          removed: before.removed.map(vfs),
          moved: before.moved.map((m) => ({ from: vfs(m.from), to: vfs(m.to) })),
          changed: before.changed.map((c) => vfs(c.path)),
        },
      },
    }
  },
})
