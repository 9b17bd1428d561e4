/**
 * write_file: create or overwrite a file, creating parent folders.
 */
import { defineTool } from '../../tool.js'
import { ensureParent, posix, writeInput, writtenFile } from '../shared.js'

export const writeFileTool = defineTool({
  name: 'write_file',
  title: 'Write file',
  description:
    'Create or overwrite a file with the given content; missing parent folders are created. Only the changed parts are applied, so a person editing elsewhere in the file keeps their edit.',
  input: writeInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(input, { fs }) {
    const path = posix(input.path)
    await ensureParent(fs, path)
    await fs.writeFile(path, input.content)
    return writtenFile(fs, path, input.content)
  },
})
