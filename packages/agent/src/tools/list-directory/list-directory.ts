/**
 * list_directory: a folder's entries with type, size and mtime, capped.
 */
import { SYSTEM_ROOTS } from '@yfs/core'
import { type } from 'arktype'
import { defineTool } from '../../tool.js'
import { kind, posix, vfs, vfsPath } from '../shared.js'

export const listDirectoryTool = defineTool({
  name: 'list_directory',
  title: 'List folder',
  description:
    'Entries of a folder with type, size and modification time, sorted by name. Very large folders are cut with a note (use glob to narrow).',
  input: type({ path: type(vfsPath).describe('vfs:/// path of a folder') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs, options }) {
    const path = posix(input.path)
    const names = (await fs.readdir(path)).filter((n) => path !== '/' || !SYSTEM_ROOTS.includes(n))
    const entries = []
    for (const name of names.slice(0, options.maxResults)) {
      const child = path === '/' ? `/${name}` : `${path}/${name}`
      const st = await fs.lstat(child)
      entries.push({ name, type: kind(st), size: st.size, mtime: st.mtime.toISOString() })
    }
    const text = entries
      .map(
        (e) =>
          `${e.type === 'folder' ? 'd' : e.type === 'symlink' ? 'l' : '-'} ${String(e.size).padStart(9)}  ${e.mtime}  ${e.name}${e.type === 'folder' ? '/' : ''}`,
      )
      .join('\n')
    const cut = names.length - entries.length
    return {
      structured: { path: vfs(path), entries, count: names.length, ...(cut ? { truncated: true } : {}) },
      text: `${text || '(empty folder)'}${cut ? `\n… [${cut} more entries not shown: use glob to narrow]` : ''}`,
    }
  },
})
