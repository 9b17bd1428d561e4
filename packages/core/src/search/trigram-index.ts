/**
 * TrigramIndex: posting lists from trigrams of folded text (fold.ts) to the
 * documents that contain them, and the candidates of a requirement
 * (requirement.ts): documents whose trigrams could satisfy it.
 *
 * Documents get a new ordinal each time they are (re)indexed, so every
 * posting list stays sorted by appending; a replaced or removed document's
 * old ordinal is dead and filtered out when read. Dead ordinals are dropped
 * by `rebuild` (the owner calls it when `garbage` grows; search-index.ts).
 *
 * A trigram is three UTF-16 code units; ASCII trigrams get their own key,
 * others are hashed into 2^20 shared keys (a collision only adds candidates,
 * never loses one).
 *
 * Each posting entry also counts the lines of the document that hold the
 * trigram (a trigram belongs to the line it starts in; saturating at
 * `MAX_LINE_COUNT`), so `bounded(req)` can say, per candidate, at most how
 * many of its lines can satisfy `req`: a string needs all its trigrams
 * (the least count), an `and` all its parts (the least bound), an `or` one
 * of its parts (the sum). Search ranks by matching lines with it (top-k,
 * search-index.ts) without scanning every candidate.
 *
 * Invariant: for every live document, `candidates(req)` includes it when its
 * folded text satisfies `req`; `bounded(req)` gives the same documents, each
 * with a bound ≥ the number of its folded lines that satisfy `req`.
 * Not here: verifying (scan.ts) or texts.
 */
import { MIN_REQUIRED_LENGTH, type Requirement } from './requirement.js'

/** Most lines a posting entry counts; a count of `MAX_LINE_COUNT` means "that many or more". */
export const MAX_LINE_COUNT = 255

/** A bound that bounds nothing (a saturated count, or no requirement). */
export const UNBOUNDED = 0xffffffff

class Posting {
  ords = new Uint32Array(4)
  /** Lines of the document holding the trigram, saturating at `MAX_LINE_COUNT`. */
  lines = new Uint8Array(4)
  n = 0
  /** Double the capacity of both arrays (they stay the same length). */
  grow(): void {
    const n = this.ords.length
    const ords = new Uint32Array(n * 2)
    ords.set(this.ords)
    this.ords = ords
    const lines = new Uint8Array(n * 2)
    lines.set(this.lines)
    this.lines = lines
  }
  /** Append document `ord` (the newest indexed) with `lines` lines holding the trigram. */
  push(ord: number, lines: number): void {
    const n = this.n
    if (n === this.ords.length) this.grow()
    this.ords[n] = ord
    this.lines[n] = lines
    this.n = n + 1
  }

  /**
   * Add `delta` (≠ 0) to the lines of document `ord` holding the trigram: its entry is made
   * (at its place in ordinal order) or dropped as the count leaves or reaches 0. A saturated
   * count stays saturated (the true count is unknown, so is the new one).
   */
  adjust(ord: number, delta: number): void {
    const n = this.n
    let lo = 0
    let hi = n
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if (this.ords[mid]! < ord) lo = mid + 1
      else hi = mid
    }
    if (lo < n && this.ords[lo] === ord) {
      const lines = this.lines[lo]!
      if (lines === MAX_LINE_COUNT) return
      const next = lines + delta
      if (next > 0) {
        this.lines[lo] = Math.min(next, MAX_LINE_COUNT)
        return
      }
      this.ords.copyWithin(lo, lo + 1, n)
      this.lines.copyWithin(lo, lo + 1, n)
      this.n = n - 1
      return
    }
    if (delta < 0) return // not counted (cannot happen: the old text held it)
    if (n === this.ords.length) this.grow()
    this.ords.copyWithin(lo + 1, lo, n)
    this.lines.copyWithin(lo + 1, lo, n)
    this.ords[lo] = ord
    this.lines[lo] = Math.min(delta, MAX_LINE_COUNT)
    this.n = n + 1
  }
}

/** Documents (ordinals, ascending) with a bound of matching lines each. */
interface Bounded {
  ords: Uint32Array
  bounds: Uint32Array
}

