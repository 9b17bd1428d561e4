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
  /** Count one more line of document `ord` (the newest one indexed) holding the trigram. */
  count(ord: number): void {
    const n = this.n
    if (n > 0 && this.ords[n - 1] === ord) {
      if (this.lines[n - 1]! < MAX_LINE_COUNT) this.lines[n - 1]!++
      return
    }
    if (n === this.ords.length) {
      const ords = new Uint32Array(n * 2)
      ords.set(this.ords)
      this.ords = ords
      const lines = new Uint8Array(n * 2)
      lines.set(this.lines)
      this.lines = lines
    }
    this.ords[n] = ord
    this.lines[n] = 1
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
    const postings = this.#postings
    let line = ++this.#stamp
    let a = folded.charCodeAt(0)
    let b = folded.charCodeAt(1)
    for (let i = 2; i < folded.length; i++) {
      const c = folded.charCodeAt(i)
      const k = trigramKey(a, b, c)
      const next = a === 10 ? line + 1 : line
      a = b
      b = c
      if (lastLine[k] !== line) {
        lastLine[k] = line
        let id = postingOf[k]!
        if (id === -1) {
          id = postings.length
          postingOf[k] = id
          postings.push(new Posting())
        }
        postings[id]!.count(ord)
      }
      line = next
    }
    // The next document's first stamp is past every stamp used here.
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
    return bytes + (this.#postingOf?.byteLength ?? 0) + (this.#lastLine?.byteLength ?? 0)
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
