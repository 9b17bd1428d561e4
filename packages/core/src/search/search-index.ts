/**
 * SearchIndex: the in-process search of a YjsFileSystem — the plaintext of
 * every active text file, a trigram index over it (trigram-index.ts), and
 * `search` with the contract of types.ts.
 *
 * Kept current from row changes, local and remote (`fs.table.observe`, what
 * `fs.watch` events are made of): a changed file is re-read soon after (a
 * timer) and, at the latest, before the next search (an edit recounts the
 * trigrams of the lines it changed only: `TrigramIndex.update`); an entry
 * remembers the row version it was read at (size, mtime, content state
 * vector, name), so a row change that leaves the version alone costs nothing. Every yfs writer
 * updates a file's row when it changes its content (as the plaintext cache
 * relies on). Built on creation (`ready`); not persisted: building it again
 * on load costs one read of every file (see docs/benchmarks.md).
 *
 * Invariants: an entry's text is the file's text at its version or newer
 * (never older); a search sees no file whose row changed since it was read.
 * Paths are resolved at search time (and kept until the next row change), so
 * renames and moves cost nothing, and trashed files (no path) are never hits.
 * `/tmp` and system paths are not rows, so never indexed. Binary files have
 * no text and are skipped.
 *
 * Not here: matching (query.ts, scan.ts), trigrams (trigram-index.ts).
 */
import type { YjsFileSystem } from '../fs/yjs-file-system.js'
import type { FileId } from '../ids.js'
import { rowVersion } from './doc-text.js'
import { prepareSearch } from './request.js'
import type { Requirement } from './requirement.js'
import { type SearchIndexStats, TextIndex } from './text-index.js'
import type { Searcher, SearchRequest, SearchResult } from './types.js'

export type { SearchIndexStats }

/** Files read at once while (re)indexing. */
const READ_BATCH = 64

/** The in-process search index of a filesystem. */
export class SearchIndex implements Searcher {
  readonly #fs: YjsFileSystem
  readonly #texts = new TextIndex()
  /** Files whose rows changed since they were last looked at. */
  readonly #dirty = new Set<FileId>()
  readonly #off: () => void
  #timer: ReturnType<typeof setTimeout> | undefined
  #running: Promise<void> = Promise.resolve()
  #destroyed = false
  /** Counts row changes: a path looked up at this epoch is still the file's path. */
  #epoch = 0
  /** Resolves once every file present at creation is indexed. */
  readonly ready: Promise<void>

  constructor(fs: YjsFileSystem) {
    this.#fs = fs
    for (const row of fs.table.rows()) if (row.type === 'file') this.#dirty.add(row.id)
    // Row changes, local and remote (the events `fs.watch` is made of, without their paths).
    this.#off = fs.table.observe((changes) => {
      this.#epoch++
      for (const id of changes.keys()) this.#dirty.add(id)
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined
        void this.refresh()
      }, 0)
    })
    this.ready = this.refresh()
  }

  /** Re-read every file whose row changed since it was read (what a search does first). */
  refresh(): Promise<void> {
    if (this.#dirty.size === 0) return this.#running
    return this.#serial(async () => {
      const ids = [...this.#dirty]
      this.#dirty.clear()
      await this.#reindex(ids)
    })
  }

  /** One page of ranked hits (types.ts; ranking: text-index.ts). Throws `SearchError` for an invalid request. */
  async search(request: SearchRequest): Promise<SearchResult> {
    const prepared = prepareSearch(request)
    await this.refresh()
    return this.#texts.search(prepared, (id) => this.#fs.index.pathOf(id), this.#epoch)
  }

  /** Files whose indexed text may satisfy `req` (`undefined`: any file may). */
  candidates(req: Requirement): FileId[] | undefined {
    return this.#texts.candidates(req)
  }

  /**
   * The indexed text of `id` when it is current (its row has not changed since it was read);
   * `undefined` when it is not (not indexed yet, changed since, binary).
   */
  currentText(id: FileId): string | undefined {
    const row = this.#fs.table.get(id)
    if (!row || this.#texts.versionOf(id) !== rowVersion(row)) return undefined
    return this.#texts.textOf(id)
  }

  /** Sizes of the index. */
  stats(): SearchIndexStats {
    return this.#texts.stats()
  }

  /** Stop following changes. */
  destroy(): void {
    this.#destroyed = true
    this.#off()
    if (this.#timer) clearTimeout(this.#timer)
  }

  /** Run index updates one at a time (a refresh and an event flush never interleave). */
  #serial(fn: () => Promise<void>): Promise<void> {
    const run = this.#running.then(fn)
    this.#running = run.catch(() => undefined)
    return run
  }

  async #reindex(ids: readonly FileId[]): Promise<void> {
    for (let k = 0; k < ids.length && !this.#destroyed; k += READ_BATCH)
      await Promise.all(ids.slice(k, k + READ_BATCH).map((id) => this.#read(id)))
    this.#texts.compactIfWasteful()
  }

  async #read(id: FileId): Promise<void> {
    const row = this.#fs.table.get(id)
    if (row?.type !== 'file' || row.trashedAt !== null) {
      this.#texts.drop(id)
      return
    }
    const version = rowVersion(row)
    if (this.#texts.versionOf(id) === version) return
    let text: string | undefined
    try {
      text = await this.#fs.readPlaintext(id)
    } catch {
      // Unreadable here (a codec this filesystem lacks, content gone): not searchable.
      text = undefined
    }
    this.#texts.set(id, version, text)
  }
}

const shared = new WeakMap<YjsFileSystem, SearchIndex>()

/** The shared search index of `fs`, created (and built) on first use. */
export function searchIndexOf(fs: YjsFileSystem): SearchIndex {
  let index = shared.get(fs)
  if (!index) {
    index = new SearchIndex(fs)
    shared.set(fs, index)
  }
  return index
}
