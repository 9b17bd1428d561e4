/**
 * Checkpoints: named snapshots of the whole workspace (`fs.checkpoint`),
 * stored in the main doc's `checkpoints` map so every peer sees them.
 *
 * A checkpoint stores the rows and, per file, the id of a history version
 * holding its content (recording one when the file changed since its last
 * version): content is never copied. A restore makes the live workspace
 * equal to the checkpoint as ordinary new changes that sync to every peer
 * (files not in it go to the trash), after a safety checkpoint of the
 * current state. `trash.empty()` keeps content a checkpoint references.
 */
import { createTwoFilesPatch } from 'diff'
import * as Y from 'yjs'
import { FsError } from '../errors.js'
import { createFilesTable, type FileRow } from '../files-table.js'
import { hasUnversionedChanges, listStoredVersions } from '../history/file-history.js'
import { newVersionId } from '../history/version-list.js'
import type { FileId } from '../ids.js'
import { createFileSystemIndex } from '../path-index.js'
import {
  contentSize,
  type FileContentValue,
  recordPendingVersion,
  sameContent,
  versionContent,
} from './content-codecs.js'
import { assertWritable, exclusive, FS_ORIGIN, type FsContext } from './fs-context.js'
import { readContent, readNode } from './read-content.js'
import { withWrittenSv, writeContent } from './write-content.js'

/** Root key of the checkpoints map on the main doc. */
export const CHECKPOINTS_KEY = 'checkpoints'

interface StoredCheckpoint {
  id: string
  label: string
  ts: number
  author: string
  rows: FileRow[]
  /** File id → version id holding its content at the checkpoint. */
  versions: Record<string, string>
}

export interface CheckpointInfo {
  id: string
  label: string
  ts: number
  author: string
  files: number
}

export interface CheckpointDiff {
  added: string[]
  removed: string[]
  moved: { from: string; to: string }[]
  changed: { path: string; diff: string }[]
}

function checkpointInfo(c: StoredCheckpoint): CheckpointInfo {
  return {
    id: c.id,
    label: c.label,
    ts: c.ts,
    author: c.author,
    files: c.rows.filter((r) => r.type === 'file').length,
  }
}

/** Ids of the files any checkpoint holds content of (their content docs must stay). */
export function checkpointedFileIds(ctx: FsContext): Set<string> {
  const referenced = new Set<string>()
  for (const c of checkpointMap(ctx).values())
    for (const id of Object.keys(c.versions ?? {})) referenced.add(id)
  return referenced
}

function checkpointMap(ctx: FsContext): Y.Map<StoredCheckpoint> {
  return ctx.doc.getMap<StoredCheckpoint>(CHECKPOINTS_KEY)
}

/** Record the tree and every file's content (as a version) under `label`. */
export async function takeCheckpoint(ctx: FsContext, label: string): Promise<CheckpointInfo> {
  assertWritable(ctx, 'checkpoint', '/')
  return exclusive(ctx, () => recordCheckpoint(ctx, label))
}

async function recordCheckpoint(ctx: FsContext, label: string): Promise<CheckpointInfo> {
  const rows = [...ctx.table.rows()]
  const versions: Record<string, string> = {}
  for (const row of rows) {
    if (row.type !== 'file') continue
    const handle = await ctx.pool.acquire(row.id)
    try {
      let last = listStoredVersions(handle.doc).at(-1)
      if (!last || hasUnversionedChanges(handle.doc))
        last = recordPendingVersion(
          ctx,
          handle.doc,
          row.name,
          contentSize(ctx, handle.doc, row.name),
          'checkpoint',
        )
      versions[row.id] = last.id
    } finally {
      handle.release()
    }
  }
  const stored: StoredCheckpoint = {
    id: newVersionId(),
    label,
    ts: ctx.clock(),
    author: ctx.author,
    rows,
    versions,
  }
  ctx.doc.transact(() => checkpointMap(ctx).set(stored.id, stored), FS_ORIGIN)
  return checkpointInfo(stored)
}

/** Checkpoints, oldest first. */
export function listCheckpoints(ctx: FsContext): CheckpointInfo[] {
  return [...checkpointMap(ctx).values()]
    .filter((c) => typeof c === 'object' && c !== null && Array.isArray(c.rows))
    .map(checkpointInfo)
    .sort((a, b) => a.ts - b.ts || (a.id < b.id ? -1 : 1))
}

function storedCheckpoint(ctx: FsContext, id: string): StoredCheckpoint {
  const stored = checkpointMap(ctx).get(id)
  if (!stored) throw new FsError('ENOENT', 'checkpoint', id, undefined, 'no such checkpoint')
  return stored
}

