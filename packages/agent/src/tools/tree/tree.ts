/**
 * tree: the folder tree below a path, to a depth, capped.
 */
import { SYSTEM_ROOTS } from '@yfs/core'
import { type } from 'arktype'
import { defineTool } from '../../tool.js'
import { posix, vfs, vfsPath } from '../shared.js'

export const treeTool = defineTool({
  name: 'tree',
  title: 'Folder tree',
  description: 'The folder tree below a path, down to depth levels (default 3). Folders end with /.',
  input: type({
    path: type(vfsPath).describe('vfs:/// path of a folder'),
    'depth?': type('number.integer >= 1').describe('levels to show (default 3)'),
  }),
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
