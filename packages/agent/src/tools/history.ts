/** History tools: history, diff, checkout_version, checkpoint, restore_checkpoint. */
import { type } from 'arktype'
import { defineTool } from '../tool.js'
import { posix, vfs, vfsPath } from './shared.js'

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

export const diffTool = defineTool({
  name: 'diff',
  title: 'Diff versions',
  description: 'Unified diff of a file between two versions (to_version omitted: the current content).',
  input: type({
    path: type(vfsPath).describe('vfs:/// path'),
    from_version: 'string > 0',
    'to_version?': 'string > 0',
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs }) {
    const diff = await fs.diff(posix(input.path), input.from_version, input.to_version)
    return { structured: { diff }, text: diff }
  },
})

export const checkoutVersion = defineTool({
  name: 'checkout_version',
  title: 'Restore a version',
  description:
    "Make a file's content equal to an earlier version. This is a new change (history is kept), visible to everyone.",
  input: type({ path: type(vfsPath).describe('vfs:/// path'), version: 'string > 0' }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(input, { fs }) {
    const path = posix(input.path)
    const v = await fs.restore(path, input.version)
    return { structured: { path: vfs(path), restored_from: input.version, new_version: v.id } }
  },
})

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

export const restoreCheckpoint = defineTool({
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
