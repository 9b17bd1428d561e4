/**
 * Small reads of the disk the daemon's passes share: a file's bytes (as a
 * plain Uint8Array), whether a path exists, and byte equality. A path that
 * went (or became a folder) since it was looked at is an answer, not an
 * error: the passes look at the disk again rather than trust an event.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { lstat } from 'node:fs/promises'

/** True when `a` and `b` hold the same bytes. */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0
}

/** Reads of a file that kept changing while it was read, before the last one is taken as it is. */
const MAX_READS = 4

/**
 * The bytes of the file at `host` as one version of it: never part of one save and part of
 * another. Undefined when it is gone, or is not a file (a folder now, a FIFO).
 *
 * Synchronous, as `inspect`'s reads and a write's last check (disk-writer.ts) are: Node's
 * asynchronous readFile takes the file's size (fstat) and then reads that many bytes, each a
 * thread-pool step with the event loop running in between, so a save landing between the two
 * (an editor in this process, or any writer) gave the new bytes cut at the old size (or the old
 * ones padded from the new): a text no one wrote, which the daemon merged into the workspace and
 * took as the synced base (lines cut short, the workspace's concurrent edits lost in the merge).
 * Here the file is read to its end, and a writer in another process that saves during the read is
 * seen in the file's size and times, compared before and after: the file is read again then.
 */
export function readBytes(host: string): Uint8Array | undefined {
  let bytes: Uint8Array | undefined
  for (let attempt = 0; attempt < MAX_READS; attempt++) {
    let fd: number
    try {
      // Non-blocking: opening a FIFO for reading would wait for a writer (regular files are unaffected).
      fd = openSync(host, constants.O_RDONLY | constants.O_NONBLOCK)
    } catch (error) {
      if (isGone(error)) return undefined
      throw error
    }
    try {
      const before = fstatSync(fd, { bigint: true })
      if (!before.isFile()) return undefined
      bytes = readToEnd(fd, Number(before.size))
      const after = fstatSync(fd, { bigint: true })
      if (
        after.size === BigInt(bytes.byteLength) &&
        after.mtimeNs === before.mtimeNs &&
        after.ctimeNs === before.ctimeNs
      )
        return bytes
    } catch (error) {
      // Gone (or replaced by a folder) since it was opened.
      if (isGone(error)) return undefined
      throw error
    } finally {
      closeSync(fd)
    }
  }
  return bytes
}

/** Everything `fd` holds from its start, however long it is now (`size` is a first guess). */
function readToEnd(fd: number, size: number): Uint8Array {
  // A plain Uint8Array (not a pooled Buffer): yjs stores binary only when `constructor === Uint8Array`.
  // One byte more than the guess, so a file that grew meanwhile is read on, not cut.
  let buffer = new Uint8Array(size + 1)
  let length = 0
  for (;;) {
    if (length === buffer.byteLength) {
      const bigger = new Uint8Array(buffer.byteLength * 2)
      bigger.set(buffer)
      buffer = bigger
    }
    const n = readSync(fd, buffer, length, buffer.byteLength - length, length)
    if (n === 0) return buffer.subarray(0, length)
    length += n
  }
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR'
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
