/** File tools: read, write, create, append, edit, apply_patch. */
import { FsError, utf8Length } from '@yfs/core'
import { type } from 'arktype'
import { applyPatch, createTwoFilesPatch, parsePatch } from 'diff'
import { ToolError } from '../errors.js'
import { defineTool } from '../tool.js'
import {
  contentVersion,
  ensureParent,
  exists,
  NORMALIZED_NOTE,
  posix,
  readTextOrBinary,
  vfs,
  vfsPath,
  writtenFile,
} from './shared.js'

export const readFile = defineTool({
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

const writeInput = type({
  path: type(vfsPath).describe('vfs:/// path of the file'),
  content: type('string').describe('the whole new content'),
})

export const writeFile = defineTool({
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

export const createFile = defineTool({
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

export const appendFile = defineTool({
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

function countOccurrences(text: string, needle: string): number {
  let n = 0
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++
  return n
}

export const editFile = defineTool({
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
    await fs.writeFile(path, next)
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
        ...(stored !== next ? { normalized: true, note: NORMALIZED_NOTE } : {}),
      },
      text: stored !== next ? `${diff}\nNote: ${NORMALIZED_NOTE}` : diff,
    }
  },
})

const stripPrefix = (name: string | undefined): string | undefined => {
  if (!name || name === '/dev/null') return undefined
  if (name.startsWith('vfs://')) return posix(name)
  const bare = name.replace(/^[ab]\//, '')
  return posix(`vfs:///${bare.replace(/^\/+/, '')}`)
}

export const applyPatchTool = defineTool({
  name: 'apply_patch',
  title: 'Apply patch',
  description:
    'Apply a unified diff (one or many files, as produced by diff -u or git diff; paths a/x and b/x mean vfs:///x, /dev/null creates or deletes). All or nothing: if any hunk of any file does not apply, nothing changes. Returns the result per file.',
  input: type({ patch: type('string > 0').describe('unified diff text') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(input, { fs }) {
    const patches = parsePatch(input.patch)
    if (patches.length === 0 || patches.every((p) => p.hunks.length === 0))
      throw new ToolError('EINVAL', 'no file patches found in the diff')
    const ops: Parameters<typeof fs.transaction>[0][number][] = []
    const results: { path: string; status: string; hunks: number }[] = []
    // Content after the file patches seen so far (null: deleted), so a diff that touches
    // one file twice applies its second patch to the result of the first.
    const pending = new Map<string, string | null>()
    const present = async (p: string) => (pending.has(p) ? pending.get(p) !== null : exists(fs, p))
    for (const p of patches) {
      const from = stripPrefix(p.oldFileName)
      const to = stripPrefix(p.newFileName)
      const target = to ?? from
      if (!target) throw new ToolError('EINVAL', 'a file patch names neither an old nor a new file')
      if (from !== to && to && (await present(to)))
        throw new ToolError(
          'EEXIST',
          from
            ? `the patch renames ${vfs(from)} to ${vfs(to)}, but ${vfs(to)} already exists`
            : `the patch creates ${vfs(to)} (--- /dev/null), but it already exists`,
          vfs(target),
          'Make a patch against its current content (--- a/… +++ b/…), or delete it first.',
        )
      let current = ''
      if (from) {
        const seen = pending.get(from)
        if (seen === null) throw new FsError('ENOENT', 'open', from)
        current = seen ?? (await fs.readFile(from))
      }
      const next = applyPatch(current, p)
      if (next === false)
        throw new ToolError(
          'ENOMATCH',
          `the patch for ${vfs(target)} does not apply to its current content`,
          vfs(target),
          'Read the file again and rebuild the patch against it.',
        )
      if (from) pending.set(from, null)
      if (to) pending.set(to, next)
      if (!to) {
        ops.push({ type: 'deleteFile', path: from! })
        results.push({ path: vfs(from!), status: 'deleted', hunks: p.hunks.length })
        continue
      }
      if (from && from !== to) ops.push({ type: 'rename', oldPath: from, newPath: to })
      ops.push({ type: 'writeFile', path: to, content: next })
      results.push({
        path: vfs(to),
        status: from ? (from === to ? 'modified' : 'renamed') : 'created',
        hunks: p.hunks.length,
      })
    }
    // Missing parent folders of created files: part of the same all-or-nothing transaction.
    const dirs = new Set<string>()
    for (const op of ops)
      if (op.type === 'writeFile') dirs.add(op.path.slice(0, op.path.lastIndexOf('/')) || '/')
    const mkdirs = [...dirs]
      .filter((d) => d !== '/')
      .map((path) => ({ type: 'mkdir' as const, path, recursive: true }))
    const result = await fs.transaction([...mkdirs, ...ops])
    return { structured: { files: results, transaction_id: result.transactionId } }
  },
})
