/**
 * Small reads of the disk the daemon's passes share: a file's bytes (as a
 * plain Uint8Array), whether a path exists, and byte equality. A path that
 * went (or became a folder) since it was looked at is an answer, not an
 * error: the passes look at the disk again rather than trust an event.
 */
import { lstat, readFile } from 'node:fs/promises'

/** True when `a` and `b` hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0
}

/** The bytes of the file at `host`; undefined when it is gone (or is a folder now). */
export async function readBytes(host: string): Promise<Uint8Array | undefined> {
  try {
    // A plain Uint8Array view: yjs stores binary only when `constructor === Uint8Array` (not Buffer).
    const buffer = await readFile(host)
    return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
  } catch (error) {
    // Gone (or replaced by a folder) since we looked: nothing to read.
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return undefined
    throw error
  }
}

/** True when something (a file, folder or symlink, not followed) is at `host`. */
export async function exists(host: string): Promise<boolean> {
  try {
    await lstat(host)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return false
    throw error
  }
}