const ASCII_KEYS = 1 << 21
const WIDE_KEYS = 1 << 20
/** Trigram keys: every ASCII trigram has its own, others share `WIDE_KEYS` hashed ones. */
const KEY_SPACE = ASCII_KEYS + WIDE_KEYS

function trigramKey(a: number, b: number, c: number): number {
  if ((a | b | c) < 0x80) return (a << 14) | (b << 7) | c
  const h = Math.imul(a, 0x2c1b3c6d) ^ Math.imul(b, 0x297a2d39) ^ Math.imul(c, 0x5bd1e995)
  return ASCII_KEYS + ((h >>> 8) & (WIDE_KEYS - 1))
}

/** The distinct trigram keys of a folded string. */
export function trigramKeys(folded: string): Set<number> {
  const keys = new Set<number>()
  for (let i = 0; i + 2 < folded.length; i++)
    keys.add(trigramKey(folded.charCodeAt(i), folded.charCodeAt(i + 1), folded.charCodeAt(i + 2)))
  return keys
}

/** Documents in both; each bound the least of the two (a line satisfying both is counted in each). */
function intersect(a: Bounded, b: Bounded): Bounded {
  const size = Math.min(a.ords.length, b.ords.length)
  const ords = new Uint32Array(size)
  const bounds = new Uint32Array(size)
  let i = 0
  let j = 0
  let n = 0
  while (i < a.ords.length && j < b.ords.length) {
    const x = a.ords[i]!
    const y = b.ords[j]!
    if (x === y) {
      ords[n] = x
      bounds[n++] = Math.min(a.bounds[i]!, b.bounds[j]!)
      i++
      j++
    } else if (x < y) i++
    else j++
  }
  return { ords: ords.subarray(0, n), bounds: bounds.subarray(0, n) }
}

/** Documents in either; a bound the sum of the two (saturating at `UNBOUNDED`). */
function union(a: Bounded, b: Bounded): Bounded {
  const size = a.ords.length + b.ords.length
  const ords = new Uint32Array(size)
  const bounds = new Uint32Array(size)
  let i = 0
  let j = 0
  let n = 0
  while (i < a.ords.length || j < b.ords.length) {
    const x = i < a.ords.length ? a.ords[i]! : Number.POSITIVE_INFINITY
    const y = j < b.ords.length ? b.ords[j]! : Number.POSITIVE_INFINITY
    if (x === y) {
      ords[n] = x
      bounds[n++] = Math.min(UNBOUNDED, a.bounds[i]! + b.bounds[j]!)
      i++
      j++
    } else if (x < y) {
      ords[n] = x
      bounds[n++] = a.bounds[i]!
      i++
    } else {
      ords[n] = y
      bounds[n++] = b.bounds[j]!
      j++
    }
  }
  return { ords: ords.subarray(0, n), bounds: bounds.subarray(0, n) }
}

/** Posting lists of trigrams, keyed by document `K`. */
export class TrigramIndex<K> {
  // Direct-indexed by key (12 MiB each, allocated on first use): a hash map costs ~10× per character.
  #postingOf: Int32Array | undefined
  /** The last line (a stamp unique to a line of a document) counted in each key's posting. */
  #lastLine: Int32Array | undefined
  #stamp = 0
  /** Lines of the document being added holding each key (0 between adds), and the keys it touched. */
  #lineCount: Uint8Array | undefined
  #touched = new Int32Array(1024)
  #postings: Posting[] = []
  #docs: (K | undefined)[] = []
  readonly #ordOf = new Map<K, number>()
  #dead = 0

