/**
 * A person typing: an edit made straight on a file's `Y.Text` (what an editor binding does), not
 * through the filesystem, so tests can put a person's keystrokes between an agent's calls.
 */
import { TEXT_KEY } from '../content/text-codec.js'
import type { YjsFileSystem } from '../fs/yjs-file-system.js'

/** Insert `insert` right after the first `after` in the text of `path` on `fs`. Throws when `after` is not there. */
export async function typeInto(
  fs: YjsFileSystem,
  path: string,
  after: string,
  insert: string,
): Promise<void> {
  const id = fs.index.lookup(path)
  if (id === undefined) throw new Error(`no file ${path}`)
  const handle = await fs.pool.acquire(id)
  try {
    const text = handle.doc.getText(TEXT_KEY)
    const at = text.toString().indexOf(after)
    if (at < 0) throw new Error(`'${after}' not in ${path}`)
    handle.doc.transact(() => text.insert(at + after.length, insert), 'editor')
  } finally {
    handle.release()
  }
}
