/**
 * TextIndex: the texts of a set of files, a trigram index over them
 * (trigram-index.ts) and ranked, paged search over them with the contract of
 * types.ts — fed texts by its owner and asked with a path resolver. The
 * in-process `SearchIndex` (search-index.ts) feeds it from a filesystem's rows;
 * a server can feed it from its stored plaintext.
 *
 * Invariants: an entry holds the text its owner gave for the version it named
 * (`set`), with its folded form, line offsets and trigram line counts; a
 * search resolves each candidate's path through `pathOf` once per `pathEpoch`
 * (a new epoch whenever paths may have changed), and a file without a path
 * (trashed, gone) is never a hit.
 */
import type { FileId } from '../ids.js'
import { foldText } from './fold.js'
import { hasSurrogates } from './js-regex.js'
import { isAscii } from './query.js'
import type { PreparedSearch } from './request.js'
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
import type { SearchResult } from './types.js'

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

/** A set of file texts, indexed for search. */
export class TextIndex {
  readonly #entries = new Map<FileId, Entry>()
  readonly #trigrams = new TrigramIndex<FileId>()

  /** The version the indexed text of `id` was given for; `undefined` when not indexed. */
  versionOf(id: FileId): string | undefined {
    return this.#entries.get(id)?.version
  }

  /** The indexed text of `id` (`undefined`: not indexed, binary or unreadable). */
  textOf(id: FileId): string | undefined {
    return this.#entries.get(id)?.text
  }

  /** Index `text` as the content of `id` at `version` (`undefined`: no searchable text). */
  set(id: FileId, version: string, text: string | undefined): void {
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

  /** Forget `id`. */
  drop(id: FileId): void {
    this.#entries.delete(id)
    this.#trigrams.remove(id)
  }

  /** Rebuild the posting lists when removed entries outweigh the live ones. */
  compactIfWasteful(): void {
    if (this.#trigrams.garbage <= Math.max(1000, 2 * this.#trigrams.size)) return
    const docs: [FileId, string][] = []
    for (const [id, e] of this.#entries)
      if (e.text !== undefined) docs.push([id, e.folded ?? foldText(e.text)])
    this.#trigrams.rebuild(docs)
  }

  /**
   * One page of ranked hits for a prepared request (request.ts).
   *
   * Top-k: a candidate ranks at best as its bound says — its path match (exact), a whole-word
   * match, and a density of the index's bound on its matching lines (trigram-index.ts) over its
   * lines. Candidates are scanned in full best bound first until the page's last hit outranks
   * the next bound; the rest are only checked for one matching line (for `total`).
   */
  search(
    prepared: PreparedSearch,
    pathOf: (id: FileId) => string | undefined,
    pathEpoch: number,
  ): SearchResult {
    const { query, accepts, perFile, offset, limit } = prepared
    const found = this.#trigrams.bounded(query.requirement)
    const ids = found?.keys ?? [...this.#entries.keys()]
    const candidates: Candidate[] = []
    for (let i = 0; i < ids.length; i++) {
      const entry = this.#entries.get(ids[i]!)
      if (entry?.text === undefined) continue
      if (entry.pathEpoch !== pathEpoch) {
        entry.path = pathOf(ids[i]!)
        entry.foldedPath = entry.path === undefined ? '' : foldText(entry.path)
        entry.pathEpoch = pathEpoch
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
