/**
 * apply_patch: a unified diff over one or many files. Every hunk of every file
 * is checked first; then all changes go through one `fs.transaction`, so
 * nothing changes unless everything applies.
 */
import { FsError, type WriteReport } from '@yfs/core'
import { type } from 'arktype'
import { applyPatch, parsePatch } from 'diff'
import { ToolError } from '../../errors.js'
import { defineTool } from '../../tool.js'
import { exists, mergeData, mergeNote, mergeOf, posix, vfs } from '../shared.js'

const mergeOfReport = (r: WriteReport) => mergeOf(r)!

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
    const structured = {
      files: results,
      transaction_id: result.transactionId,
      ...(result.merges.length ? { merges: result.merges.map((m) => mergeData(mergeOfReport(m))) } : {}),
    }
    if (!result.merges.length) return { structured }
    const notes = result.merges.map((m) => mergeNote(mergeOfReport(m)))
    return { structured, text: `${JSON.stringify(structured, null, 2)}\n\n${notes.join('\n')}` }
  },
})
