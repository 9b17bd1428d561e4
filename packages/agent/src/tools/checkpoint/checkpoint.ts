/**
 * checkpoint: record the whole workspace under a label.
 */
import { type } from 'arktype'
import { defineTool } from '../../tool.js'

export const checkpointTool = defineTool({
  name: 'checkpoint',
  title: 'Checkpoint the workspace',
  description:
    'Record the whole workspace (tree and every file) under a label, to compare with or roll back to later. Returns its id and the list of checkpoints.',
  input: type({ label: type('string > 0').describe('what this checkpoint is, e.g. "before refactor"') }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(input, { fs }) {
    const cp = await fs.checkpoint(input.label)
    return { structured: { checkpoint: cp, checkpoints: fs.checkpoints() } }
  },
})
