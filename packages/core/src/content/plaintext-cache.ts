/**
 * PlaintextCache: the text of files, by file id, so `cat` and `grep -r` read
 * a string instead of a content doc.
 *
 * It outlives content-doc eviction: an entry is dropped when its file's
 * content changes, not when its doc is unloaded. It stays exact by:
 * - content-doc transactions while the doc is loaded (the filesystem drops
 *   the entry on every change, local or remote);
 * - row checks: each entry remembers the byte size it had; a lookup whose
 *   row has another size misses and drops the entry;
 * - remote row updates: a peer that changes a file's content also updates
 *   its row (`size`, `updatedAt`), and the filesystem drops the entry when
 *   such a row change arrives (`invalidate`).
 * What it cannot see: a peer that edits a content doc while this replica has
 *   it unloaded and never updates the row. Every yfs writer updates the row.
 *
 * Memory is bounded by `maxBytes` (UTF-16 code units × 2, the size of the
 * strings held); the least recently filled entries go first.
 *
 * It deliberately holds text only: binary files are read from their doc.
 *
 * An entry of a doc that is not open here may carry the Yjs snapshot its text
 * was read at (`at`: a fetched state, a batch-stored first state, a doc's state
 * when it closed). A whole-file read served from such an entry is the base of
 * the reader's next write (last-seen.ts): the doc is not open, so nothing here
 * sees a peer's later edit happen, and the snapshot is what tells it apart.
 */
import type * as Y from 'yjs'
import type { FileId } from '../ids.js'

interface Entry {
  text: string
  /** UTF-8 byte length of `text` (the row's `size` when it was filled). */
  size: number
  /** The content state `text` was read at, when known (see the module comment). */
  at: Y.Snapshot | undefined
}

/** Default memory bound of a cache: 256 MiB of strings. */
export const DEFAULT_PLAINTEXT_CACHE_BYTES = 256 * 1024 * 1024

export class PlaintextCache {
  readonly #entries = new Map<FileId, Entry>()
  readonly #maxBytes: number
  #bytes = 0

  constructor(maxBytes: number = DEFAULT_PLAINTEXT_CACHE_BYTES) {
    this.#maxBytes = maxBytes
  }

  /** The cached text of `id` if it still has `size` bytes (the row's size); a mismatch drops the entry. */
  lookup(id: FileId, size: number): string | undefined {
    const entry = this.#entries.get(id)
    if (!entry) return undefined
    if (entry.size === size) return entry.text
    this.delete(id)
    return undefined
  }

  /** The cached text of `id`, unchecked. */
  get(id: FileId): string | undefined {
    return this.#entries.get(id)?.text
  }

  /** The content state the entry of `id` was read at, if known. */
  snapshotOf(id: FileId): Y.Snapshot | undefined {
    return this.#entries.get(id)?.at
  }

  /** Note the content state the (unchanged) entry of `id` was read at; no-op without an entry. */
  stamp(id: FileId, at: Y.Snapshot): void {
    const entry = this.#entries.get(id)
    if (entry) entry.at = at
  }

  has(id: FileId): boolean {
    return this.#entries.has(id)
  }

  /** Remember `text` (whose UTF-8 length is `size`) for `id`, read at the content state `at` when known. */
  set(id: FileId, text: string, size: number, at?: Y.Snapshot): void {
    this.delete(id)
    this.#entries.set(id, { text, size, at })
    this.#bytes += text.length * 2
    if (this.#bytes > this.#maxBytes) this.#shrink()
  }

  delete(id: FileId): boolean {
    const entry = this.#entries.get(id)
    if (!entry) return false
    this.#entries.delete(id)
    this.#bytes -= entry.text.length * 2
    return true
  }

  clear(): void {
    this.#entries.clear()
    this.#bytes = 0
  }

  /** Number of cached files. */
  get size(): number {
    return this.#entries.size
  }

  /** Memory held by the cached strings (bytes, UTF-16). */
  get bytes(): number {
    return this.#bytes
  }

  #shrink(): void {
    for (const id of this.#entries.keys()) {
      if (this.#bytes <= this.#maxBytes) return
      this.delete(id)
    }
  }
}
