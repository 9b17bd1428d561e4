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
 * strings held, and the bytes held); the least recently filled entries go first.
 *
 * Binary content is held too (`setBytes`, up to `MAX_CACHED_BINARY_BYTES` a
 * file), so a binary file written or fetched here reads back without opening
 * its doc (a `tar -x` of the archive a `tar -c` just wrote). `lookup` and `get`
 * give text only: search and grep never see bytes.
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
  /** The text, or the bytes of a binary file (a copy of its own: callers may change what they get). */
  value: string | Uint8Array
  /** UTF-8 byte length of the text, the bytes' length (the row's `size` when it was filled). */
  size: number
  /** The content state the value was read at, when known (see the module comment). */
  at: Y.Snapshot | undefined
}

/** Default memory bound of a cache: 256 MiB of strings. */
export const DEFAULT_PLAINTEXT_CACHE_BYTES = 256 * 1024 * 1024

/** The biggest binary content an entry holds (a bigger file is read from its doc). */
export const MAX_CACHED_BINARY_BYTES = 4 * 1024 * 1024

/** Memory an entry's value holds. */
const bytesOf = (value: string | Uint8Array) =>
  typeof value === 'string' ? value.length * 2 : value.byteLength

export class PlaintextCache {
  readonly #entries = new Map<FileId, Entry>()
  readonly #maxBytes: number
  #bytes = 0

  constructor(maxBytes: number = DEFAULT_PLAINTEXT_CACHE_BYTES) {
    this.#maxBytes = maxBytes
  }

  /** The cached text of `id` if it still has `size` bytes (the row's size); a mismatch drops the entry. */
  lookup(id: FileId, size: number): string | undefined {
    const value = this.#checked(id, size)
    return typeof value === 'string' ? value : undefined
  }

  /** The cached text or bytes (a copy) of `id` if it still has `size` bytes; a mismatch drops the entry. */
  lookupContent(id: FileId, size: number): { text: string } | { bytes: Uint8Array } | undefined {
    const value = this.#checked(id, size)
    if (value === undefined) return undefined
    return typeof value === 'string' ? { text: value } : { bytes: value.slice() }
  }

  /** Whether text or bytes of `id` with `size` bytes are cached (a mismatch drops the entry). */
  holds(id: FileId, size: number): boolean {
    return this.#checked(id, size) !== undefined
  }

  /** The cached text of `id`, unchecked. */
  get(id: FileId): string | undefined {
    const value = this.#entries.get(id)?.value
    return typeof value === 'string' ? value : undefined
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
    this.#put(id, { value: text, size, at })
  }

  /**
   * Remember a copy of binary content `bytes` for `id`, read at the content state `at` when known;
   * content over `MAX_CACHED_BINARY_BYTES` is not kept (and drops what was cached of `id`).
   */
  setBytes(id: FileId, bytes: Uint8Array, at?: Y.Snapshot): void {
    if (bytes.byteLength > MAX_CACHED_BINARY_BYTES) this.delete(id)
    else this.#put(id, { value: bytes.slice(), size: bytes.byteLength, at })
  }

  delete(id: FileId): boolean {
    const entry = this.#entries.get(id)
    if (!entry) return false
    this.#entries.delete(id)
    this.#bytes -= bytesOf(entry.value)
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

  /** Memory held by the cached strings (bytes, UTF-16) and bytes. */
  get bytes(): number {
    return this.#bytes
  }

  /** The value of `id` if it has `size` bytes; a mismatch drops the entry. */
  #checked(id: FileId, size: number): string | Uint8Array | undefined {
    const entry = this.#entries.get(id)
    if (!entry) return undefined
    if (entry.size === size) return entry.value
    this.delete(id)
    return undefined
  }

  #put(id: FileId, entry: Entry): void {
    this.delete(id)
    this.#entries.set(id, entry)
    this.#bytes += bytesOf(entry.value)
    if (this.#bytes > this.#maxBytes) this.#shrink()
  }

  #shrink(): void {
    for (const id of this.#entries.keys()) {
      if (this.#bytes <= this.#maxBytes) return
      this.delete(id)
    }
  }
}
