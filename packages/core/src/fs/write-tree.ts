/**
 * `fs.writeTree`: bulk-load.ts run against this filesystem. Bulk loads
 * live in bulk-load.ts with their own checks; this module only hands them
 * the filesystem's table, index, limits, path resolution and content
 * writers, and tags the rows' change events with the load's id.
 */
import { FsError } from '../errors.js'
import { type BulkEntry, type BulkLoadResult, bulkLoad } from './bulk-load.js'
import { assertWritable, exclusive, FS_ORIGIN, type FsContext } from './fs-context.js'
import { isSystemPath, locate } from './locate.js'
import { contentPatch, createContents, toContentValue, writeContent } from './write-content.js'

/**
 * Write a whole tree at once (imports, the disk daemon's ingest, checkpoint restores):
 * all or nothing, content first, every row in one main-doc transaction, events tagged
 * with the returned `transactionId`. Throws the first failing entry's FsError (with
 * `opIndex`) and changes nothing. See bulk-load.ts.
 * @example
 * await fs.writeTree([{ path: '/src/a.ts', content: 'x' }, { path: '/empty', folder: true }])
 */
export async function writeTree(ctx: FsContext, entries: readonly BulkEntry[]): Promise<BulkLoadResult> {
  assertWritable(ctx, 'open', '/')
  return exclusive(ctx, () => writeTreeNow(ctx, entries))
}

/** `writeTree` for callers that already hold the filesystem's exclusive queue (cp -r). */
export function writeTreeNow(ctx: FsContext, entries: readonly BulkEntry[]): Promise<BulkLoadResult> {
  return bulkLoad(
    {
      table: ctx.table,
      index: ctx.index,
      limits: ctx.limits,
      origin: FS_ORIGIN,
      clock: ctx.clock,
      isSystemPath,
      locate: (path, syscall, original) => {
        const loc = locate(ctx, path, true, syscall, original)
        if (loc.kind === 'system') throw new FsError('EACCES', syscall, original)
        return loc.id
      },
      toContent: (content) => toContentValue(content, 'utf8'),
      createContents: (files) => createContents(ctx, files),
      replaceContent: (id, name, value) => writeContent(ctx, id, name, value),
      contentPatch: (id, size) => contentPatch(ctx, id, size),
      tagEvents: (transactionId, fn) => {
        ctx.transactionId = transactionId
        try {
          fn()
        } finally {
          ctx.transactionId = undefined
        }
      },
    },
    entries,
  )
}
