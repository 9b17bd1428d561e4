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
import { foldText } from './fold.js'
import { hasSurrogates } from './js-regex.js'
import { isAscii } from './query.js'
import { prepareSearch } from './request.js'
import type { Requirement } from './requirement.js'
import {
  compareRanked,
  hasMatch,
  newlineOffsets,
  nonAsciiOffsets,
  pathMatches,
  type RankedFile,
  type RankKey,
  rankedFile,
  type ScanText,
  scanText,
  toHit,
} from './scan.js'
import { TrigramIndex } from './trigram-index.js'
import type { Searcher, SearchRequest, SearchResult } from './types.js'

interface Entry {
  version: string
  /** Undefined for binary or unreadable files. */
  text: string | undefined
  /** `foldText(text)` when its length is the text's. */
  folded: string | undefined
  ascii: boolean
  newlines: Uint32Array
  /** Offsets of non-ASCII code units (empty for ASCII text). */
  nonAscii: Uint32Array
  /** The text holds a UTF-16 surrogate (js-regex.ts). */
  surrogates: boolean
  /** The file's path and its folded form as of `pathEpoch` (paths change with any row). */
  path: string | undefined
  foldedPath: string
  pathEpoch: number
}

const NONE = new Uint32Array(0)

/** A file that may match, ranked by the best it can be: a whole-word match, at its bound's density. */
interface Candidate extends RankKey {
  entry: Entry
}

/** Sizes of an index. */
export interface SearchIndexStats {
  /** Files with text in the index. */
  files: number
  /** UTF-16 code units of indexed text. */
  chars: number
  /** Distinct trigrams. */
  trigrams: number
  /** Bytes of posting lists. */
  postingBytes: number
}

/** Files read at once while (re)indexing. */
const READ_BATCH = 64

/** The in-process search index of a filesystem. */
export class SearchIndex implements Searcher {
  readonly #fs: YjsFileSystem
  readonly #entries = new Map<FileId, Entry>()
  readonly #trigrams = new TrigramIndex<FileId>()
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

