/**
 * stat: type, size, mtime, mode and (files) content version of a path.
 */
import { type } from 'arktype'
import { defineTool } from '../../tool.js'
import { contentVersion, kind, posix, vfs, vfsPath } from '../shared.js'

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
