/**
 * read_file: numbered lines of a text file, line ranges, a content version, and two
 * output budgets (bytes and characters) with a note that says where to go on.
 */
import { utf8Length } from '@yfs/core'
import { type } from 'arktype'
import { ToolError } from '../../errors.js'
import { defineTool } from '../../tool.js'
import { contentVersion, posix, readTextOrBinary, vfs, vfsPath } from '../shared.js'

export const readFileTool = defineTool({
  name: 'read_file',
  title: 'Read file',
  description:
    'Read a text file of the workspace with line numbers ("  12\\tcode"). Optional line_start/line_end (1-based, inclusive; a range past the end reads to the end). Returns the content version to pass to edit_file as expected_version. Binary files are described, not dumped. Large files are cut with a note: read them in line ranges.',
  input: type({
    path: type(vfsPath).describe('vfs:/// path of the file'),
    'line_start?': type('number.integer >= 1').describe('first line to return (1-based)'),
    'line_end?': type('number.integer >= 1').describe('last line to return (inclusive)'),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs, options }) {
    const path = posix(input.path)
    const { text, bytes } = await readTextOrBinary(fs, path)
    const version = contentVersion(bytes)
    if (text === undefined) {
      return {
        structured: { path: vfs(path), binary: true, size: bytes.byteLength, version },
        text: `${vfs(path)} is a binary file (${bytes.byteLength} bytes); its content is not shown.`,
      }
    }
    const lines = text.split('\n')
    if (lines.length > 1 && lines.at(-1) === '') lines.pop()
    const total = text === '' ? 0 : lines.length
    const start = input.line_start ?? 1
    if (input.line_end !== undefined && input.line_end < start)
      throw new ToolError('EINVAL', `line_end (${input.line_end}) is before line_start (${start})`, vfs(path))
    const last = Math.min(input.line_end ?? total, total)
    const width = String(Math.max(last, 1)).length
    // Two budgets: the content's bytes (maxReadBytes) and the numbered text a model reads
    // (maxOutputChars, less room for the note), so the note below is the one it sees.
    const charBudget = Math.max(100, options.maxOutputChars - 300)
    const out: string[] = []
    let end = last
    let bytesUsed = 0
    let charsUsed = 0
    let note: string | undefined
    let lineCut = false
    for (let n = start; n <= last; n++) {
      const line = lines[n - 1]!
      const lineBytes = utf8Length(line) + 1
      const lineChars = width + line.length + 2
      if (bytesUsed + lineBytes <= options.maxReadBytes && charsUsed + lineChars <= charBudget) {
        out.push(line)
        bytesUsed += lineBytes
        charsUsed += lineChars
        continue
      }
      if (out.length > 0) {
        end = n - 1
        note = `[cut at line ${end} of ${total}: read the rest with line_start=${end + 1}]`
        break
      }
      // One line longer than a whole read: show its start and say how to read the rest of it.
      let keep = Math.min(charBudget - width - 2, options.maxReadBytes)
      if (/[\uD800-\uDBFF]/.test(line.charAt(keep - 1))) keep-- // never split a surrogate pair
      out.push(line.slice(0, keep))
      end = n
      lineCut = true
      note =
        `[line ${n} has ${line.length} characters; only the first ${keep} are shown. ` +
        // cut's ranges count against the bash loop limit (10,000): suggest a piece well below it.
        `Read more of it with bash: sed -n '${n}p' '${path}' | cut -c${keep + 1}-${keep + 8000}` +
        `${n < last ? `; the next line is line_start=${n + 1}` : ''}]`
      break
    }
    const numbered = out.map((l, i) => `${String(start + i).padStart(width)}\t${l}`).join('\n')
    const past =
      start > total && total > 0 ? `[line_start ${start} is past the end: the file has ${total} lines]` : ''
    return {
      structured: {
        path: vfs(path),
        content: out.join('\n'),
        line_start: start,
        line_end: end,
        total_lines: total,
        size: bytes.byteLength,
        version,
        ...(note ? { truncated: true } : {}),
        ...(lineCut ? { line_cut: true } : {}),
        ...(text.endsWith('\n') || text === '' ? {} : { no_trailing_newline: true }),
      },
      text: total === 0 ? `(${vfs(path)} is empty)` : `${numbered}${note ? `\n${note}` : ''}${past}`,
    }
  },
})
