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
 * Invariant: for every live document, `candidates(req)` includes it when its
 * folded text satisfies `req`. Not here: verifying (scan.ts) or texts.
 */
import { MIN_REQUIRED_LENGTH, type Requirement } from './requirement.js'

class Posting {
  ords = new Uint32Array(4)
  n = 0
  push(ord: number): void {
    if (this.n === this.ords.length) {
      const grown = new Uint32Array(this.ords.length * 2)
      grown.set(this.ords)
      this.ords = grown
    }
    this.ords[this.n++] = ord
  }
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

function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(Math.min(a.length, b.length))
  let i = 0
  let j = 0
  let n = 0
  while (i < a.length && j < b.length) {
    const x = a[i]!
    const y = b[j]!
    if (x === y) {
      out[n++] = x
      i++
      j++
    } else if (x < y) i++
    else j++
  }
  return out.subarray(0, n)
}

function union(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length)
  let i = 0
  let j = 0
  let n = 0
  while (i < a.length || j < b.length) {
    const x = i < a.length ? a[i]! : Number.POSITIVE_INFINITY
    const y = j < b.length ? b[j]! : Number.POSITIVE_INFINITY
    if (x === y) {
      out[n++] = x
      i++
      j++
    } else if (x < y) {
      out[n++] = x
      i++
    } else {
      out[n++] = y
      j++
    }
  }
  return out.subarray(0, n)
}

/** Posting lists of trigrams, keyed by document `K`. */
export class TrigramIndex<K> {
  // Direct-indexed by key (12 MiB each, allocated on first use): a hash map costs ~10× per character.
  #postingOf: Int32Array | undefined
  /** The last ordinal added to each key's posting (skips repeats within a document). */
  #lastOrd: Int32Array | undefined
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
    this.#lastOrd ??= new Int32Array(KEY_SPACE).fill(-1)
    const postingOf = this.#postingOf
    const lastOrd = this.#lastOrd
    const postings = this.#postings
    let a = folded.charCodeAt(0)
    let b = folded.charCodeAt(1)
    for (let i = 2; i < folded.length; i++) {
      const c = folded.charCodeAt(i)
      const k = trigramKey(a, b, c)
      a = b
      b = c
      if (lastOrd[k] === ord) continue
      lastOrd[k] = ord
      let id = postingOf[k]!
      if (id === -1) {
        id = postings.length
        postingOf[k] = id
        postings.push(new Posting())
      }
      postings[id]!.push(ord)
    }
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
    for (const p of this.#postings) bytes += p.ords.byteLength
    return bytes + (this.#postingOf?.byteLength ?? 0) + (this.#lastOrd?.byteLength ?? 0)
  }

  /** Re-index from scratch (drops dead ordinals). */
  rebuild(docs: Iterable<[K, string]>): void {
    this.#postingOf?.fill(-1)
    this.#lastOrd?.fill(-1)
    this.#postings = []
    this.#docs = []
    this.#ordOf.clear()
    this.#dead = 0
    for (const [key, folded] of docs) this.add(key, folded)
  }

  /** Documents that may satisfy `req`, in indexing order; `undefined` means all of them. */
  candidates(req: Requirement): K[] | undefined {
    const ords = this.#evaluate(req)
    if (ords === undefined) return undefined
    const out: K[] = []
    for (const ord of ords) {
      const key = this.#docs[ord]
      if (key !== undefined) out.push(key)
    }
    return out
  }

  #evaluate(req: Requirement): Uint32Array | undefined {
    if (req === true) return undefined
    if (typeof req === 'string') return this.#substring(req)
    const parts = ('and' in req ? req.and : req.or).map((r) => this.#evaluate(r))
    if ('and' in req) {
      const known = parts.filter((p): p is Uint32Array => p !== undefined).sort((x, y) => x.length - y.length)
      if (known.length === 0) return undefined
      return known.reduce(intersect)
    }
    if (parts.some((p) => p === undefined)) return undefined
    return (parts as Uint32Array[]).reduce(union)
  }

  #substring(s: string): Uint32Array | undefined {
    if (s.length < MIN_REQUIRED_LENGTH) return undefined
    const lists: Uint32Array[] = []
    for (const k of trigramKeys(s)) {
      const id = this.#postingOf?.[k] ?? -1
      if (id === -1) return new Uint32Array(0)
      const p = this.#postings[id]!
      lists.push(p.ords.subarray(0, p.n))
    }
    lists.sort((x, y) => x.length - y.length)
    return lists.reduce(intersect)
  }
}
