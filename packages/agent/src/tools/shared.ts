/** Helpers shared by the tools: path arguments, content versions, text classification. */
import { createHash } from 'node:crypto'
import {
  type ConflictRegion,
  decodeTextOrBinary,
  FsError,
  isFsError,
  type WriteReport,
  type YjsFileSystem,
} from '@yfs/core'
import { type } from 'arktype'
import { fromVfsPath, toVfsPath } from '../vfs-path.js'

/** A path argument: a vfs:/// URL, validated and normalised. */
export const vfsPath = 'string > 0'

export const posix = fromVfsPath
export const vfs = toVfsPath

/** Content version of a file: a hash of its bytes, so any change gives a new version. */
export function contentVersion(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}`
}

/** Text of a file, or undefined with its bytes when the file is binary. */
export async function readTextOrBinary(
  fs: YjsFileSystem,
  path: string,
): Promise<{ text?: string; bytes: Uint8Array }> {
  const bytes = await fs.readFileBuffer(path)
  const text = decodeTextOrBinary(bytes)
  return text === undefined ? { bytes } : { text, bytes }
}

/** Create the parent folders of `path`; ENOTDIR (for `path`) when one of them is a file. */
export async function ensureParent(fs: YjsFileSystem, path: string): Promise<void> {
  const parent = path.slice(0, path.lastIndexOf('/')) || '/'
  if (parent === '/') return
  try {
    await fs.mkdir(parent, { recursive: true })
  } catch (error) {
    // mkdir -p says EEXIST when a component is a file; for the file being written that is ENOTDIR.
    if (isFsError(error, 'EEXIST')) throw new FsError('ENOTDIR', 'open', path)
    throw error
  }
}

/** True when something (file, folder or link) is at `path`. */
export async function exists(fs: YjsFileSystem, path: string): Promise<boolean> {
  return fs.lstat(path).then(
    () => true,
    () => false,
  )
}

/** Said when a codec stored different text than a tool wrote, so the model re-reads before editing. */
export const NORMALIZED_NOTE =
  "the stored text differs from the text written: this file type is kept in a structured form (markdown is re-serialised, e.g. '* item' becomes '- item'); read_file before edit_file"

/**
 * The result of a tool that wrote a file: its vfs path, size and new content
 * version; with `normalized` and a note when the stored text is not `intended`.
 */
export async function writtenFile(
  fs: YjsFileSystem,
  path: string,
  intended?: string,
): Promise<{ structured: Record<string, unknown> }> {
  const bytes = await fs.readFileBuffer(path)
  const normalized = intended !== undefined && decodeTextOrBinary(bytes) !== intended
  return {
    structured: {
      path: vfs(path),
      size: bytes.byteLength,
      version: contentVersion(bytes),
      ...(normalized ? { normalized: true, note: NORMALIZED_NOTE } : {}),
    },
  }
}

/** The type word of a stat: file, folder or symlink. */
export const kind = (st: { isDirectory: boolean; isSymbolicLink: boolean }) =>
  st.isSymbolicLink ? 'symlink' : st.isDirectory ? 'folder' : 'file'

/** Input of move and copy. */
export const twoPaths = type({
  source: type(vfsPath).describe('vfs:/// path to move or copy'),
  destination: type(vfsPath).describe('vfs:/// target path (the new name, not a folder to put it in)'),
  'overwrite?': type('boolean').describe('replace an existing destination (it goes to the trash)'),
})

/** Input of write_file, create_file and append_file. */
export const writeInput = type({
  path: type(vfsPath).describe('vfs:/// path of the file'),
  content: type('string').describe('the whole new content'),
})

/** A stale write as the tools report it (from `fs.write`, a transaction, or a bash run). */
export interface MergeInfo {
  path: string
  conflict: boolean
  conflicts: ConflictRegion[]
  versionId?: string
}

const lineRange = ({ start, count }: { start: number; count: number }) =>
  count === 0
    ? `at line ${start} (removed)`
    : count === 1
      ? `line ${start}`
      : `lines ${start}-${start + count - 1}`

/** What a tool says after a write that merged changes made since the file was last read. */
export function mergeNote(m: MergeInfo): string {
  const file = vfs(m.path)
  const head = `${file} had changed since you last read it (someone else edited it); your write was merged with those changes`
  if (!m.conflict)
    return `${head}, and nothing of theirs was overwritten. Read the file again before editing it further.`
  const where = m.conflicts.length ? m.conflicts.map((c) => lineRange(c.lines)).join(', ') : 'the whole file'
  const back = m.versionId
    ? ` The text you replaced is kept as version ${m.versionId}: see it with diff (path ${file}, from_version ${m.versionId}) or bring it back with checkout_version.`
    : ''
  return `${head}, but both changed ${where}: your version was kept there.${back}`
}

/** Structured form of a merge for tool results. */
export function mergeData(m: MergeInfo): Record<string, unknown> {
  return {
    path: vfs(m.path),
    conflict: m.conflict,
    ...(m.conflict ? { conflicts: m.conflicts } : {}),
    ...(m.versionId ? { replaced_version: m.versionId } : {}),
  }
}

/** A write report as MergeInfo (undefined when nothing was merged). */
export function mergeOf(r: WriteReport): MergeInfo | undefined {
  if (!r.merged) return undefined
  return { path: r.path, conflict: r.conflict, conflicts: r.conflicts, versionId: r.replacedVersion?.id }
}
