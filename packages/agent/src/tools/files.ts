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
    let end = Math.min(input.line_end ?? total, total)
    let note: string | undefined
    // Whole-file reads are capped; ranges are the way to read big files.
    let out = lines.slice(start - 1, end)
    let size = 0
    for (let i = 0; i < out.length; i++) {
      size += utf8Length(out[i]!) + 1
      if (size > options.maxReadBytes) {
        out = out.slice(0, i)
        end = start + i - 1
        note = `[cut at line ${end} of ${total}: read the rest with line_start=${end + 1}]`
        break
      }
    }
    const width = String(Math.max(end, 1)).length
    const numbered = out.map((l, i) => `${String(start + i).padStart(width)}\t${l}`).join('\n')
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
        ...(text.endsWith('\n') || text === '' ? {} : { no_trailing_newline: true }),
      },
      text: `${numbered}${note ? `\n${note}` : ''}${start > total && total > 0 ? `[the file has ${total} lines]` : ''}`,
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
    return writtenFile(fs, path)
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
    return writtenFile(fs, path)
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
    'Replace old_text with new_text in a file. old_text must match exactly (whitespace included) exactly once, or exactly expected_occurrences times (then every occurrence is replaced). Pass expected_version (from read_file or stat) to fail instead of overwriting a change you have not seen. Returns a unified diff.',
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
    const found = countOccurrences(text, input.old_text)
    if (found !== expected)
      throw new ToolError(
        'ENOMATCH',
        `old_text occurs ${found} time${found === 1 ? '' : 's'} in ${vfs(path)}, expected ${expected}`,
        vfs(path),
        found > expected
          ? 'Add surrounding lines to old_text to make it unique, or set expected_occurrences.'
          : undefined,
      )
    const next = text.split(input.old_text).join(input.new_text)
    await fs.writeFile(path, next)
    const after = await fs.readFileBuffer(path)
    const diff = createTwoFilesPatch(`a${path}`, `b${path}`, text, next, version, contentVersion(after))
    return {
      structured: { path: vfs(path), replaced: found, version: contentVersion(after), diff },
      text: diff,
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
    for (const p of patches) {
      const from = stripPrefix(p.oldFileName)
      const to = stripPrefix(p.newFileName)
      const target = to ?? from
      if (!target) throw new ToolError('EINVAL', 'a file patch names neither an old nor a new file')
      const current = from ? await fs.readFile(from) : ''
      const next = applyPatch(current, p)
      if (next === false)
        throw new ToolError(
          'ENOMATCH',
          `the patch for ${vfs(target)} does not apply to its current content`,
          vfs(target),
          'Read the file again and rebuild the patch against it.',
        )
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
