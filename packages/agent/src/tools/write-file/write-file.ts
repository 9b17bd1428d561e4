/**
 * write_file: create or overwrite a file, creating parent folders.
 */
import { defineTool } from '../../tool.js'
import { ensureParent, mergeData, mergeNote, mergeOf, posix, writeInput, writtenFile } from '../shared.js'

export const writeFileTool = defineTool({
  name: 'write_file',
  title: 'Write file',
  description:
    'Create or overwrite a file with the given content; missing parent folders are created. Only the changed parts are applied, so a person editing elsewhere in the file keeps their edit. If the file changed since you read it, your content is merged with those changes (the result says so; where both changed the same lines your version wins and theirs is kept in history).',
  input: writeInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true },
  async run(input, { fs }) {
    const path = posix(input.path)
    await ensureParent(fs, path)
    const merge = mergeOf(await fs.write(path, input.content))
    const out = await writtenFile(fs, path, input.content)
    if (!merge) return out
    const structured = { ...out.structured, merge: mergeData(merge) }
    return { structured, text: `${JSON.stringify(structured, null, 2)}\n\n${mergeNote(merge)}` }
  },
})