  /**
   * One page of ranked hits (types.ts). Throws `SearchError` for an invalid request.
   *
   * Top-k: a candidate ranks at best as its bound says — its path match (exact), a whole-word
   * match, and a density of the index's bound on its matching lines (trigram-index.ts) over its
   * lines. Candidates are scanned in full best bound first until the page's last hit outranks
   * the next bound; the rest are only checked for one matching line (for `total`).
   */
  async search(request: SearchRequest): Promise<SearchResult> {
    const prepared = prepareSearch(request)
    await this.refresh()
    const { query, accepts, perFile, offset, limit } = prepared
    const found = this.#trigrams.bounded(query.requirement)
    const ids = found?.keys ?? [...this.#entries.keys()]
    const candidates: Candidate[] = []
    for (let i = 0; i < ids.length; i++) {
      const entry = this.#entries.get(ids[i]!)
      if (entry?.text === undefined) continue
      if (entry.pathEpoch !== this.#epoch) {
        entry.path = this.#fs.index.pathOf(ids[i]!)
        entry.foldedPath = entry.path === undefined ? '' : foldText(entry.path)
        entry.pathEpoch = this.#epoch
      }
      const path = entry.path
      if (path === undefined || !accepts(path)) continue
      const lines = entry.newlines.length + 1
      const bound = found === undefined ? lines : Math.min(found.bounds[i]!, lines)
      candidates.push({
        entry,
        path,
        pathMatch: pathMatches(query, path, entry.foldedPath),
        wordMatch: true,
        density: bound / lines,
      })
    }
    // Best bound first: a heap (a page needs a few of them, a sort would order them all). Without
    // bounds every candidate is scanned in full: their order does not matter.
    let n = candidates.length
    if (found !== undefined) for (let k = (n >>> 1) - 1; k >= 0; k--) siftDown(candidates, k, n)
    // The best `wanted` files, best first.
    const wanted = offset + limit
    const best: RankedFile[] = []
    let total = 0
    while (n > 0) {
      let c: Candidate
      if (found === undefined) {
        c = candidates[--n]!
      } else {
        c = candidates[0]!
        if (best.length >= wanted && compareRanked(best[wanted - 1]!, c) < 0) break
        candidates[0] = candidates[--n]!
        siftDown(candidates, 0, n)
      }
      const scan = scanText(query, c.entry as ScanText, perFile)
      if (!scan) continue
      total++
      const file = rankedFile(query, c.path, scan, c.pathMatch)
      let lo = 0
      let hi = best.length
      while (lo < hi) {
        const mid = (lo + hi) >>> 1
        if (compareRanked(best[mid]!, file) < 0) lo = mid + 1
        else hi = mid
      }
      if (lo < wanted) {
        best.splice(lo, 0, file)
        if (best.length > wanted) best.pop()
      }
    }
    for (let k = 0; k < n; k++) if (hasMatch(query, candidates[k]!.entry as ScanText)) total++
    const page = best.slice(offset, offset + limit)
    const next = offset + page.length
    return {
      hits: page.map((file) => toHit(query, file)),
      total,
      offset,
      ...(next < total ? { nextOffset: next } : {}),
    }
  }

  /** Files whose indexed text may satisfy `req` (`undefined`: any file may). */
  candidates(req: Requirement): FileId[] | undefined {
    return this.#trigrams.candidates(req)
  }

  /**
   * The indexed text of `id` when it is current (its row has not changed since it was read);
   * `undefined` when it is not (not indexed yet, changed since, binary).
   */
  currentText(id: FileId): string | undefined {
    const entry = this.#entries.get(id)
    const row = this.#fs.table.get(id)
    if (!entry || !row || entry.version !== rowVersion(row)) return undefined
    return entry.text
  }

  /** Sizes of the index. */
  stats(): SearchIndexStats {
    let files = 0
    let chars = 0
    for (const e of this.#entries.values()) {
      if (e.text === undefined) continue
      files++
      chars += e.text.length
    }
    return { files, chars, trigrams: this.#trigrams.trigrams, postingBytes: this.#trigrams.postingBytes }
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
    if (this.#trigrams.garbage > Math.max(1000, 2 * this.#trigrams.size)) this.#compact()
  }

  async #read(id: FileId): Promise<void> {
    const row = this.#fs.table.get(id)
    if (row?.type !== 'file' || row.trashedAt !== null) {
      this.#drop(id)
      return
    }
    const version = rowVersion(row)
    if (this.#entries.get(id)?.version === version) return
    let text: string | undefined
    try {
      text = await this.#fs.readPlaintext(id)
    } catch {
      // Unreadable here (a codec this filesystem lacks, content gone): not searchable.
      text = undefined
    }
    if (text === undefined) {
      this.#trigrams.remove(id)
      this.#entries.set(id, {
        version,
        text,
        folded: undefined,
        ascii: false,
        newlines: NONE,
        nonAscii: NONE,
        surrogates: false,
        path: undefined,
        foldedPath: '',
        pathEpoch: -1,
      })
      return
    }
    const folded = foldText(text)
    // An edit: the trigrams of the lines it changed are counted again (trigram-index.ts).
    const before = this.#entries.get(id)
    if (before?.text !== undefined && this.#trigrams.has(id))
      this.#trigrams.update(id, before.folded ?? foldText(before.text), folded)
    else this.#trigrams.add(id, folded)
    const ascii = isAscii(text)
    this.#entries.set(id, {
      version,
      text,
      folded: folded.length === text.length ? folded : undefined,
      ascii,
      newlines: newlineOffsets(text),
      nonAscii: ascii ? NONE : nonAsciiOffsets(text),
      surrogates: !ascii && hasSurrogates(text),
      path: undefined,
      foldedPath: '',
      pathEpoch: -1,
    })
  }

  #drop(id: FileId): void {
    this.#entries.delete(id)
    this.#trigrams.remove(id)
  }

  #compact(): void {
    const docs: [FileId, string][] = []
    for (const [id, e] of this.#entries)
      if (e.text !== undefined) docs.push([id, e.folded ?? foldText(e.text)])
    this.#trigrams.rebuild(docs)
  }
}

/** Restore the heap order (best bound at the root) below `k` of `heap[0, n)`. */
function siftDown(heap: Candidate[], k: number, n: number): void {
  const item = heap[k]!
  for (;;) {
    let child = 2 * k + 1
    if (child >= n) break
    if (child + 1 < n && compareRanked(heap[child + 1]!, heap[child]!) < 0) child++
    if (compareRanked(heap[child]!, item) >= 0) break
    heap[k] = heap[child]!
    k = child
  }
  heap[k] = item
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
