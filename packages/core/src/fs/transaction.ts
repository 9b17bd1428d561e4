/**
 * Atomic multi-operation transactions (seed 001), all or nothing.
 *
 * How: every op runs first on a *staging* filesystem, a private copy of the
 * main doc whose content docs are copied from the live ones on first use.
 * The staging run uses the same code as ordinary calls, so it validates
 * exactly like them. If any op fails, the staging copy is thrown away and
 * the live workspace, its indexes and its events are untouched; the error
 * is the failing op's own `FsError`, with `opIndex` set.
 *
 * If every op succeeds, the result is applied to the live workspace:
 * 1. content first: each changed file's content doc gets its final content
 *    as one Yjs transaction (smallest edit + one history version);
 * 2. then every row change (creates, renames, moves, trash) in ONE main-doc
 *    transaction, which peers receive as one update.
 *
 * What a peer can observe: never a partial tree (all row changes arrive in
 * one update), never a row of a new file without its content (content goes
 * first). Between step 1 and step 2 a peer that has a changed *existing*
 * file open can see its new content under its old path, for as long as the
 * main-doc update takes to arrive; content docs are separate Yjs documents,
 * so no single Yjs update can span them.
 */

import type { FileContent } from 'just-bash'
import { nanoid } from 'nanoid'
import * as Y from 'yjs'
import { readBinary } from '../content/binary.js'
import { textCodec } from '../content/text-codec.js'
import { eisdir, enotdir, FsError } from '../errors.js'
import type { FileRow } from '../files-table.js'
import type { FileId } from '../ids.js'
import { emitMergeEvent } from './change-events.js'
import { type FileContentValue, readText, sameContent } from './content-codecs.js'
import {
  assertWritable,
  type CreateFileSystemOptions,
  exclusive,
  FS_ORIGIN,
  type FsContext,
} from './fs-context.js'
import { readContent } from './read-content.js'
import type { WriteReport } from './stale-write.js'
import { withWrittenSv, writeContent } from './write-content.js'

export type FsOp =
  | { type: 'writeFile'; path: string; content: FileContent }
  | { type: 'appendFile'; path: string; content: FileContent }
  | { type: 'deleteFile'; path: string }
  | { type: 'mkdir'; path: string; recursive?: boolean }
  | { type: 'rmdir'; path: string; recursive?: boolean }
  | { type: 'rename'; oldPath: string; newPath: string }
  | { type: 'copy'; src: string; dest: string; recursive?: boolean }

export interface TransactionResult {
  /** Id carried by the change events of this transaction. */
  transactionId: string
  /** Number of files whose content changed. */
  contentChanges: number
  /** Number of rows created or changed. */
  rowChanges: number
  /** Files whose content changed since this instance last read them: merged as stale writes (see `YjsFileSystem.write`). */
  merges: WriteReport[]
}

/** An FsError from a transaction, with the index of the op that failed. */
export type TransactionError = FsError & { opIndex: number }

/** The filesystem surface a staged op runs against. */
export interface StagingTarget {
  writeFile(path: string, content: FileContent): Promise<void>
  appendFile(path: string, content: FileContent): Promise<void>
  rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>
  mkdir(path: string, options?: { recursive?: boolean }): Promise<void>
  mv(src: string, dest: string): Promise<void>
  cp(src: string, dest: string, options?: { recursive?: boolean }): Promise<void>
  lstat(path: string): Promise<{ isDirectory: boolean }>
}

/** Run one op on the staging filesystem with the op's own validation. */
export async function runOp(fs: StagingTarget, op: FsOp): Promise<void> {
  switch (op.type) {
    case 'writeFile':
      return fs.writeFile(op.path, op.content)
    case 'appendFile':
      return fs.appendFile(op.path, op.content)
    case 'deleteFile': {
      const st = await fs.lstat(op.path)
      if (st.isDirectory) throw eisdir('unlink', op.path)
      return fs.rm(op.path)
    }
    case 'mkdir':
      return fs.mkdir(op.path, { recursive: op.recursive })
    case 'rmdir': {
      const st = await fs.lstat(op.path)
      if (!st.isDirectory) throw enotdir('rmdir', op.path)
      return fs.rm(op.path, { recursive: op.recursive })
    }
    case 'rename':
      return fs.mv(op.oldPath, op.newPath)
    case 'copy':
      return fs.cp(op.src, op.dest, { recursive: op.recursive })
    default: {
      const unknown = op as { type?: unknown }
      throw new TypeError(`unknown transaction op ${String(unknown.type)}`)
    }
  }
}

