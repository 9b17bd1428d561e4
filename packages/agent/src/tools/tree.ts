/** Tree tools: delete (to trash), restore, mkdir, move, copy, stat, list_directory, tree. */
import { asFileId, FsError, SYSTEM_ROOTS } from '@yfs/core'
import { type } from 'arktype'
import { ToolError } from '../errors.js'
import { defineTool } from '../tool.js'
import { contentVersion, ensureParent, exists, posix, vfs, vfsPath } from './shared.js'

const kind = (st: { isDirectory: boolean; isSymbolicLink: boolean }) =>
  st.isSymbolicLink ? 'symlink' : st.isDirectory ? 'folder' : 'file'

export const deleteTool = defineTool({
  name: 'delete',
  title: 'Delete (to trash)',
  description:
    'Move a file or folder to the trash (recoverable with restore). A non-empty folder needs recursive: true.',
  input: type({ path: type(vfsPath).describe('vfs:/// path'), 'recursive?': 'boolean' }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(input, { fs }) {
    const path = posix(input.path)
    const id = fs.index.lookup(path)
    await fs.rm(path, { recursive: input.recursive ?? false })
    return { structured: { path: vfs(path), trashed: true, trash_id: id } }
  },
})

export const restoreTool = defineTool({
  name: 'restore',
  title: 'Restore from trash',
  description:
    'Restore an item from the trash by its trash_id (returned by delete). Without trash_id, lists the trash. It goes back where it was, or to the root if its folder is gone, under a free name.',
  input: type({ 'trash_id?': type('string > 0').describe('id from delete or from the trash listing') }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(input, { fs }) {
    if (input.trash_id === undefined) {
      const trash = fs.trash.list().map((t) => ({
        trash_id: t.id,
        name: t.name,
        type: t.type,
        trashed_at: new Date(t.trashedAt).toISOString(),
        original_path: t.originalPath ? vfs(t.originalPath) : null,
      }))
      return { structured: { trash } }
    }
    // A trash id is a file id; an unknown string simply finds no row.
    const row = fs.table.get(asFileId(input.trash_id))
    if (!row) throw new ToolError('ENOENT', `no trash item '${input.trash_id}'`)
    return { structured: { path: vfs(fs.trash.restore(row.id)), restored: true } }
  },
})

export const mkdirTool = defineTool({
  name: 'mkdir',
  title: 'Create folder',
  description: 'Create a folder and any missing parents. Succeeds if it already exists as a folder.',
  input: type({ path: type(vfsPath).describe('vfs:/// path') }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true },
  async run(input, { fs }) {
    const path = posix(input.path)
    await fs.mkdir(path, { recursive: true })
    return { structured: { path: vfs(path), created: true } }
  },
})

const twoPaths = type({
  source: type(vfsPath).describe('vfs:/// path to move or copy'),
  destination: type(vfsPath).describe('vfs:/// target path (the new name, not a folder to put it in)'),
  'overwrite?': type('boolean').describe('replace an existing destination (it goes to the trash)'),
})

export const moveTool = defineTool({
  name: 'move',
  title: 'Move or rename',
  description:
    'Move or rename a file or folder (one metadata change, instant even for big folders). Fails with EEXIST if the destination exists unless overwrite is true. Parent folders of the destination are created.',
  input: twoPaths,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false },
  async run(input, { fs }) {
    const [from, to] = [posix(input.source), posix(input.destination)]
    if (!input.overwrite && from !== to && (await exists(fs, to)))
      throw new FsError('EEXIST', 'rename', from, to)
    await ensureParent(fs, to)
    await fs.mv(from, to)
    return { structured: { source: vfs(from), destination: vfs(to) } }
  },
})

export const copyTool = defineTool({
  name: 'copy',
  title: 'Copy',
  description:
    'Copy a file or a folder (recursively). Fails with EEXIST if the destination exists unless overwrite is true. Parent folders of the destination are created.',
  input: twoPaths,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false },
  async run(input, { fs }) {
    const [from, to] = [posix(input.source), posix(input.destination)]
    if (!input.overwrite && (await exists(fs, to))) throw new FsError('EEXIST', 'cp', from, to)
    await ensureParent(fs, to)
    await fs.cp(from, to, { recursive: true })
    return { structured: { source: vfs(from), destination: vfs(to) } }
  },
})

export const statTool = defineTool({
  name: 'stat',
  title: 'File info',
  description: 'Type, size, modification time, permissions and (for files) the content version of a path.',
  input: type({ path: type(vfsPath).describe('vfs:/// path') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs }) {
    const path = posix(input.path)
    const st = await fs.lstat(path)
    const version = st.isFile ? contentVersion(await fs.readFileBuffer(path)) : undefined
    return {
      structured: {
        path: vfs(path),
        type: kind(st),
        size: st.size,
        mtime: st.mtime.toISOString(),
        mode: `0${(st.mode & 0o7777).toString(8)}`,
        ...(version ? { version } : {}),
        ...(st.isSymbolicLink ? { target: await fs.readlink(path) } : {}),
      },
    }
  },
})

export const listDirectory = defineTool({
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

export const treeTool = defineTool({
  name: 'tree',
  title: 'Folder tree',
  description: 'The folder tree below a path, down to depth levels (default 3). Folders end with /.',
  input: type({ path: type(vfsPath).describe('vfs:/// path of a folder'), 'depth?': 'number.integer >= 1' }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async run(input, { fs, options }) {
    const root = posix(input.path)
    const depth = input.depth ?? 3
    const lines: string[] = [vfs(root)]
    let count = 0
    const walk = async (dir: string, prefix: string, level: number) => {
      // System folders of the bash tool are not part of the workspace.
      const entries = (await fs.readdirWithFileTypes(dir)).filter(
        (e) => dir !== '/' || !SYSTEM_ROOTS.includes(e.name),
      )
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!
        if (++count > options.maxResults) return
        const last = i === entries.length - 1
        lines.push(`${prefix}${last ? '└── ' : '├── '}${e.name}${e.isDirectory ? '/' : ''}`)
        if (e.isDirectory && level < depth)
          await walk(
            dir === '/' ? `/${e.name}` : `${dir}/${e.name}`,
            `${prefix}${last ? '    ' : '│   '}`,
            level + 1,
          )
      }
    }
    await walk(root, '', 1)
    const cut = count > options.maxResults
    return {
      structured: { path: vfs(root), tree: lines.join('\n'), truncated: cut },
      text: `${lines.join('\n')}${cut ? `\n… [more than ${options.maxResults} entries: use a deeper path or a smaller depth]` : ''}`,
    }
  },
})
