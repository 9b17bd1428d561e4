/**
 * append_file: append text (a true append: concurrent appends both land).
 */
import { defineTool } from '../../tool.js'
import { posix, writeInput, writtenFile } from '../shared.js'

export const appendFileTool = defineTool({
  name: 'append_file',
  title: 'Append to file',
  description:
    'Append text to the end of a file (created if missing). Concurrent appends by others are kept.',
  input: writeInput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(input, { fs }) {
    const path = posix(input.path)
    await fs.appendFile(path, input.content)
    return writtenFile(fs, path)
  },
})
