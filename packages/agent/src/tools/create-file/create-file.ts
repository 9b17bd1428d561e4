/**
 * create_file: write a new file; EEXIST if anything is at the path.
 */
import { FsError } from '@yfs/core'
import { defineTool } from '../../tool.js'
import { ensureParent, exists, posix, writeInput, writtenFile } from '../shared.js'

export const createFileTool = defineTool({
  name: 'create_file',
  title: 'Create file',
  description: 'Create a new file; fails with EEXIST if the path already exists. Parent folders are created.',
  input: writeInput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(input, { fs }) {
    const path = posix(input.path)
    if (await exists(fs, path)) throw new FsError('EEXIST', 'open', path)
    await ensureParent(fs, path)
    await fs.writeFile(path, input.content)
    return writtenFile(fs, path, input.content)
  },
})
