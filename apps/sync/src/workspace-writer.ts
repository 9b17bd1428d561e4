/**
 * The one way disk content enters the workspace (`writeFromDisk`), so the
 * strategy lives in one place.
 *
 * It uses core's `fs.write` with an explicit base: the text the daemon last
 * synced for this path (from its persisted state, so it survives restarts).
 * When the workspace still holds the base, the disk text is written as the
 * smallest edit (Markdown through its codec). When someone changed the
 * workspace meanwhile, core merges three-way inside its write queue, so no
 * edit can slip in between a read and the write: non-overlapping edits all
 * survive; where both changed the same lines the disk version wins and the
 * replaced workspace content is kept as a history version (`conflict`).
 *
 * After a merge the workspace holds neither side exactly; the result is
 * returned so the caller can write it back to disk.
 */
import { decodeTextOrBinary, type YjsFileSystem } from '@yfs/core'

export interface DiskWrite {
  /** What the disk holds now. */
  bytes: Uint8Array
  /** Text at the last sync, when known and text. */
  base: string | undefined
}

export interface DiskWriteResult {
  /** What the workspace holds afterwards (differs from `bytes` after a merge). */
  bytes: Uint8Array
  /** The workspace had changed too; the result combines both. */
  merged: boolean
  /** Both changed the same region: the disk version won there, the workspace's is a history version. */
  conflict: boolean
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.byteLength === b.byteLength && Buffer.compare(a, b) === 0
}

/** Write disk bytes into the workspace file at `path` (which must have a parent folder). */
export async function writeFromDisk(
  fs: YjsFileSystem,
  path: string,
  write: DiskWrite,
): Promise<DiskWriteResult> {
  const text = decodeTextOrBinary(write.bytes)
  const report = await fs.write(
    path,
    text ?? write.bytes,
    write.base === undefined ? {} : { base: { text: write.base } },
  )
  if (!report.merged) return { bytes: write.bytes, merged: false, conflict: false }
  const now = new Uint8Array(await fs.readFileBuffer(path))
  return { bytes: now, merged: !sameBytes(now, write.bytes), conflict: report.conflict }
}
