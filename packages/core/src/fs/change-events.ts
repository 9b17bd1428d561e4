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
import type { FsEvent, FsEventHandler, FsEventType } from './events.js'
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

/** Change events for the rows of one main-doc transaction (the index hands over the old paths). */
function emitRowEvents(
  ctx: FsContext,
  changes: Map<FileId, FileRowChange>,
  oldPaths: Map<FileId, string | undefined>,
  tr: FileRowChangeSource,
): void {
  if (!ctx.events.active) return
  const origin = tr.local ? 'local' : 'remote'
  for (const [id, { before, after }] of changes) {
    const oldPath = oldPaths.get(id)
    const path = after ? ctx.index.pathOf(id) : undefined
    const base = { id, origin, size: after?.size, transactionId: ctx.transactionId } as const
    let event: FsEvent | undefined
    if (path !== undefined && oldPath === undefined) {
      const restored = before !== undefined && before.trashedAt !== null && after!.trashedAt === null
      event = { ...base, type: restored ? 'restore' : after!.type === 'folder' ? 'mkdir' : 'write', path }
    } else if (path === undefined && oldPath !== undefined) {
      event = { ...base, type: 'delete', path: oldPath }
    } else if (path !== undefined && oldPath !== undefined) {
      if (path !== oldPath) event = { ...base, type: 'rename', path, oldPath }
      else if (
        before &&
        after &&
        (before.size !== after.size || before.updatedAt !== after.updatedAt) &&
        after.type === 'file'
      )
        event = { ...base, type: 'write', path }
    }
    if (event) ctx.events.emit(event)
  }
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
