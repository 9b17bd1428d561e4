/**
 * The one way disk content enters the workspace (`writeFromDisk`), so the
 * strategy can change in one place.
 *
 * Today: when the workspace file is unchanged since the last sync, a plain
 * `fs.writeFile` (core applies the smallest edit: common prefix/suffix and
 * a line diff, Markdown through its codec). When both changed, a three-way
 * merge against the last synced text (`merge.ts`) and a write of the
 * result, so an edit made in the workspace meanwhile survives.
 *
 * Known gap: between reading the workspace text and writing the merge,
 * another edit can arrive and would be diffed away. The stale-writes work
 * (issue 11) adds a core write against an explicit base that closes this
 * window; switch `writeFromDisk` over to it when it lands.
 */
import { decodeTextOrBinary, isFsError, type YjsFileSystem } from '@yfs/core'
import { mergeText } from './merge.js'

export interface DiskWrite {
  /** What the disk holds now. */
  bytes: Uint8Array
  /** Text at the last sync, when known and text. */
  base: string | undefined
  /** True when the workspace row has not changed since the last sync. */
  workspaceUnchanged: boolean
}

export interface DiskWriteResult {
  /** What the workspace holds afterwards (differs from `bytes` after a merge). */
  bytes: Uint8Array
  merged: boolean
  /** The merge had overlapping changes: both sides kept between markers. */
  conflict: boolean
}

const encoder = new TextEncoder()

/** Write disk bytes into the workspace file at `path` (which must have a parent folder). */
export async function writeFromDisk(
  fs: YjsFileSystem,
  path: string,
  write: DiskWrite,
): Promise<DiskWriteResult> {
  const text = decodeTextOrBinary(write.bytes)
  if (text === undefined || write.workspaceUnchanged || write.base === undefined) {
    await fs.writeFile(path, text ?? write.bytes)
    return { bytes: write.bytes, merged: false, conflict: false }
  }
  let current: string
  try {
    current = decodeTextOrBinary(await fs.readFileBuffer(path)) ?? ''
  } catch (error) {
    // The file is gone from the workspace: the disk content simply creates it again.
    if (!isFsError(error) || error.code !== 'ENOENT') throw error
    await fs.writeFile(path, text)
    return { bytes: write.bytes, merged: false, conflict: false }
  }
  const result = mergeText(write.base, text, current)
  await fs.writeFile(path, result.text)
  return { bytes: encoder.encode(result.text), merged: result.text !== text, conflict: result.conflict }
}
