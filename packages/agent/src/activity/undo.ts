/**
 * Undo: take back what a session (or one entry) of the activity log did, as
 * new changes, newest entry first and, within an entry, last file first.
 *
 * Per file change (see ActivityFileChange):
 * - an edit is reverted line by line: a three-way merge with what the call
 *   wrote (`after`) as the base, the current text as ours and the text before
 *   the call (`before`) as theirs. Lines changed since by anyone else win
 *   over the revert and are reported as conflicts, with the version ids to
 *   compare; binary files are reverted only when unchanged since.
 * - a create is trashed, when its content is still what the call left (a
 *   folder: when nothing but what the undo trashed is in it);
 * - a delete is restored from the trash (deleted for good: reported);
 * - a move or rename is moved back, when the file is still where the call
 *   put it and its old place is free.
 *
 * The rule for "someone else changed it": the file (or its placement) is no
 * longer what the call left. Nothing is overwritten in that case; the report
 * says what was kept. A dry run walks the same steps on an overlay (paths,
 * texts and trash state as the undo would leave them) and writes nothing.
 *
 * The undo runs as a tool call, so it is itself an activity entry (with its
 * own before/after versions) and can be undone the same way.
 */
import {
  type ActivityEntry,
  type ActivityFileChange,
  asFileId,
  decodeTextOrBinary,
  type FileId,
  isFsError,
  mergeText,
  paths,
  type UnitRange,
  type YjsFileSystem,
} from '@yfs/core'

export interface UndoAction {
  entry: string
  action: 'revert' | 'trash' | 'restore' | 'move'
  path: string
  /** For a move back: where it was. */
  from?: string
}

export interface UndoConflict {
  entry: string
  path: string
  /** What was kept, and why. */
  reason: string
  /** Lines of the current text kept over the revert (edits). */
  lines?: UnitRange[]
  /** Version the undone call left (`after`) and the one it started from (`before`): compare with `diff`. */
  session_version?: string
  before_version?: string
}

export interface UndoReport {
  dry_run: boolean
  entries: string[]
  reverted: UndoAction[]
  conflicts: UndoConflict[]
}

/** What the undo has done so far (or, in a dry run, would have): consulted before the filesystem. */
interface Overlay {
  path: Map<FileId, string | undefined>
  text: Map<FileId, string>
}

const same = (a: Uint8Array, b: Uint8Array) => a.byteLength === b.byteLength && a.every((v, i) => v === b[i])

/** Undo `entries` (any order: sorted newest first here) on `fs`. */
export async function undoEntries(
  fs: YjsFileSystem,
  entries: readonly ActivityEntry[],
  dryRun: boolean,
): Promise<UndoReport> {
  const report: UndoReport = { dry_run: dryRun, entries: [], reverted: [], conflicts: [] }
  const overlay: Overlay = { path: new Map(), text: new Map() }
  const pathOf = (id: FileId) => pathIn(fs, overlay, id)
  // Callers pass the log's listing (newest first, ties in its order); a stable sort keeps that order.
  const ordered = [...entries].sort((a, b) => b.time - a.time)
  for (const entry of ordered) {
    report.entries.push(entry.id)
    for (const change of [...entry.files].reverse()) {
      const conflict = (reason: string, extra: Partial<UndoConflict> = {}) =>
        report.conflicts.push({ entry: entry.id, path: change.path, reason, ...extra })
      const id = asFileId(change.id)
      const row = fs.table.get(id)
      if (!row) {
        conflict('deleted for good since (the trash was emptied): nothing to take back')
        continue
      }
      if (change.deleted) {
        await undoDelete(fs, entry, change, id, overlay, dryRun, report, conflict)
        continue
      }
      const now = pathOf(id)
      if (now === undefined) {
        conflict('in the trash now (deleted since): left there')
        continue
      }
      if (change.created) {
        await undoCreate(fs, entry, change, id, now, overlay, dryRun, report, conflict)
        continue
      }
      if (change.before && change.after)
        await undoEdit(fs, entry, change, id, now, overlay, dryRun, report, conflict)
      if (change.from) await undoMove(fs, entry, change, id, now, overlay, dryRun, report, conflict)
    }
  }
  return report
}

type Conflict = (reason: string, extra?: Partial<UndoConflict>) => void

/** Current text or bytes of file `id` (the overlay's text first). */
async function current(fs: YjsFileSystem, id: FileId, overlay: Overlay) {
  const text = overlay.text.get(id)
  if (text !== undefined) return { text }
  const bytes = await fs.readFileBuffer(realPath(fs, id))
  const decoded = decodeTextOrBinary(bytes)
  return decoded === undefined ? { bytes } : { text: decoded }
}

/** Where file `id` really is (reads go there, also in a dry run that has moved it in its overlay). */
function realPath(fs: YjsFileSystem, id: FileId): string {
  const path = fs.index.pathOf(id)
  if (path === undefined) throw new TypeError(`file ${id} has no path`)
  return path
}

