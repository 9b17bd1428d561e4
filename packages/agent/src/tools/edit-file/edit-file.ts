/**
 * edit_file: exact old_text -> new_text with an occurrence count, an optional
 * expected content version (ESTALE), CRLF-aware matching, and a unified diff of
 * what is stored afterwards.
 */
import { type } from 'arktype'
import { createTwoFilesPatch } from 'diff'
import { ToolError } from '../../errors.js'
import { defineTool } from '../../tool.js'
import {
  contentVersion,
  mergeData,
  mergeNote,
  mergeOf,
  NORMALIZED_NOTE,
  posix,
  readTextOrBinary,
  vfs,
  vfsPath,
} from '../shared.js'

function countOccurrences(text: string, needle: string): number {
  let n = 0
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++
  return n
}

export const editFileTool = defineTool({
  name: 'edit_file',
  title: 'Edit file',
  description:
    'Replace old_text with new_text in a file. old_text must match exactly (whitespace included) exactly once, or exactly expected_occurrences times (then every occurrence is replaced). In a file with CRLF line ends, \\n in old_text and new_text stands for \\r\\n. Pass expected_version (from read_file or stat) to fail instead of overwriting a change you have not seen. Returns a unified diff.',
  input: type({
    path: type(vfsPath).describe('vfs:/// path of the file'),
    old_text: type('string > 0').describe('exact text to replace'),
    new_text: type('string').describe('replacement text'),
    'expected_occurrences?': type('number.integer >= 1').describe(
      'how many times old_text occurs (default 1)',
    ),
    'expected_version?': type('string').describe('content version the edit is based on'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(input, { fs }) {
    const path = posix(input.path)
    const { text, bytes } = await readTextOrBinary(fs, path)
    if (text === undefined)
      throw new ToolError('EINVAL', `${vfs(path)} is binary; edit_file edits text`, vfs(path))
    const version = contentVersion(bytes)
    if (input.expected_version !== undefined && input.expected_version !== version)
      throw new ToolError(
        'ESTALE',
        `${vfs(path)} changed since version ${input.expected_version} (now ${version})`,
        vfs(path),
      )
    const expected = input.expected_occurrences ?? 1
    let { old_text: oldText, new_text: newText } = input
    let found = countOccurrences(text, oldText)
    // Models write \n; in a CRLF file, match and replace with \r\n line ends instead.
    const crlf = found === 0 && text.includes('\r\n') && oldText.includes('\n') && !oldText.includes('\r')
    if (crlf) {
      oldText = oldText.replace(/\n/g, '\r\n')
      newText = newText.replace(/\r?\n/g, '\r\n')
      found = countOccurrences(text, oldText)
    }
    if (found !== expected)
      throw new ToolError(
        'ENOMATCH',
        `old_text occurs ${found} time${found === 1 ? '' : 's'} in ${vfs(path)}, expected ${expected}`,
        vfs(path),
        found > expected
          ? 'Add surrounding lines to old_text to make it unique, or set expected_occurrences.'
          : undefined,
      )
    const next = text.split(oldText).join(newText)
    // Matched against the text read just now; a change landing before the write is merged, not lost.
    const merge = mergeOf(await fs.write(path, next))
    // The diff is of what is stored now, which a codec (markdown) may have normalised.
    const after = await readTextOrBinary(fs, path)
    const stored = after.text ?? next
    const diff = createTwoFilesPatch(
      `a${path}`,
      `b${path}`,
      text,
      stored,
      version,
      contentVersion(after.bytes),
    )
    return {
      structured: {
        path: vfs(path),
        replaced: found,
        version: contentVersion(after.bytes),
        diff,
        ...(crlf ? { line_endings: 'crlf' } : {}),
        ...(stored !== next && !merge ? { normalized: true, note: NORMALIZED_NOTE } : {}),
        ...(merge ? { merge: mergeData(merge) } : {}),
      },
      text: merge
        ? `${diff}\nNote: ${mergeNote(merge)}`
        : stored !== next
          ? `${diff}\nNote: ${NORMALIZED_NOTE}`
          : diff,
    }
  },
})
