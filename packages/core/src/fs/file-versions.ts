/**
 * A file's history (`fs.history`, `fs.diff`, `fs.restore`, …): the versions
 * stored in its content doc (history/file-history.ts), read and recorded
 * through this filesystem's codecs and stamped with its author.
 *
 * History is never rewritten: a restore writes the old content as a new
 * change with a `restore` version. System paths have no history (ENOSYS).
 */
import { createTwoFilesPatch } from 'diff'
import { latin1FromBytes } from '../encoding.js'
import { FsError } from '../errors.js'
import type { FileRow } from '../files-table.js'
import {
  type FileVersion,
  hasUnversionedChanges,
  listStoredVersions,
  toFileVersion,
} from '../history/file-history.js'
import * as paths from '../path.js'
import { contentSize, recordPendingVersion, versionContent } from './content-codecs.js'
import { decodedState } from './decoded-states.js'
import { assertWritable, exclusive, FS_ORIGIN, type FsContext } from './fs-context.js'
import { fileAt } from './locate.js'
import { readFile } from './read-file.js'
import { baseStateOf, bulkUpdatesContent } from './write-batch.js'
import { contentPatch, seededVersion, writeContent } from './write-content.js'

/**
 * Versions of a file, oldest first. Pending editor edits are recorded first,
 * so the newest version is always the current content.
 */
export async function fileHistory(ctx: FsContext, path: string): Promise<FileVersion[]> {
  const row = fileAt(ctx, path, 'history')
  const handle = await ctx.pool.acquire(row.id)
  try {
    if (!ctx.readOnly && hasUnversionedChanges(handle.doc))
      recordPendingVersion(ctx, handle.doc, row.name, row.size, 'save')
    return listStoredVersions(handle.doc).map(toFileVersion)
  } finally {
    handle.release()
  }
}

/**
 * An explicit save (an editor's "save", the end of an agent's task): records a
 * `save` version if the file changed since its last version. Returns the newest version.
 */
export async function saveVersion(ctx: FsContext, path: string): Promise<FileVersion> {
  assertWritable(ctx, 'history', path)
  const row = fileAt(ctx, path, 'history')
  // In memory nothing changes a doc unseen (no peers): a version known without it has no
  // pending edits after it. With peers, their edits may reach the server before their row.
  if (ctx.lazyContent) {
    const known = knownNewestVersion(ctx, row)
    if (known) return known
  } else if (bulkUpdatesContent(ctx, row.id)) {
    // Its write will go without the doc too (write-batch.ts): read the version off the same state.
    const version = await newestVersionInState(ctx, row)
    if (version) return version
  }
  const handle = await ctx.pool.acquire(row.id)
  try {
    let last = listStoredVersions(handle.doc).at(-1)
    if (!last || hasUnversionedChanges(handle.doc))
      last = recordPendingVersion(ctx, handle.doc, row.name, contentSize(ctx, handle.doc, row.name), 'save')
    return toFileVersion(last)
  } finally {
    handle.release()
  }
}

/**
 * The newest version of `row`'s file in the state an overwrite without its doc builds on
 * (`baseStateOf`: pending, known while it holds every announced change, or fetched), when the
 * state has no edits after that version; `undefined` otherwise (the caller opens the doc, which
 * records them as a version).
 */
async function newestVersionInState(ctx: FsContext, row: FileRow): Promise<FileVersion | undefined> {
  const pending = ctx.batch.updates.get(row.id)?.content.version
  if (pending) return toFileVersion(pending)
  const state = await baseStateOf(ctx, row.id)
  if (state === undefined || ctx.pool.peek(row.id) !== undefined) return undefined
  // Kept for the write that follows on the same state (it decodes it no more).
  const doc = decodedState(ctx, row.id, state)
  const last = listStoredVersions(doc).at(-1)
  return last && !hasUnversionedChanges(doc) ? toFileVersion(last) : undefined
}

/**
 * A file's newest version when it is known without its doc: a seed nobody built (memory mode),
 * or the version a write here recorded last, while nothing changed the doc since (any other
 * change, or opening the doc, drops it: content-lifecycle.ts) and the row still announces the
 * state that write made (a peer's change announces another).
 */
function knownNewestVersion(ctx: FsContext, row: FileRow): FileVersion | undefined {
  const seeded = seededVersion(ctx, row.id)
  if (seeded) return seeded
  const newest = ctx.newestVersions.get(row.id)
  if (newest === undefined) return undefined
  if (newest.sv === row.sv) return toFileVersion(newest.version)
  ctx.newestVersions.delete(row.id)
  return undefined
}

/**
 * The newest recorded version of a file, without recording pending edits first (cheap: no
 * snapshot comparison); `undefined` when it has none. What a write just recorded, for callers
 * that log it (the agent's activity log).
 */
export async function latestVersion(ctx: FsContext, path: string): Promise<FileVersion | undefined> {
  const row = fileAt(ctx, path, 'history')
  const known = knownNewestVersion(ctx, row)
  if (known) return known
  const handle = await ctx.pool.acquire(row.id)
  try {
    const last = listStoredVersions(handle.doc).at(-1)
    return last && toFileVersion(last)
  } finally {
    handle.release()
  }
}

/** Text (or, for binary versions, bytes) of one version. Throws ENOENT for an unknown version id. */
export async function readVersionContent(
  ctx: FsContext,
  path: string,
  versionId: string,
): Promise<{ text?: string; bytes?: Uint8Array }> {
  const row = fileAt(ctx, path, 'history')
  const handle = await ctx.pool.acquire(row.id)
  try {
    const version = listStoredVersions(handle.doc).find((v) => v.id === versionId)
    if (!version)
      throw new FsError('ENOENT', 'history', path, undefined, `no version '${versionId}' of this file`)
    return versionContent(ctx, handle.doc, version, row.id, row.name)
  } finally {
    handle.release()
  }
}

/** Text of one version (binary versions come back latin1-encoded, one char per byte). */
export async function readVersion(ctx: FsContext, path: string, versionId: string): Promise<string> {
  const content = await readVersionContent(ctx, path, versionId)
  return content.text ?? latin1FromBytes(content.bytes ?? new Uint8Array())
}

/** Unified diff between two versions; `toVersion` omitted = the current content. */
export async function diffVersions(
  ctx: FsContext,
  path: string,
  fromVersion: string,
  toVersion?: string,
): Promise<string> {
  const before = await readVersion(ctx, path, fromVersion)
  const after = toVersion === undefined ? await readFile(ctx, path) : await readVersion(ctx, path, toVersion)
  const name = paths.resolve('/', path)
  return createTwoFilesPatch(`a${name}`, `b${name}`, before, after, fromVersion, toVersion ?? 'current')
}

/** Write an old version's content as a new change (history is never rewritten). Returns the new version. */
export async function restoreVersion(ctx: FsContext, path: string, versionId: string): Promise<FileVersion> {
  assertWritable(ctx, 'restore', path)
  const content = await readVersionContent(ctx, path, versionId)
  const row = fileAt(ctx, path, 'restore')
  return exclusive(ctx, async () => {
    const size = await writeContent(ctx, row.id, row.name, content, 'restore')
    ctx.table.update(row.id, contentPatch(ctx, row.id, size), FS_ORIGIN)
    const doc = ctx.pool.peek(row.id)
    const last = doc ? listStoredVersions(doc).at(-1) : undefined
    if (!last) throw new TypeError('restore did not record a version')
    return toFileVersion(last)
  })
}
