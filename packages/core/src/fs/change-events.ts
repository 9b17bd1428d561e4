/**
 * Change events (`fs.watch`, `fs.on`): row changes of the files table, local
 * and remote, turned into `write` / `mkdir` / `rename` / `delete` / `restore`
 * events with paths, plus the `merge` / `conflict` events of stale writes.
 *
 * The index listener that feeds them is attached only while someone
 * watches: every change costs a path walk. Events of a transaction or bulk
 * load carry its `transactionId` (set on the context while its rows land).
 */
import type { FileRowChange, FileRowChangeSource } from '../files-table.js'
import type { FileId } from '../ids.js'
import type { FsEventHandler, FsEventType } from './events.js'
import type { FsContext } from './fs-context.js'
import type { WriteReport } from './stale-write.js'

/** Subscribe to change events (local and remote); returns an unsubscribe. */
export function watchChanges(ctx: FsContext, handler: FsEventHandler): () => void {
  ctx.unsubscribe ??= ctx.index.onChange((changes, oldPaths, tr) => emitRowEvents(ctx, changes, oldPaths, tr))
  const off = ctx.events.subscribe(handler)
  return () => {
    off()
    if (!ctx.events.active) {
      ctx.unsubscribe?.()
      ctx.unsubscribe = undefined
    }
  }
}

/** Subscribe to one kind of change event; returns an unsubscribe. */
export function watchChangesOfType(ctx: FsContext, type: FsEventType, handler: FsEventHandler): () => void {
  return watchChanges(ctx, (e) => {
    if (e.type === type) handler(e)
  })
}

/**
 * Change events for the rows of one main-doc transaction (the index hands over the old paths).
 * Each event is one object literal of the same shape: spreading a shared base into each cost
 * more than the rest of a watched write (a batch of 10,000 new files 1.4× slower).
 */
function emitRowEvents(
  ctx: FsContext,
  changes: Map<FileId, FileRowChange>,
  oldPaths: ReadonlyMap<FileId, string | undefined>,
  tr: FileRowChangeSource,
): void {
  if (!ctx.events.active) return
  const origin = tr.local ? 'local' : 'remote'
  const transactionId = ctx.transactionId
  changes.forEach(({ before, after }, id) => {
    const oldPath = oldPaths.get(id)
    const path = after ? ctx.index.pathOf(id) : undefined
    const size = after?.size
    let type: FsEventType | undefined
    if (path !== undefined && oldPath === undefined) {
      const restored = before !== undefined && before.trashedAt !== null && after!.trashedAt === null
      type = restored ? 'restore' : after!.type === 'folder' ? 'mkdir' : 'write'
    } else if (path === undefined && oldPath !== undefined) {
      ctx.events.emit({ id, origin, size, transactionId, type: 'delete', path: oldPath })
      return
    } else if (path !== undefined && oldPath !== undefined) {
      if (path !== oldPath) {
        ctx.events.emit({ id, origin, size, transactionId, type: 'rename', path, oldPath })
        return
      }
      if (
        before &&
        after &&
        (before.size !== after.size || before.updatedAt !== after.updatedAt) &&
        after.type === 'file'
      )
        type = 'write'
    }
    if (type !== undefined) ctx.events.emit({ id, origin, size, transactionId, type, path: path! })
  })
}

/** `merge` / `conflict` event of a stale write (after its `write` event). */
export function emitMergeEvent(ctx: FsContext, id: FileId, report: WriteReport): void {
  if (!ctx.events.active || !report.merged) return
  const base = {
    id,
    origin: 'local',
    path: report.path,
    size: report.size,
    transactionId: ctx.transactionId,
  } as const
  if (!report.conflict) ctx.events.emit({ ...base, type: 'merge' })
  else
    ctx.events.emit({
      ...base,
      type: 'conflict',
      conflicts: report.conflicts,
      versionId: report.replacedVersion?.id,
    })
}
