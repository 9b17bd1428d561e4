/**
 * Search on the server (PostgreSQL): the same contract as the in-process
 * index (core search/types.ts), answered from the plaintext index
 * (persistence/postgres-plaintext.ts) and verified and ranked with core's
 * own scanner, so both rank and page alike.
 *
 * Freshness: before answering, every active file of the workspace whose row
 * version (core `rowVersion`) differs from the version its plaintext was
 * read at is read again — from the loaded doc when the server has it open,
 * else from the store — so a search never sees text older than the rows it
 * can see. The change hook (`noteChange`) keeps loaded docs' texts current as
 * they change, off the search path. Paths come from the workspace's main doc
 * at search time: trashed files (no path) are never hits, nor are files of
 * another workspace (every query is scoped by row-level security).
 *
 * Not here: the wire format (client search-messages.ts) and its bounds
 * (extensions/search.ts).
 */
import type { Hocuspocus } from '@hocuspocus/server'
import {
  asFileId,
  type ContentCodec,
  compareRanked,
  docPlaintext,
  type FileId,
  type FileRow,
  foldText,
  prepareSearch,
  type RankedFile,
  rankedFile,
  rowVersion,
  type SearchRequest,
  type SearchResult,
  scanText,
  toHit,
} from '@yfs/core'
import { contentDocName } from '@yfs/protocol'
import * as Y from 'yjs'
import type { Persistence } from '../extensions/persistence.js'
import type { Logger } from '../logger.js'
import type { PlaintextIndex, PlaintextRow } from '../persistence/document-store.js'
import type { WorkspaceFiles } from '../workspace-files.js'

export interface ServerSearchOptions {
  index: PlaintextIndex
  files: WorkspaceFiles
  persistence: Persistence
  instance: () => Hocuspocus
  /** Content codecs besides plain text (Markdown), as clients have them. */
  codecs: readonly ContentCodec[]
  logger: Logger
}

export interface ServerSearch {
  /** One page of ranked hits in `workspace`. Throws core's `SearchError` for a bad request. */
  search(workspace: string, request: SearchRequest): Promise<SearchResult>
  /** A content doc of `workspace` changed: re-read its text soon (debounced). */
  noteChange(workspace: string, fileId: string): void
  /** Index every file of `workspace` whose text is missing or stale. */
  refresh(workspace: string): Promise<void>
  /** Stop pending work. */
  close(): void
}

/** Files read at once while refreshing. */
const READ_BATCH = 32
/** A changed doc is re-read this long after its last change. */
const CHANGE_DELAY_MS = 500

export function createServerSearch(options: ServerSearchOptions): ServerSearch {
  const { index, files, persistence, codecs, logger } = options
  const timers = new Map<string, NodeJS.Timeout>()
  // One refresh per workspace at a time; a search waits for the running one.
  const refreshing = new Map<string, Promise<void>>()
  // The rows' stamp (WorkspaceFiles.stamp) each workspace was last refreshed at: no row change
  // since means nothing to re-read, and the versions query is skipped.
  const refreshedAt = new Map<string, string>()

  async function textOf(workspace: string, id: string, row: FileRow): Promise<string | undefined> {
    const name = contentDocName(workspace, id)
    const loaded = options.instance().documents.get(name)
    if (loaded) return docPlaintext(loaded, row.name, codecs)
    const state = await persistence.load(name)
    const doc = new Y.Doc({ gc: false })
    try {
      if (state) Y.applyUpdate(doc, state)
      return docPlaintext(doc, row.name, codecs)
    } finally {
      doc.destroy()
    }
  }

  async function read(workspace: string, rows: FileRow[]): Promise<void> {
    for (let k = 0; k < rows.length; k += READ_BATCH) {
      const batch = rows.slice(k, k + READ_BATCH)
      const out: PlaintextRow[] = await Promise.all(
        batch.map(async (row) => ({
          file: row.id,
          version: rowVersion(row),
          text: await textOf(workspace, row.id, row).catch(() => undefined),
        })),
      )
      await index.put(workspace, out)
    }
  }

  async function runRefresh(workspace: string): Promise<void> {
    await files.withIndex(workspace, async (table) => {
      const stamp = await files.stamp(workspace)
      if (stamp !== undefined && refreshedAt.get(workspace) === stamp) return
      const stored = await index.versions(workspace)
      const stale: FileRow[] = []
      const live = new Set<string>()
      for (const row of table.rows()) {
        if (row.type !== 'file' || row.trashedAt !== null) continue
        live.add(row.id)
        if (stored.get(row.id) !== rowVersion(row)) stale.push(row)
      }
      await read(workspace, stale)
      await index.remove(
        workspace,
        [...stored.keys()].filter((f) => !live.has(f)),
      )
      if (stamp !== undefined) refreshedAt.set(workspace, stamp)
      else refreshedAt.delete(workspace)
    })
  }

  function refresh(workspace: string): Promise<void> {
    const running = refreshing.get(workspace)
    if (running) return running.then(() => refresh(workspace))
    const run = runRefresh(workspace).finally(() => refreshing.delete(workspace))
    refreshing.set(workspace, run)
    return run
  }

  async function search(workspace: string, request: SearchRequest): Promise<SearchResult> {
    const { query, accepts, perFile, offset, limit } = prepareSearch(request)
    await refresh(workspace)
    const candidates = await index.candidates(workspace, query.requirement)
    return files.withIndex(workspace, async (table, paths) => {
      const ranked: RankedFile[] = []
      for (const { file, text } of candidates) {
        const id = asFileId(file) as FileId
        const row = table.get(id)
        const path = paths.pathOf(id)
        if (row?.type !== 'file' || path === undefined || !accepts(path)) continue
        const folded = query.literal !== undefined && query.caseSensitive ? undefined : foldText(text)
        const scan = scanText(
          query,
          { text, folded: folded !== undefined && folded.length === text.length ? folded : undefined },
          perFile,
        )
        if (scan) ranked.push(rankedFile(query, path, scan))
      }
      ranked.sort(compareRanked)
      const page = ranked.slice(offset, offset + limit)
      const next = offset + page.length
      return {
        hits: page.map((file) => toHit(query, file)),
        total: ranked.length,
        offset,
        ...(next < ranked.length ? { nextOffset: next } : {}),
      }
    })
  }

  function noteChange(workspace: string, fileId: string): void {
    const key = `${workspace}/${fileId}`
    const previous = timers.get(key)
    if (previous) clearTimeout(previous)
    timers.set(
      key,
      setTimeout(() => {
        timers.delete(key)
        files
          .withIndex(workspace, async (table) => {
            const row = table.get(asFileId(fileId))
            if (row?.type === 'file' && row.trashedAt === null) await read(workspace, [row])
          })
          .catch((error: unknown) => logger.warn('search index update failed', { workspace, error }))
      }, CHANGE_DELAY_MS),
    )
  }

  return {
    search,
    noteChange,
    refresh,
    close() {
      for (const timer of timers.values()) clearTimeout(timer)
      timers.clear()
    },
  }
}