  /** Index `key` with folded text `folded`, replacing what it had. */
  add(key: K, folded: string): void {
    this.remove(key)
    const ord = this.#docs.length
    this.#docs.push(key)
    this.#ordOf.set(key, ord)
    this.#postingOf ??= new Int32Array(KEY_SPACE).fill(-1)
    this.#lastLine ??= new Int32Array(KEY_SPACE).fill(-1)
    // Stamps only grow (a new document never meets an old stamp); restart them before they overflow.
    if (this.#stamp + folded.length + 1 >= 0x7fffffff) {
      this.#lastLine.fill(-1)
      this.#stamp = 0
    }
    const postingOf = this.#postingOf
    const lastLine = this.#lastLine
    this.#lineCount ??= new Uint8Array(KEY_SPACE)
    const counts = this.#lineCount
    let touched = this.#touched
    let distinct = 0
    let line = ++this.#stamp
    let a = folded.charCodeAt(0)
    let b = folded.charCodeAt(1)
    // Lines per key counted in direct-indexed arrays; postings are appended to once per key.
    for (let i = 2; i < folded.length; i++) {
      const c = folded.charCodeAt(i)
      const k = trigramKey(a, b, c)
      const next = a === 10 ? line + 1 : line
      a = b
      b = c
      if (lastLine[k] !== line) {
        lastLine[k] = line
        const count = counts[k]!
        if (count === 0) {
          if (distinct === touched.length) {
            const grown = new Int32Array(distinct * 2)
            grown.set(touched)
            this.#touched = touched = grown
          }
          touched[distinct++] = k
        }
        if (count < MAX_LINE_COUNT) counts[k] = count + 1
      }
      line = next
    }
    // The next document's first stamp is past every stamp used here.
    this.#stamp = line
    const postings = this.#postings
    for (let t = 0; t < distinct; t++) {
      const k = touched[t]!
      let id = postingOf[k]!
      if (id === -1) {
        id = postings.length
        postingOf[k] = id
        postings.push(new Posting())
      }
      postings[id]!.push(ord, counts[k]!)
      counts[k] = 0
    }
  }

  /**
   * Index `key`, indexed with folded text `before`, with folded text `after` instead: when only
   * a few lines changed, by adjusting the counts of the trigrams of those lines in place (the
   * document keeps its ordinal, no garbage); otherwise as `add`. `before` must be the text
   * `key` was last indexed with.
   */
  update(key: K, before: string, after: string): void {
    const ord = this.#ordOf.get(key)
    if (ord === undefined || this.#postingOf === undefined || this.#lastLine === undefined) {
      this.add(key, after)
      return
    }
    // The common prefix and suffix (not overlapping in either text).
    const shorter = Math.min(before.length, after.length)
    // Equal chunks are skipped with a native comparison, the rest code unit by code unit.
    const CHUNK = 256
    let p = 0
    while (p + CHUNK <= shorter && before.slice(p, p + CHUNK) === after.slice(p, p + CHUNK)) p += CHUNK
    while (p < shorter && before.charCodeAt(p) === after.charCodeAt(p)) p++
    let q = 0
    while (
      q + CHUNK <= shorter - p &&
      before.slice(before.length - q - CHUNK, before.length - q) ===
        after.slice(after.length - q - CHUNK, after.length - q)
    )
      q += CHUNK
    while (
      q < shorter - p &&
      before.charCodeAt(before.length - 1 - q) === after.charCodeAt(after.length - 1 - q)
    )
      q++
    // Lines before the one holding p - 2 start trigrams of prefix characters only: unchanged. Lines
    // after the suffix's first newline start trigrams of suffix characters only: unchanged too.
    // Recount the lines between, in both texts (a trigram counts in the line it starts in).
    const from = p < 3 ? 0 : before.lastIndexOf('\n', p - 3) + 1
    const newline = q === 0 ? -1 : before.indexOf('\n', before.length - q)
    const beforeEnd = newline < 0 ? before.length : newline + 1
    const afterEnd = newline < 0 ? after.length : newline + 1 - before.length + after.length
    if (beforeEnd - from + (afterEnd - from) > after.length) {
      this.add(key, after)
      return
    }
    const delta = new Map<number, number>()
    this.#countLines(before, from, beforeEnd, -1, delta)
    this.#countLines(after, from, afterEnd, 1, delta)
    const postingOf = this.#postingOf
    for (const [k, d] of delta) {
      if (d === 0) continue
      let id = postingOf[k]!
      if (id === -1) {
        id = this.#postings.length
        postingOf[k] = id
        this.#postings.push(new Posting())
      }
      this.#postings[id]!.adjust(ord, d)
    }
  }

