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
 * In memory: a workspace searched once gets core's `TextIndex` over the same
 * texts (built from the stored plaintext, then fed every text stored here),
 * so a search ranks with line-count bounds and scans only what its page
 * needs, as in process; PostgreSQL stays the store and answers when the
 * workspaces searched lately hold more text than `memoryChars` (least
 * recently searched first out). Stored texts and the in-memory index change
 * one writer at a time per workspace (`serial`), and a refresh also re-reads
 * a file whose in-memory version differs from its row (another server may
 * have stored its text).
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
  TextIndex,
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
  /**
   * Characters of text the in-memory indexes of all workspaces hold at most (about 4 bytes each
   * with their trigrams); 0 answers every search from PostgreSQL. Default DEFAULT_MEMORY_CHARS.
   */
  memoryChars?: number
}

/** Default `memoryChars`: 64 M characters (~250 MiB with the trigram index). */
export const DEFAULT_MEMORY_CHARS = 64 * 1024 * 1024

/** A workspace's in-memory index. */
interface Held {
  texts: TextIndex
  chars: number
  /** The rows' stamp its paths were resolved at, and that resolution's number. */
  stamp: string | undefined
  epoch: number
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
  const memoryChars = options.memoryChars ?? DEFAULT_MEMORY_CHARS
  // In-memory indexes, least recently searched first.
  const held = new Map<string, Held>()
  const heldChars = () => {
    let chars = 0
    for (const entry of held.values()) chars += entry.chars
    return chars
  }
  const queues = new Map<string, Promise<unknown>>()

  /** Run `fn` after the workspace's other writes of stored texts and of its in-memory index. */
  function serial<T>(workspace: string, fn: () => Promise<T>): Promise<T> {
    const run = (queues.get(workspace) ?? Promise.resolve()).then(fn)
    const tail = run.catch(() => undefined)
    queues.set(workspace, tail)
    void tail.then(() => {
      if (queues.get(workspace) === tail) queues.delete(workspace)
    })
    return run
  }

  function setHeld(entry: Held, file: string, version: string, text: string | undefined): void {
    const id = asFileId(file)
    entry.chars += (text?.length ?? 0) - (entry.texts.textOf(id)?.length ?? 0)
    entry.texts.set(id, version, text)
  }

  function dropFromHeld(entry: Held, file: string): void {
    const id = asFileId(file)
    entry.chars -= entry.texts.textOf(id)?.length ?? 0
    entry.texts.drop(id)
  }

  /** Within the budget again after texts grew: least recently searched indexes out first. */
  function trim(): void {
    for (const [name] of held) {
      if (heldChars() <= memoryChars) break
      held.delete(name)
    }
  }

  /** Store texts read here, in PostgreSQL and in the workspace's in-memory index. */
  function store(workspace: string, rows: PlaintextRow[]): Promise<void> {
    return serial(workspace, async () => {
      await index.put(workspace, rows)
      const entry = held.get(workspace)
      if (!entry) return
      for (const row of rows) setHeld(entry, row.file, row.version, row.text)
      trim()
    })
  }

  function forget(workspace: string, fileIds: string[]): Promise<void> {
    if (fileIds.length === 0) return Promise.resolve()
    return serial(workspace, async () => {
      await index.remove(workspace, fileIds)
      const entry = held.get(workspace)
      if (entry) for (const file of fileIds) dropFromHeld(entry, file)
    })
  }

  /** The workspace's in-memory index, built from the stored texts if memory allows; else undefined. */
  function inMemory(workspace: string): Promise<Held | undefined> {
    const present = held.get(workspace)
    if (present) {
      // Most recently searched last.
      held.delete(workspace)
      held.set(workspace, present)
      return Promise.resolve(present)
    }
    if (memoryChars <= 0) return Promise.resolve(undefined)
    return serial(workspace, async () => {
      const again = held.get(workspace)
      if (again) return again
      const [texts, versions] = await Promise.all([
        index.candidates(workspace, true),
        index.versions(workspace),
      ])
      let chars = 0
      for (const { text } of texts) chars += text.length
      if (chars > memoryChars) return undefined
      const entry: Held = { texts: new TextIndex(), chars: 0, stamp: undefined, epoch: 0 }
      const withText = new Set<string>()
      for (const { file, text } of texts) {
        withText.add(file)
        setHeld(entry, file, versions.get(file) ?? '', text)
      }
      // Files without text (binary): known at their version, so a refresh does not read them again.
      for (const [file, version] of versions)
        if (!withText.has(file)) setHeld(entry, file, version, undefined)
      held.set(workspace, entry)
      // The others make room, least recently searched first (this one is the most recent).
      trim()
      return held.get(workspace)
    })
  }

  async function textOf(workspace: string, id: string, row: FileRow): Promise<string | undefined> {
    const name = contentDocName(workspace, id)
    const loaded = options.instance().documents.get(name)
    if (loaded) return docPlaintext(loaded, row.name, codecs)
    const state = await persistence.load(name)
    // Named: without a guid Y.Doc draws a random UUID (31 getRandomValues calls).
    const doc = new Y.Doc({ guid: name, gc: false })
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
      await store(workspace, out)
    }
  }

  async function runRefresh(workspace: string): Promise<void> {
    await files.withIndex(workspace, async (table) => {
      const stamp = await files.stamp(workspace)
      if (stamp !== undefined && refreshedAt.get(workspace) === stamp) return
      const stored = await index.versions(workspace)
      const memory = held.get(workspace)?.texts
      const stale: FileRow[] = []
      const live = new Set<string>()
      for (const row of table.rows()) {
        if (row.type !== 'file' || row.trashedAt !== null) continue
        live.add(row.id)
        const version = rowVersion(row)
        if (stored.get(row.id) !== version || (memory && memory.versionOf(row.id) !== version))
          stale.push(row)
      }
      await read(workspace, stale)
      await forget(
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
    const prepared = prepareSearch(request)
    const { query, accepts, perFile, offset, limit } = prepared
    await refresh(workspace)
    const memory = await inMemory(workspace)
    if (memory)
      return files.withIndex(workspace, async (table, paths) => {
        const stamp = await files.stamp(workspace)
        // Paths resolved at an earlier stamp still hold while no row changed.
        if (stamp === undefined || stamp !== memory.stamp) {
          memory.stamp = stamp
          memory.epoch++
        }
        return memory.texts.search(
          prepared,
          (id) => {
            const row = table.get(id)
            return row?.type === 'file' && row.trashedAt === null ? paths.pathOf(id) : undefined
          },
          memory.epoch,
        )
      })
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
      held.clear()
    },
  }
}