async function undoEdit(
  fs: YjsFileSystem,
  entry: ActivityEntry,
  change: ActivityFileChange,
  id: FileId,
  path: string,
  overlay: Overlay,
  dryRun: boolean,
  report: UndoReport,
  conflict: Conflict,
): Promise<void> {
  const versions = { session_version: change.after!, before_version: change.before! }
  let before: { text?: string; bytes?: Uint8Array }
  let after: { text?: string; bytes?: Uint8Array }
  if (fs.index.pathOf(id) === undefined) {
    // Only in a dry run: restored in the overlay, not yet for real; the restore brings this content back.
    report.reverted.push({ entry: entry.id, action: 'revert', path })
    return
  }
  try {
    before = await fs.readVersionContent(realPath(fs, id), change.before!)
    after = await fs.readVersionContent(realPath(fs, id), change.after!)
  } catch (error) {
    if (!isFsError(error)) throw error
    conflict(`its versions cannot be read (${error.code}): left as it is`, versions)
    return
  }
  const now = await current(fs, id, overlay)
  if (before.text === undefined || after.text === undefined || now.text === undefined) {
    const unchanged =
      now.bytes && after.bytes
        ? same(now.bytes, after.bytes)
        : now.text !== undefined && now.text === after.text
    if (!unchanged) {
      conflict('changed since by someone else (binary): left as it is', versions)
      return
    }
    if (!dryRun) await fs.write(path, before.bytes ?? before.text ?? '')
    report.reverted.push({ entry: entry.id, action: 'revert', path })
    return
  }
  const merged = mergeText(after.text, now.text, before.text)
  if (merged.conflicts.length)
    conflict('lines changed since by someone else were kept', {
      ...versions,
      lines: merged.conflicts.map((c) => c.lines),
    })
  if (merged.text === now.text) return
  if (dryRun) overlay.text.set(id, merged.text)
  else await fs.write(path, merged.text)
  report.reverted.push({ entry: entry.id, action: 'revert', path })
}

async function undoCreate(
  fs: YjsFileSystem,
  entry: ActivityEntry,
  change: ActivityFileChange,
  id: FileId,
  path: string,
  overlay: Overlay,
  dryRun: boolean,
  report: UndoReport,
  conflict: Conflict,
): Promise<void> {
  if (change.type === 'folder') {
    const left = [...fs.index.allChildren(id)].filter((c) => pathIn(fs, overlay, c) !== undefined)
    if (left.length) {
      conflict('the folder holds files the undo does not remove: left in place')
      return
    }
  } else if (change.type === 'file' && change.after) {
    const now = await current(fs, id, overlay)
    let after: { text?: string; bytes?: Uint8Array }
    try {
      after = await fs.readVersionContent(realPath(fs, id), change.after)
    } catch (error) {
      if (!isFsError(error)) throw error
      after = {}
    }
    const unchanged =
      now.text !== undefined
        ? now.text === after.text
        : !!(now.bytes && after.bytes && same(now.bytes, after.bytes))
    if (!unchanged) {
      conflict('changed since by someone else: not trashed', { session_version: change.after })
      return
    }
  }
  if (dryRun) overlay.path.set(id, undefined)
  else await fs.rm(path, { recursive: change.type === 'folder' })
  report.reverted.push({ entry: entry.id, action: 'trash', path })
}

const pathIn = (fs: YjsFileSystem, overlay: Overlay, id: FileId) =>
  overlay.path.has(id) ? overlay.path.get(id) : fs.index.pathOf(id)

async function undoDelete(
  fs: YjsFileSystem,
  entry: ActivityEntry,
  change: ActivityFileChange,
  id: FileId,
  overlay: Overlay,
  dryRun: boolean,
  report: UndoReport,
  conflict: Conflict,
): Promise<void> {
  if (pathIn(fs, overlay, id) !== undefined) {
    conflict('already back (restored since): left as it is')
    return
  }
  // Hidden by a trashed folder above it (`rm -r`): it comes back with that folder.
  if (fs.table.get(id)?.trashedAt === null) return
  if (dryRun) {
    overlay.path.set(id, change.path)
    report.reverted.push({ entry: entry.id, action: 'restore', path: change.path })
    return
  }
  let back: string
  try {
    back = fs.trash.restore(id)
  } catch (error) {
    if (!isFsError(error)) throw error
    conflict(`cannot be restored (${error.code}): left in the trash`)
    return
  }
  report.reverted.push({ entry: entry.id, action: 'restore', path: back })
  if (back !== change.path) conflict(`its place is taken: restored as ${back}`)
}

async function undoMove(
  fs: YjsFileSystem,
  entry: ActivityEntry,
  change: ActivityFileChange,
  id: FileId,
  now: string,
  overlay: Overlay,
  dryRun: boolean,
  report: UndoReport,
  conflict: Conflict,
): Promise<void> {
  const from = change.from!
  if (now !== change.path) {
    conflict(`moved since to ${now}: left there`)
    return
  }
  const taken = fs.index.lookup(from)
  if (taken !== undefined && pathIn(fs, overlay, taken) === from) {
    conflict(`its old place ${from} is taken: left at ${now}`)
    return
  }
  if (dryRun) overlay.path.set(id, from)
  else {
    const parent = paths.dirname(from)
    if (parent !== '/') await fs.mkdir(parent, { recursive: true })
    await fs.mv(now, from)
  }
  report.reverted.push({ entry: entry.id, action: 'move', path: from, from: now })
}