  /**
   * Add `sign` to `delta[k]` once per line of `folded` in [from, to) that starts a trigram of
   * key `k` (a trigram belongs to the line it starts in).
   */
  #countLines(folded: string, from: number, to: number, sign: number, delta: Map<number, number>): void {
    const lastLine = this.#lastLine!
    if (this.#stamp + (to - from) + 1 >= 0x7fffffff) {
      lastLine.fill(-1)
      this.#stamp = 0
    }
    let line = ++this.#stamp
    const end = Math.min(to, folded.length - 2)
    for (let s = from; s < end; s++) {
      const a = folded.charCodeAt(s)
      const k = trigramKey(a, folded.charCodeAt(s + 1), folded.charCodeAt(s + 2))
      if (lastLine[k] !== line) {
        lastLine[k] = line
        delta.set(k, (delta.get(k) ?? 0) + sign)
      }
      if (a === 10) line++
    }
    this.#stamp = line
  }

  /** Forget `key`. */
  remove(key: K): void {
    const ord = this.#ordOf.get(key)
    if (ord === undefined) return
    this.#ordOf.delete(key)
    this.#docs[ord] = undefined
    this.#dead++
  }

  has(key: K): boolean {
    return this.#ordOf.has(key)
  }

  /** Live documents. */
  get size(): number {
    return this.#ordOf.size
  }

  /** Dead ordinals still in posting lists. */
  get garbage(): number {
    return this.#dead
  }

  /** Distinct trigrams. */
  get trigrams(): number {
    return this.#postings.length
  }

  /** Bytes held by posting lists (their arrays; map overhead not counted). */
  get postingBytes(): number {
    let bytes = 0
    for (const p of this.#postings) bytes += p.ords.byteLength + p.lines.byteLength
    return (
      bytes +
      (this.#postingOf?.byteLength ?? 0) +
      (this.#lastLine?.byteLength ?? 0) +
      (this.#lineCount?.byteLength ?? 0)
    )
  }

  /** Re-index from scratch (drops dead ordinals). */
  rebuild(docs: Iterable<[K, string]>): void {
    this.#postingOf?.fill(-1)
    this.#lastLine?.fill(-1)
    this.#stamp = 0
    this.#postings = []
    this.#docs = []
    this.#ordOf.clear()
    this.#dead = 0
    for (const [key, folded] of docs) this.add(key, folded)
  }

  /** Documents that may satisfy `req`, in indexing order; `undefined` means all of them. */
  candidates(req: Requirement): K[] | undefined {
    return this.bounded(req)?.keys
  }

  /**
   * Documents that may satisfy `req` (as `candidates`), each with a bound: at most that many of
   * its folded lines satisfy `req` (`UNBOUNDED` when the index cannot tell); `undefined` means
   * all documents, unbounded.
   */
  bounded(req: Requirement): { keys: K[]; bounds: number[] } | undefined {
    const found = this.#evaluate(req)
    if (found === undefined) return undefined
    const keys: K[] = []
    const bounds: number[] = []
    for (let i = 0; i < found.ords.length; i++) {
      const key = this.#docs[found.ords[i]!]
      if (key === undefined) continue
      keys.push(key)
      bounds.push(found.bounds[i]!)
    }
    return { keys, bounds }
  }

  #evaluate(req: Requirement): Bounded | undefined {
    if (req === true) return undefined
    if (typeof req === 'string') return this.#substring(req)
    const parts = ('and' in req ? req.and : req.or).map((r) => this.#evaluate(r))
    if ('and' in req) {
      const known = parts
        .filter((p): p is Bounded => p !== undefined)
        .sort((x, y) => x.ords.length - y.ords.length)
      if (known.length === 0) return undefined
      return known.reduce(intersect)
    }
    if (parts.some((p) => p === undefined)) return undefined
    return (parts as Bounded[]).reduce(union)
  }

  #substring(s: string): Bounded | undefined {
    if (s.length < MIN_REQUIRED_LENGTH) return undefined
    const lists: Bounded[] = []
    for (const k of trigramKeys(s)) {
      const id = this.#postingOf?.[k] ?? -1
      if (id === -1) return { ords: new Uint32Array(0), bounds: new Uint32Array(0) }
      const p = this.#postings[id]!
      const bounds = new Uint32Array(p.n)
      for (let i = 0; i < p.n; i++) {
        const lines = p.lines[i]!
        bounds[i] = lines < MAX_LINE_COUNT ? lines : UNBOUNDED
      }
      lists.push({ ords: p.ords.subarray(0, p.n), bounds })
    }
    lists.sort((x, y) => x.ords.length - y.ords.length)
    return lists.reduce(intersect)
  }
}