/** Opens a staging filesystem (a `YjsFileSystem`) and hands back its context too. */
export type OpenStage = (options: CreateFileSystemOptions) => {
  fs: StagingTarget & { destroy(): void }
  ctx: FsContext
}

/**
 * Apply `ops` all or nothing (see the top of this file for the exact guarantee).
 * Throws the failing op's FsError (with `opIndex`) and changes nothing.
 */
export async function runTransaction(
  ctx: FsContext,
  ops: readonly FsOp[],
  openStage: OpenStage,
): Promise<TransactionResult> {
  assertWritable(ctx, 'transaction', '/')
  return exclusive(ctx, async () => {
    const stageDoc = new Y.Doc({ guid: 'yfs-staging' })
    Y.applyUpdate(stageDoc, Y.encodeStateAsUpdate(ctx.doc))
    const { fs: stage, ctx: stageCtx } = openStage({
      doc: stageDoc,
      codecs: ctx.codecs.filter((c) => c !== textCodec),
      limits: ctx.limits,
      clock: ctx.clock,
      author: ctx.author,
      idleMs: Number.POSITIVE_INFINITY,
      maxIdle: Number.POSITIVE_INFINITY,
      connect: (doc) => ({ whenSynced: copyContentInto(ctx, doc), destroy() {} }),
      // A transaction's ops are explicit: an empty `writeFile` empties the file, held by nobody.
      holdTruncationsMs: 0,
    })
    try {
      for (let i = 0; i < ops.length; i++) {
        try {
          await runOp(stage, ops[i]!)
        } catch (error) {
          if (error instanceof FsError) Object.defineProperty(error, 'opIndex', { value: i })
          throw error
        }
      }
      const transactionId = nanoid(12)
      let contentChanges = 0
      const merges: { id: FileId; report: WriteReport }[] = []
      for (const id of [...stageCtx.pool.loaded()]) {
        const row = stageCtx.table.get(id)
        const staged = stageCtx.pool.peek(id)
        if (row?.type !== 'file' || !staged) continue
        const bytes = readBinary(staged)
        const value: FileContentValue = bytes ? { bytes } : { text: readText(stageCtx, staged, row.name) }
        const liveRow = ctx.table.get(id)
        if (liveRow && sameContent(await readContent(ctx, id, liveRow), value)) continue
        // Content read through this instance before the transaction (apply_patch) merges like a stale write.
        const report: WriteReport = {
          path: stageCtx.index.pathOf(id) ?? '/',
          size: 0,
          created: !liveRow,
          merged: false,
          conflict: false,
          conflicts: [],
        }
        report.size = await writeContent(ctx, id, row.name, value, 'write', liveRow ? { report } : undefined)
        if (report.merged) merges.push({ id, report })
        contentChanges++
      }
      const changed: FileRow[] = []
      for (const row of stageCtx.table.rows()) {
        const live = ctx.table.get(row.id)
        if (!live || JSON.stringify(live) !== JSON.stringify(row)) changed.push(row)
      }
      ctx.transactionId = transactionId
      try {
        ctx.table.batch(() => {
          for (const row of changed) ctx.table.set(withWrittenSv(ctx, row), FS_ORIGIN)
        }, FS_ORIGIN)
        for (const m of merges) emitMergeEvent(ctx, m.id, m.report)
      } finally {
        ctx.transactionId = undefined
      }
      return {
        transactionId,
        contentChanges,
        rowChanges: changed.length,
        merges: merges.map((m) => m.report),
      }
    } finally {
      stage.destroy()
    }
  })
}

/** The staging copy of a content doc starts as the live doc. */
async function copyContentInto(ctx: FsContext, doc: Y.Doc): Promise<void> {
  const handle = await ctx.pool.acquire(doc.guid as FileId)
  try {
    Y.applyUpdate(doc, Y.encodeStateAsUpdate(handle.doc))
  } finally {
    handle.release()
  }
}