/** The files of a side of a diff: path → { id, content }. */
async function sideOf(
  ctx: FsContext,
  id: string | undefined,
): Promise<Map<string, { id: FileId; read: () => Promise<FileContentValue> }>> {
  const out = new Map<string, { id: FileId; read: () => Promise<FileContentValue> }>()
  if (id === undefined) {
    for (const path of ctx.index.allPaths()) {
      const fileId = ctx.index.lookup(path)!
      const row = ctx.table.get(fileId)!
      if (row.type !== 'folder') out.set(path, { id: fileId, read: () => readNode(ctx, row) })
    }
    return out
  }
  const stored = storedCheckpoint(ctx, id)
  const doc = new Y.Doc({ guid: 'yfs-checkpoint' })
  const table = createFilesTable(doc)
  table.batch(() => {
    for (const row of stored.rows) table.set(row)
  })
  const index = createFileSystemIndex(table)
  for (const path of index.allPaths()) {
    const fileId = index.lookup(path)!
    const row = table.get(fileId)!
    if (row.type === 'folder') continue
    out.set(path, {
      id: fileId,
      read: async () => {
        if (row.type === 'symlink') return { text: row.target ?? '' }
        return readVersionById(ctx, fileId, stored.versions[fileId])
      },
    })
  }
  index.destroy()
  table.destroy()
  return out
}

async function readVersionById(
  ctx: FsContext,
  id: FileId,
  versionId: string | undefined,
): Promise<FileContentValue> {
  if (versionId === undefined) return { text: '' }
  const handle = await ctx.pool.acquire(id)
  try {
    const version = listStoredVersions(handle.doc).find((v) => v.id === versionId)
    if (!version)
      throw new FsError('ENOENT', 'checkpoint', id, undefined, `version '${versionId}' is missing`)
    return versionContent(ctx, handle.doc, version, id, version.name)
  } finally {
    handle.release()
  }
}

/** What changed from checkpoint `a` to checkpoint `b` (or to the live workspace when `b` is omitted). */
export async function diffCheckpoint(ctx: FsContext, a: string, b?: string): Promise<CheckpointDiff> {
  const [from, to] = [await sideOf(ctx, a), await sideOf(ctx, b)]
  const fromById = new Map([...from].map(([path, f]) => [f.id, { path, ...f }]))
  const toById = new Map([...to].map(([path, f]) => [f.id, { path, ...f }]))
  const diff: CheckpointDiff = { added: [], removed: [], moved: [], changed: [] }
  for (const [id, f] of fromById) if (!toById.has(id)) diff.removed.push(f.path)
  for (const [id, t] of toById) {
    const f = fromById.get(id)
    if (!f) {
      diff.added.push(t.path)
      continue
    }
    if (f.path !== t.path) diff.moved.push({ from: f.path, to: t.path })
    const [before, after] = [await f.read(), await t.read()]
    if (!sameContent(before, after)) {
      const asText = (v: FileContentValue) => v.text ?? `(binary, ${v.bytes?.byteLength ?? 0} bytes)\n`
      diff.changed.push({
        path: t.path,
        diff: createTwoFilesPatch(
          `a${f.path}`,
          `b${t.path}`,
          asText(before),
          asText(after),
          a,
          b ?? 'current',
        ),
      })
    }
  }
  for (const list of [diff.added, diff.removed]) list.sort()
  diff.moved.sort((x, y) => (x.to < y.to ? -1 : 1))
  diff.changed.sort((x, y) => (x.path < y.path ? -1 : 1))
  return diff
}

/**
 * Make the live workspace equal to a checkpoint, as ordinary new changes that
 * sync to every peer. A safety checkpoint of the current state is taken first.
 */
export async function restoreCheckpoint(
  ctx: FsContext,
  id: string,
): Promise<{ safetyCheckpoint: CheckpointInfo }> {
  assertWritable(ctx, 'checkpoint', '/')
  return exclusive(ctx, async () => {
    const stored = storedCheckpoint(ctx, id)
    const safetyCheckpoint = await recordCheckpoint(ctx, `before restoring '${stored.label}'`)
    const target = new Map(stored.rows.map((r) => [r.id, r]))
    for (const row of stored.rows) {
      if (row.type !== 'file') continue
      const wanted = await readVersionById(ctx, row.id, stored.versions[row.id])
      const live = ctx.table.get(row.id)
      if (
        live?.type === 'file' &&
        live.name === row.name &&
        sameContent(await readContent(ctx, row.id, live), wanted)
      )
        continue
      await writeContent(ctx, row.id, row.name, wanted, 'restore')
    }
    const now = ctx.clock()
    ctx.table.batch(() => {
      for (const row of ctx.table.rows()) {
        if (!target.has(row.id) && row.trashedAt === null)
          ctx.table.update(row.id, { trashedAt: now }, FS_ORIGIN)
      }
      for (const row of stored.rows) {
        const live = ctx.table.get(row.id)
        // A file whose content was rewritten gets a row entry even when its row is unchanged:
        // the entry announces the change to peers (see content-versions.ts).
        if (!live || ctx.writtenSv.has(row.id) || JSON.stringify(live) !== JSON.stringify(row))
          ctx.table.set(withWrittenSv(ctx, row), FS_ORIGIN)
      }
    }, FS_ORIGIN)
    return { safetyCheckpoint }
  })
}
