/**
 * A canonical, comparable dump of a filesystem: every visible path with its
 * type and content (symlinks as their target). Two replicas that converged
 * have equal snapshots.
 */
import type { YjsFileSystem } from '../fs/yjs-file-system.js'

export async function snapshotFileSystem(fs: YjsFileSystem): Promise<string[]> {
  const out: string[] = []
  for (const path of fs.index.allPaths()) {
    const st = await fs.lstat(path)
    if (st.isDirectory) out.push(`${path}/`)
    else if (st.isSymbolicLink) out.push(`${path} -> ${await fs.readlink(path)}`)
    else out.push(`${path} = ${JSON.stringify(await fs.readFile(path, 'binary'))}`)
  }
  return out
}
