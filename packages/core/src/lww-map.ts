/**
 * A last-writer-wins key-value map stored on a `Y.Array` of `{ key, val, ts }`
 * entries (the YKeyValue pattern from y-utility, with timestamps).
 *
 * Entries are appended, so one client's consecutive entries sit next to each
 * other in clock and position order: Yjs merges them into one item, and once
 * superseded and swept they merge into one small deleted range. That is what
 * keeps the doc near its live size. (Prepending, or storing entries as
 * binary items, avoids Yjs' O(run) array concatenation on merge but leaves
 * one tombstone per superseded entry: 3× the live size after 20 updates per
 * row.) A batch appends all its entries with a single push.
 *
 * But a merge copies the whole run (`ContentAny.mergeWith` concatenates), so
 * appending one entry at a time to a run of n costs O(n) on every replica:
 * 10k single-row writes in a row cost 50M copies. So after `MAX_RUN` appended
 * entries the next write is prepended instead: it takes the next clock, so the
 * write after it no longer continues the run, and runs stay ≤ `MAX_RUN` for one
 * extra item per `MAX_RUN` entries.
 *
 * Why not a `Y.Map`: a `Y.Map` keeps an item for every overwritten value.
 * Here a superseded entry is deleted from the array, so a gc-enabled doc
 * keeps only small GC ranges for it, and the doc stays close to the size of
 * its live state (see the files-table benchmark).
 *
 * Invariants:
 * - The winner for a key is the entry with the highest `ts`; equal `ts`
 *   (two peers writing in the same millisecond without seeing each other)
 *   is broken by comparing the JSON of the values (of the whole entry for
 *   array entries), so every replica with the same entries picks the same
 *   winner, in any delivery order.
 * - `ts` is a hybrid logical clock: `max(now, highest ts seen + 1)`, so a
 *   local write always supersedes everything this replica has seen, even if
 *   another peer's wall clock runs ahead. Writes of other keys in the same
 *   millisecond share the timestamp this replica gave last (`nextTs`): only
 *   entries of one key are ever compared, and a clock raised by one per row
 *   would run ahead of time by every row a big batch writes (100,000 rows in
 *   6 s: 94 s), after which every peer stamps from it and a person's later
 *   offline edit would lose to an earlier one.
 * - Losing entries are "stale": they stay readable to the tie-break logic
 *   and are swept (deleted from the array) in the next local write
 *   transaction once there are enough of them, so sweeping costs O(1)
 *   amortised per write instead of an O(n) index search per write.
 * - Deleting a key removes every entry of it; a concurrent `set` on another
 *   replica survives the delete (set wins over delete).
 *
 * Stored forms. An entry is either the original object `{ key, val, ts }`, or,
 * when the map has a `codec`, an array `[tag, key, ts, ...fields]`: Yjs decodes
 * an object entry key by key (every field name is a string to decode), an
 * array entry is 2–3× cheaper to decode and ~half the size, and both merge
 * into runs the same way. New writes use the array form when a codec is given
 * (the codec may refuse a value, which is then written as an object); every
 * reader accepts both forms forever, since stored docs hold object entries. A
 * reader without the codec, or an older one, ignores array entries as garbage.
 * Entries are tracked by the raw value Yjs holds (object or array identity),
 * wrapped once in an internal record as they arrive.
 *
 * Values are checked once per entry, as it arrives, by the caller's optional
 * `isValid` (see files-table.ts): an entry that fails still takes part in the
 * LWW (so every replica picks the same winner), but a key whose winner failed
 * reads as absent everywhere (get, has, iteration, size, change events), and
 * entry observers only see entries that pass. Entries this map writes itself
 * are not checked again (the caller checked them before `set`).
 *
 * Lazy winners. A peer's first load of a big map (100k rows) spent most of its
 * time making a record and a value object per entry, and collecting the garbage
 * that made. So when the codec can check an array entry in place
 * (`isValidEntry`), the initial load stores each key's array entry itself as
 * its winner, undecoded; it is decoded into its record once, on first read
 * (`get`, iteration, a later entry of the same key), and the record replaces it.
 * `scan` reads such entries without decoding them. Values read are the same
 * objects on every read, decoded or not yet.
 *
 * Held writes (`hold()`, write batches). A Yjs transaction costs more than the
 * entry it stores (a Transaction with its maps, the state vectors, the cleanup,
 * the doc's events, and with a provider one update message), and a batch of
 * 10,000 files written one `await` after the other made 10,000 of them. While
 * a caller holds the map (a write batch: a shell command, a tool call,
 * `fs.batch`), a `set` made outside any Yjs transaction is applied to the map
 * at once (reads, `observe` and `observeEntries` see it synchronously, with a
 * change source `{ local: true, origin }` instead of a transaction) and its
 * entry is stored in the `Y.Array` later, with the other held ones, in one
 * transaction: when the last hold is released, before any other write of this
 * map, on `flush()`, once `maxHeld` wait, and at the latest `maxHoldMs` after
 * the first (a long command still shows its progress to peers). Until then the
 * doc does not hold them: whoever reads the doc itself rather than the map
 * (encodes it, snapshots it) during a batch calls `flush()` first. A held entry
 * superseded by a later held write of its key is never stored; one a peer's entry superseded is
 * (stale at once: peers still learn of that write, see `storeDeferred`). Entries are stored with
 * their writer's origin (a change of origin stores the earlier ones first).
 * Stored, they are not applied a second time (`preApplied`). Outside a hold,
 * every write is stored at once, in its own transaction.
 *
 * Groups (`groups` option). A value may be made of field groups that writers
 * change independently (a file's name and its content): each entry then
 * carries a stamp per group (when that group last changed, as the writer
 * knew it; an entry without stamps, from an older writer, has every group at
 * its `ts`), and a key's value takes each group from the entry with the
 * newest stamp for it (equal stamps: the newer entry, then the tie-break
 * above), so two concurrent writes of different groups both survive. A local
 * write stamps the groups it changes with its `ts` and keeps the stamps of
 * the others, so it supersedes every entry it has seen. An entry is stale
 * (swept) only once it supplies no group. With `writeBack`, a value merged
 * from several entries by a peer's change is written back as one entry (its
 * stamps unchanged) after that transaction: readers that pick one entry per
 * key (older versions) then read the merged value too, and the entries it
 * merged become stale.
 *
 * (Over 400 lines, half of it this comment and the types: every operation
 * reads and updates the same state (winners, stale entries, deferred and own
 * entries, the current transaction's changes), which one closure keeps
 * private; split, each part would need all of it.)
 */
import * as Y from 'yjs'
import { afterThisTask, hostClearTimeout, hostSetTimeout } from './host-timers.js'
import { dropSearchMarkers, firstItem, runningTransaction, structsByClient } from './internals/yjs.js'

/** The object form of a stored entry (the only form before codecs; still read and written). */
export interface LwwEntry<V> {
  key: string
  val: V
  ts: number
}

/** What the `Y.Array` holds: object entries, and array entries `[tag, key, ts, ...fields]` written through a codec. */
export type StoredEntry<V> = LwwEntry<V> | readonly unknown[]

/**
 * The array form of a map's values (see the module comment): `[tag, key, ts, ...fields]`,
 * where the map reads slots 0–2 and the codec owns the fields.
 *
 * @example
 * // [1, 'k', 17, 'a', 2] ↔ key 'k', ts 17, value { name: 'a', n: 2 }
 * const codec: LwwCodec<{ name: string; n: number }> = {
 *   tag: 1,
 *   toEntry: (key, ts, v) => [1, key, ts, v.name, v.n],
 *   fromEntry: (e) => ({ name: e[3], n: e[4] }),
 * }
 */
export interface LwwCodec<V> {
  /** Slot 0 of every array entry; array entries with another tag are ignored (a format this reader does not know). */
  readonly tag: number
  /**
   * The array entry of a value, or `undefined` to store this value as an object entry instead.
   * `stamps`: the entry's group stamps (with the `groups` option), for the codec to store.
   */
  toEntry(key: string, ts: number, val: V, stamps?: readonly number[]): unknown[] | undefined
  /**
   * With the `groups` option: the group stamps an array entry carries, `undefined` when it
   * carries none (every group at its `ts`). Must not throw on any input.
   */
  stampsOf?(entry: readonly unknown[]): readonly number[] | undefined
  /**
   * The value of an array entry (fields from slot 3), for `isValid` to check. Must not throw
   * on any input: peers send anything. `fromEntry(toEntry(k, ts, v), k)` must equal `v` field for field.
   */
  fromEntry(entry: readonly unknown[], key: string): unknown
  /**
   * Optional: true exactly when `isValid(key, fromEntry(entry, key))` would be, checked on the
   * entry itself. With it, the initial load keeps winning array entries undecoded (no value
   * object per row until one is read; see "Lazy winners" in the module comment).
   */
  isValidEntry?(entry: readonly unknown[], key: string): boolean
}

/** What changed for one key in one transaction: `undefined` means absent. */
export interface LwwChange<V> {
  before: V | undefined
  after: V | undefined
}

/**
 * Where a change came from: its Yjs transaction, or for a deferred local write (see the
 * module comment) a record of the same two fields.
 */
export type LwwChangeSource = Pick<Y.Transaction, 'local' | 'origin'>

export type LwwObserver<V> = (changes: Map<string, LwwChange<V>>, source: LwwChangeSource) => void

export interface LwwMap<V> {
  readonly yarray: Y.Array<StoredEntry<V>>
  get(key: string): V | undefined
  has(key: string): boolean
  /** Set a value; `origin` is passed to the Yjs transaction. */
  set(key: string, val: V, origin?: unknown): void
  /** Remove every entry of the key. */
  delete(key: string, origin?: unknown): void
  /** Remove every entry of all the keys, in one pass over the array. */
  deleteMany(keys: Iterable<string>, origin?: unknown): void
  /** Several sets and deletes in one Yjs transaction (observers fire once). */
  batch(fn: () => void, origin?: unknown): void
  keys(): IterableIterator<string>
  values(): IterableIterator<V>
  entries(): IterableIterator<[string, V]>
  /** Calls `fn` for every winner (no iterator or tuple per entry). */
  forEach(fn: (val: V, key: string) => void): void
  /**
   * When group `g` of `key`'s value last changed (its stamp; the entry's `ts` without groups);
   * `undefined` for an absent key.
   */
  stampOf(key: string, g: number): number | undefined
  /**
   * The values of `key`'s stale entries (stored, superseded, not swept yet), valid ones only: a
   * write that lost, which an entry observer saw arrive only if it arrived after the map was
   * attached (the initial load calls none).
   */
  staleValues(key: string): V[]
  /**
   * Calls `fn` for every winner with its value, or with its stored array entry
   * (`[tag, key, ts, ...fields]`, valid) while that winner is not decoded yet: for a pass over
   * every row that reads a few fields, without a value object per row.
   */
  scan(fn: (key: string, val: V | undefined, entry: readonly unknown[] | undefined) => void): void
  readonly size: number
  /** Calls `fn` after each transaction that changed at least one winner, for local and remote changes. */
  observe(fn: LwwObserver<V>): () => void
  /**
   * Calls `fn` for every entry added to the array (local or remote, winning or not),
   * before the `observe` callbacks of its transaction.
   */
  observeEntries(fn: (key: string, val: V, source: LwwChangeSource) => void): () => void
  /**
   * Hold local writes made outside a Yjs transaction until the returned function is called (see
   * "Held writes" in the module comment); holds nest: they are stored when the last is released.
   */
  hold(): () => void
  /**
   * Hold the entries of `key` until `unpin`, even past the end of every hold and when nothing
   * holds the map (a write of the key outside any transaction is then held too): a row whose
   * content is not stored yet (lww-map callers: new files' bulk stores on a connected
   * filesystem). A delete of the key stores them anyway (with the delete, in one transaction).
   */
  pin(key: string): void
  /** Let the held entries of `keys` be stored: now when nothing holds the map, else soon. */
  unpin(keys: Iterable<string>): void
  /** Store held local writes in the `Y.Array` now (see the module comment); a no-op without them. */
  flush(): void
  /** Stop observing the array (held writes are stored first). The map is unusable afterwards. */
  destroy(): void
}

/** Field groups of a value, merged one by one (see "Groups" in the module comment). */
export interface LwwGroups<V> {
  /** Number of groups (≥ 2). */
  readonly count: number
  /** True when `a` and `b` differ in group `g`. */
  differs(a: V, b: V, g: number): boolean
  /** The value that takes group `g` from `parts[g]`, for every group (other fields from `parts[0]`). */
  combine(parts: readonly V[]): V
}

export interface LwwMapOptions<V = unknown> {
  /** Wall clock in ms; injectable for deterministic tests. */
  clock?: () => number
  /** Checks a peer's entry once, when it arrives; see the module comment. */
  isValid?: (key: string, val: unknown) => val is V
  /** Writes new entries in the array form (see the module comment); without it, object entries only. */
  codec?: LwwCodec<V>
  /** Sweep stale entries once there are more than `max(minStale, size * staleRatio)`. */
  minStale?: number
  staleRatio?: number
  /** While held: store held writes once this many wait (default 4,096; see "Held writes"). */
  maxHeld?: number
  /** While held: store held writes at the latest this many ms after the first (default 100). */
  maxHoldMs?: number
  /** Merge values per field group (see the module comment). */
  groups?: LwwGroups<V>
  /** With `groups`: write a value merged from several entries by a peer's change back as one entry. */
  writeBack?: boolean
  /** Origin of the write-back transactions. */
  writeBackOrigin?: unknown
}

/** Longest run of own entries appended one after the other before a write is prepended. */
const MAX_RUN = 128

/** Most keys that share one timestamp of this replica's (`nextTs`): a bound on what it remembers. */
const KEYS_AT_ONE_TS = 65_536

/** An entry as the map tracks it; `raw` is the value Yjs holds (an object or array entry). */
interface Entry<V> {
  key: string
  val: V
  ts: number
  raw: unknown
  /** Group stamps (with `groups`); `undefined`: every group at `ts`. */
  stamps?: readonly number[]
  /**
   * A value merged from several entries (with `groups`): the entry supplying each group. Such a
   * record is not stored anywhere (`raw` is `MERGED`); its `ts` is the newest of its parts'.
   */
  parts?: readonly Entry<V>[]
}

/** The `raw` of a merged record: no stored entry is this value. */
const MERGED = Symbol('merged')

const stampOf = (e: Entry<unknown>, g: number): number => e.stamps?.[g] ?? e.ts

// Equal timestamps are ordered by the JSON of the value (object entries) or of the whole array
// entry: both are the same on every replica (a writer's own value may list its keys in another
// order than peers decode it, the array entry it wrote may not).
const tieKey = (e: Entry<unknown>): string => JSON.stringify(Array.isArray(e.raw) ? e.raw : e.val)

function beats<V>(a: Entry<V>, b: Entry<V>): boolean {
  return a.ts > b.ts || (a.ts === b.ts && tieKey(a) > tieKey(b))
}

/** Whether `a` supplies group `g` rather than `b`: the newer stamp, then the newer entry. */
function beatsIn<V>(a: Entry<V>, b: Entry<V>, g: number): boolean {
  const sa = stampOf(a, g)
  const sb = stampOf(b, g)
  return sa > sb || (sa === sb && beats(a, b))
}

const isStamps = (v: unknown, count: number): v is number[] =>
  Array.isArray(v) && v.length === count && v.every(isTs)

const isTs = (ts: unknown): ts is number => typeof ts === 'number' && Number.isFinite(ts)

function isObjectEntry(value: unknown): value is LwwEntry<unknown> {
  if (typeof value !== 'object' || value === null) return false
  const e = value as Partial<LwwEntry<unknown>>
  return typeof e.key === 'string' && isTs(e.ts) && 'val' in e
}

/**
 * The key of a well-formed stored entry: an object entry `{ key, val, ts }`, or an array entry
 * `[codec.tag, key, ts, …]` of `codec`; `undefined` for anything a map ignores as garbage. (Says
 * nothing of the value: the map's `isValid` judges that.)
 */
export function storedEntryKey(
  raw: unknown,
  codec: Pick<LwwCodec<unknown>, 'tag'> | undefined,
): string | undefined {
  if (Array.isArray(raw)) {
    if (codec === undefined || raw[0] !== codec.tag || !isTs(raw[2])) return undefined
    const key: unknown = raw[1]
    return typeof key === 'string' ? key : undefined
  }
  return isObjectEntry(raw) ? raw.key : undefined
}

/** The index of each key's last entry in `entries` (later positions must be as they were). */
function lastIndexByKey(entries: readonly { key: string }[]): Map<string, number> {
  const last = new Map<string, number>()
  for (const [i, e] of entries.entries()) last.set(e.key, i)
  return last
}

/** Attach an LWW map to `yarray`; it lives until `destroy()` or the doc is destroyed. */
export function attachLwwMap<V>(
  array: Y.Array<StoredEntry<V>> | Y.Array<LwwEntry<V>>,
  options: LwwMapOptions<V> = {},
): LwwMap<V> {
  // Y.Array is invariant in its element type; an array typed for object entries only is the same array.
  const yarray = array as Y.Array<StoredEntry<V>>
  const clock = options.clock ?? Date.now
  const isValid = options.isValid
  const codec = options.codec
  const groups = options.groups
  // Without groups a value is one group: its stamp is the entry's ts, and the logic below is plain LWW.
  const G = groups?.count ?? 1
  // Entries that failed `isValid` (rare: a buggy or hostile peer), and the ones this map
  // pushed in the current transaction (checked by the caller already), in push order: the
  // handler meets them in that order (clock order), so `ownEntry` finds each at `ownAt`.
  const rejected = new Set<Entry<V>>()
  const own: Entry<V>[] = []
  let ownAt = 0
  const ownEntry = (raw: unknown): Entry<V> | undefined => {
    for (let i = ownAt; i < own.length; i++)
      if (own[i]!.raw === raw) {
        ownAt = i + 1
        return own[i]
      }
    return undefined
  }
  const isRejected = (e: Entry<V> | readonly unknown[]): boolean => {
    if (rejected.size === 0 || Array.isArray(e)) return false
    const r = e as Entry<V>
    return rejected.has(r) || r.parts?.some((p) => rejected.has(p)) === true
  }
  const shown = (e: Entry<V> | undefined): V | undefined =>
    e === undefined || (rejected.size > 0 && (rejected.has(e) || e.parts?.some((p) => rejected.has(p))))
      ? undefined
      : e.val
  const minStale = options.minStale ?? 64
  const staleRatio = options.staleRatio ?? 0.25
  // A winner is its record, or (lazy winners, initial load only) its valid array entry not decoded yet.
  const winners = new Map<string, Entry<V> | readonly unknown[]>()
  // Stale entries by key: one entry (the usual case, no allocation) or several.
  const staleByKey = new Map<string, Entry<V> | Entry<V>[]>()
  let staleCount = 0
  let lastTs = 0
  // The timestamp this replica gave last, and the keys that took it or that an entry seen with
  // it has (`nextTs`).
  let givenTs = -1
  const keysAtGiven = new Set<string>()
  /** An entry of `key` stamped `ts` was seen. */
  const seenTs = (key: string, ts: number) => {
    if (ts > lastTs) lastTs = ts
    else if (ts === givenTs) keysAtGiven.add(key)
  }
  const observers = new Set<LwwObserver<V>>()
  const entryObservers = new Set<(key: string, val: V, source: LwwChangeSource) => void>()
  let current: Y.Transaction | undefined
  let changes: Map<string, LwwChange<V>> | null = null
  // Held local writes (see the module comment): applied, not stored yet, in write order, all
  // of one origin. `preApplied` holds the stored forms of those being stored in this transaction.
  let holds = 0
  const maxHeld = options.maxHeld ?? 4096
  const maxHoldMs = options.maxHoldMs ?? 100
  let holdTimer: ReturnType<typeof setTimeout> | undefined
  const deferred: Entry<V>[] = []
  let deferredOrigin: unknown
  const preApplied = new Set<unknown>()

  /** Key of a well-formed stored entry (either form), `undefined` for garbage. */
  const keyOf = (raw: unknown): string | undefined => storedEntryKey(raw, codec)
  /** The group stamps a stored entry carries (with groups); `undefined` for none. */
  const stampsIn = (raw: unknown): readonly number[] | undefined => {
    if (groups === undefined) return undefined
    if (Array.isArray(raw)) return codec?.stampsOf?.(raw)
    const gs = (raw as { gs?: unknown }).gs
    return isStamps(gs, G) ? gs : undefined
  }
  const decode = (raw: unknown): Entry<V> | undefined => {
    const key = keyOf(raw)
    if (key === undefined) return undefined
    if (Array.isArray(raw)) {
      // `keyOf` checked the tag, so the codec exists; `isValid` checks the value.
      const val = (codec as LwwCodec<V>).fromEntry(raw, key) as V
      return { key, val, ts: raw[2] as number, raw, stamps: stampsIn(raw) }
    }
    const e = raw as LwwEntry<V>
    return { key, val: e.val, ts: e.ts, raw, stamps: stampsIn(raw) }
  }
  /** The record of `key`'s winner, decoding (once) a lazy one. */
  const winnerOf = (key: string): Entry<V> | undefined => {
    const w = winners.get(key)
    if (w === undefined || !Array.isArray(w)) return w as Entry<V> | undefined
    const e: Entry<V> = {
      key,
      val: (codec as LwwCodec<V>).fromEntry(w, key) as V,
      ts: w[2] as number,
      raw: w,
      stamps: stampsIn(w),
    }
    winners.set(key, e)
    return e
  }
  /** `winners`' value `e` of `key` as a record (decoding a lazy winner). */
  const recordOf = (key: string, e: Entry<V> | readonly unknown[]): Entry<V> =>
    Array.isArray(e) ? winnerOf(key)! : (e as Entry<V>)
  /** The entry this map wrote for `val`: an array entry when the codec takes it. */
  const encode = (key: string, val: V, ts: number, stamps?: readonly number[]): Entry<V> => {
    const raw = codec?.toEntry(key, ts, val, stamps)
    if (raw !== undefined) return { key, val, ts, raw, stamps }
    // Stamps only when a group is older than the entry: without them every group is at `ts`.
    const older = stamps?.some((stamp) => stamp !== ts)
    return { key, val, ts, raw: older ? { key, val, ts, gs: stamps } : { key, val, ts }, stamps }
  }

  // --- groups (see the module comment); with one group these reduce to plain LWW ---

  /** The entry supplying each group of a winner. */
  const partsOf = (w: Entry<V>): readonly Entry<V>[] => w.parts ?? Array.from({ length: G }, () => w)
  /** The distinct entries among `parts`. */
  const distinct = (parts: readonly Entry<V>[]): Entry<V>[] => [...new Set(parts)]
  /** The winner record of `parts`: the entry itself when one supplies every group. */
  const slotOf = (key: string, parts: readonly Entry<V>[]): Entry<V> => {
    const first = parts[0]!
    if (parts.every((p) => p === first)) return first
    let ts = first.ts
    for (const p of parts) if (p.ts > ts) ts = p.ts
    const val = groups!.combine(parts.map((p) => p.val))
    return { key, val, ts, raw: MERGED, stamps: parts.map((p, g) => stampOf(p, g)), parts }
  }
  /** The parts that `candidates` make: per group, the entry that supplies it. */
  const bestParts = (candidates: readonly Entry<V>[]): Entry<V>[] => {
    const parts: Entry<V>[] = []
    for (let g = 0; g < G; g++) {
      let best = candidates[0]!
      for (const c of candidates) if (beatsIn(c, best, g)) best = c
      parts.push(best)
    }
    return parts
  }
  /** Stamps of a local write of `val` over `cur`: the groups it changes get `ts`, the others keep theirs. */
  const stampsFor = (cur: Entry<V> | undefined, val: V, ts: number): number[] | undefined => {
    // A new key: every group at `ts`, which is what no stamps say (and no array to allocate).
    if (groups === undefined || cur === undefined) return undefined
    const stamps: number[] = []
    for (let g = 0; g < G; g++) stamps.push(groups.differs(cur.val, val, g) ? ts : stampOf(cur, g))
    return stamps
  }
  // Keys a peer's transaction added or removed entries of (with `writeBack`): after it, each is
  // written back as one entry when the entry an older reader picks (the newest) does not hold the
  // value this map reads.
  const touchedKeys = new Set<string>()
  const writeBack = groups !== undefined && options.writeBack === true
  /** The entry a reader without groups picks for `key`: the newest of all its entries. */
  const plainWinner = (key: string, w: Entry<V>): Entry<V> => {
    let best = w.parts === undefined ? w : w.parts[0]!
    for (const p of w.parts ?? []) if (beats(p, best)) best = p
    for (const s of staleOf(key)) if (beats(s, best)) best = s
    return best
  }
  const differsAnywhere = (a: V, b: V): boolean => {
    for (let g = 0; g < G; g++) if (groups!.differs(a, b, g)) return true
    return false
  }

  const addStale = (e: Entry<V>) => {
    const cur = staleByKey.get(e.key)
    if (cur === undefined) staleByKey.set(e.key, e)
    else if (Array.isArray(cur)) cur.push(e)
    else staleByKey.set(e.key, [cur, e])
    staleCount++
  }
  const removeStale = (e: Entry<V>) => {
    const cur = staleByKey.get(e.key)
    if (cur === e) staleByKey.delete(e.key)
    else {
      const list = cur as Entry<V>[]
      list.splice(list.indexOf(e), 1)
      if (list.length === 1) staleByKey.set(e.key, list[0]!)
    }
    staleCount--
  }
  /** The stale entry of `key` whose raw value is `raw`. */
  const staleWith = (key: string, raw: unknown): Entry<V> | undefined => {
    const cur = staleByKey.get(key)
    if (cur === undefined || !Array.isArray(cur)) return cur?.raw === raw ? cur : undefined
    for (const s of cur) if (s.raw === raw) return s
    return undefined
  }
  const staleOf = (key: string): readonly Entry<V>[] => {
    const cur = staleByKey.get(key)
    return cur === undefined ? [] : Array.isArray(cur) ? cur : [cur]
  }
  const noteChange = (key: string, before: V | undefined, after: Entry<V> | undefined) => {
    if (!changes) return
    const existing = changes.get(key)
    if (existing) existing.after = shown(after)
    else changes.set(key, { before, after: shown(after) })
  }

  const add = (raw: unknown) => {
    // A deferred entry being stored: the map applied it when it was written.
    if (preApplied.size > 0 && preApplied.delete(raw)) return
    const mine = own.length > 0 ? ownEntry(raw) : undefined
    const e = mine ?? decode(raw)
    if (!e) return // garbage from a peer: ignore, never crash
    if (writeBack && current !== undefined && !current.local) touchedKeys.add(e.key)
    seenTs(e.key, e.ts)
    if (isValid !== undefined && mine === undefined && !isValid(e.key, e.val)) rejected.add(e)
    else if (current && entryObservers.size > 0) for (const fn of entryObservers) fn(e.key, e.val, current)
    const cur = winnerOf(e.key)
    if (!cur) {
      winners.set(e.key, e)
      noteChange(e.key, undefined, e)
      return
    }
    if (cur.parts === undefined) {
      // The usual case, one entry supplying every group: no arrays unless the new one takes only some.
      let taken = 0
      for (let g = 0; g < G; g++) if (beatsIn(e, cur, g)) taken++
      if (taken === 0) {
        addStale(e)
        return
      }
      if (taken === G) {
        winners.set(e.key, e)
        addStale(cur)
        noteChange(e.key, shown(cur), e)
        return
      }
    }
    const was = partsOf(cur)
    let parts: Entry<V>[] | undefined
    for (let g = 0; g < G; g++)
      if (beatsIn(e, was[g]!, g)) {
        parts ??= was.slice()
        parts[g] = e
      }
    if (parts === undefined) {
      addStale(e)
      return
    }
    const slot = slotOf(e.key, parts)
    winners.set(e.key, slot)
    for (const p of distinct(was)) if (!parts.includes(p)) addStale(p)
    noteChange(e.key, shown(cur), slot)
  }
  const remove = (raw: unknown) => {
    const key = keyOf(raw)
    if (key === undefined) return
    const stale = staleWith(key, raw)
    if (stale) {
      if (rejected.size > 0) rejected.delete(stale)
      removeStale(stale)
      return
    }
    if (writeBack && current !== undefined && !current.local) touchedKeys.add(key)
    const w = winnerOf(key)
    if (w === undefined) return
    const was = distinct(partsOf(w))
    const gone = was.find((p) => p.raw === raw)
    if (gone === undefined) return
    const before = shown(w)
    if (rejected.size > 0) rejected.delete(gone)
    // A part is gone (deleted key, or swept by a peer that already saw a newer entry we have not
    // received yet): the value is made again from the other parts and the stale entries.
    winners.delete(key)
    const candidates = was.filter((p) => p !== gone)
    for (const s of [...staleOf(key)]) {
      removeStale(s)
      candidates.push(s)
    }
    if (candidates.length === 0) {
      noteChange(key, before, undefined)
      return
    }
    const parts = bestParts(candidates)
    const slot = slotOf(key, parts)
    winners.set(key, slot)
    for (const c of candidates) if (!parts.includes(c)) addStale(c)
    noteChange(key, before, slot)
  }

  // Initial load: walk the items instead of copying the array (`toArray`). A valid array entry
  // of a key not seen yet becomes its winner as it is (lazy winners, see the module comment).
  const lazy = codec !== undefined && (isValid === undefined || codec.isValidEntry !== undefined)
  for (let item = firstItem(yarray); item !== null; item = item.right) {
    if (item.deleted || !item.countable) continue
    for (const raw of item.content.getContent()) {
      // `keyOf` checks an array entry's tag, key and timestamp.
      const key = lazy && Array.isArray(raw) ? keyOf(raw) : undefined
      if (
        key !== undefined &&
        !winners.has(key) &&
        (isValid === undefined || codec!.isValidEntry!(raw, key))
      ) {
        seenTs(key, raw[2] as number)
        winners.set(key, raw)
        continue
      }
      add(raw)
    }
  }

  // Walks only the structs of this transaction (not event.changes, which scans the
  // whole array and concatenates every insert: O(n) per write, O(n²) per big batch).
  const handler = (_event: Y.YArrayEvent<StoredEntry<V>>, transaction: Y.Transaction) => {
    changes = new Map()
    current = transaction
    const clients = structsByClient(transaction.doc)
    // Deletions first: an entry added and swept in one transaction never wins.
    transaction.deleteSet.clients.forEach((ranges, client) => {
      const structs = clients.get(client)
      if (!structs) return
      const born = transaction.beforeState.get(client) ?? 0
      for (const { clock, len } of ranges) {
        for (let i = Y.findIndexSS(structs, clock); i < structs.length; i++) {
          const s = structs[i]!
          if (s.id.clock >= clock + len) break
          if (!(s instanceof Y.Item) || s.parent !== yarray) continue
          // Added and deleted in this transaction: it never took part, unless it is a deferred
          // entry, which the map applied when it was written.
          const bornHere = s.id.clock >= born
          if (bornHere && preApplied.size === 0) continue
          const content = s.content.getContent()
          const from = Math.max(clock, s.id.clock) - s.id.clock
          const to = Math.min(clock + len, s.id.clock + s.length) - s.id.clock
          for (let j = from; j < to; j++) if (!bornHere || preApplied.delete(content[j])) remove(content[j])
        }
      }
    })
    transaction.afterState.forEach((after, client) => {
      const before = transaction.beforeState.get(client) ?? 0
      if (after <= before) return
      const structs = clients.get(client)!
      for (let i = Y.findIndexSS(structs, before); i < structs.length; i++) {
        const s = structs[i]!
        if (s.id.clock >= after) break
        if (!(s instanceof Y.Item) || s.parent !== yarray || s.deleted) continue
        const content = s.content.getContent()
        for (let j = Math.max(0, before - s.id.clock); j < content.length; j++) add(content[j])
      }
    })
    const done = changes
    changes = null
    current = undefined
    own.length = 0
    ownAt = 0
    for (const [key, c] of done) if (c.before === c.after) done.delete(key)
    if (done.size > 0) for (const fn of observers) fn(done, transaction)
    if (touchedKeys.size > 0) scheduleWriteBack()
  }
  yarray.observe(handler)

  // Values written back as one entry each (see the module comment): after the peer's transaction
  // (written inside it, they would travel as the peer's), stamps kept, so the entry supplies
  // exactly the groups its parts did and supersedes them.
  let writeBackScheduled = false
  const scheduleWriteBack = () => {
    if (writeBackScheduled) return
    writeBackScheduled = true
    afterThisTask(() => {
      writeBackScheduled = false
      const keys = [...touchedKeys]
      touchedKeys.clear()
      if (!yarray.doc) return
      const writes: Entry<V>[] = []
      for (const key of keys) {
        const w = winnerOf(key)
        if (w === undefined || shown(w) === undefined) continue
        const plain = plainWinner(key, w)
        if (plain === w || (isRejected(plain) === false && !differsAnywhere(plain.val, w.val))) continue
        writes.push(w)
      }
      if (writes.length === 0) return
      transact((tr) => {
        sweepIfNeeded(tr)
        const entries: StoredEntry<V>[] = []
        for (const w of writes) {
          const stamps = Array.from({ length: G }, (_, g) => stampOf(w, g))
          const entry = encode(w.key, w.val, nextTs(w.key), stamps)
          own.push(entry)
          entries.push(entry.raw as StoredEntry<V>)
        }
        append(entries)
      }, options.writeBackOrigin)
    })
  }

  let pending: StoredEntry<V>[] | undefined
  // Own entries appended in the current run (see the module comment).
  let run = 0
  const append = (entries: StoredEntry<V>[]) => {
    if (run >= MAX_RUN) {
      yarray.insert(0, entries)
      run = 0
      // Yjs' push walks to the end from its furthest search marker (the start if none), after
      // a scan of all markers; reading the last entry by index leaves a marker there, so the
      // pushes of the next run walk a few items instead of all of them (two per MAX_RUN
      // entries). The older markers are dropped first (they are a cache, which Yjs itself
      // clears after every remote change), or they pile up to 80 for every push to scan.
      // Speed only.
      if (yarray.length > 1) {
        dropSearchMarkers(yarray)
        yarray.get(yarray.length - 1)
      }
    } else {
      yarray.push(entries)
      run += entries.length
    }
  }
  /**
   * The timestamp of a local write of `key`: above every one seen of `key`. In the millisecond of
   * the last one this replica gave, while it is still the highest seen, a key that neither took
   * it nor has an entry with it takes it again (see the module comment).
   */
  const nextTs = (key: string) => {
    const now = clock()
    if (now > lastTs) lastTs = now
    else if (lastTs === givenTs && !keysAtGiven.has(key) && keysAtGiven.size < KEYS_AT_ONE_TS) {
      keysAtGiven.add(key)
      return lastTs
    } else lastTs++
    givenTs = lastTs
    keysAtGiven.clear()
    keysAtGiven.add(key)
    return lastTs
  }

  // Delete stale entries in one pass over the array; called inside a write transaction, at
  // most once per transaction: the swept entries leave `staleByKey` only when the transaction
  // ends, so a second pass in the same transaction would scan the whole array again for nothing
  // (O(n) per set inside a batch).
  let sweptIn: Y.Transaction | undefined
  const sweepIfNeeded = (tr: Y.Transaction) => {
    if (sweptIn === tr || staleCount <= Math.max(minStale, winners.size * staleRatio)) return
    sweptIn = tr
    const all = yarray.toArray()
    let end = -1
    for (let i = all.length - 1; i >= -1; i--) {
      const key = i >= 0 ? keyOf(all[i]) : undefined
      const stale = key !== undefined && staleWith(key, all[i]) !== undefined
      if (stale && end === -1) end = i
      if (!stale && end !== -1) {
        yarray.delete(i + 1, end - i)
        end = -1
      }
    }
  }

  let storeScheduled = false
  const storeLater = () => {
    if (storeScheduled) return
    storeScheduled = true
    afterThisTask(() => {
      storeScheduled = false
      flush()
    })
  }
  /**
   * Push the deferred entries into the current transaction. One superseded by a later held write of
   * its key is dropped (that write says all it said); one a peer's entry superseded is stored all
   * the same, stale at once: peers learn of the write that lost (a file's row announces a content
   * change, which happened whether its row won or not: files-table.ts, `onRemoteRow`).
   */
  const storeDeferred = (tr: Y.Transaction, withPinned = false) => {
    if (holdTimer !== undefined) {
      hostClearTimeout(holdTimer)
      holdTimer = undefined
    }
    sweepIfNeeded(tr)
    const raws: StoredEntry<V>[] = []
    // Entries of pinned keys stay held, in order (see `pin`).
    let kept = 0
    // Keys by their last held entry's index (built at the first stale entry): an entry that a
    // later held write of its key superseded is dropped.
    let lastHeld: Map<string, number> | undefined
    const supersededHere = (e: Entry<V>, i: number): boolean => {
      lastHeld ??= lastIndexByKey(deferred)
      return lastHeld.get(e.key)! > i
    }
    for (const [i, e] of deferred.entries()) {
      if (!withPinned && pinned.size > 0 && pinned.has(e.key)) deferred[kept++] = e
      else if (staleWith(e.key, e.raw) === e && supersededHere(e, i)) removeStale(e)
      else {
        preApplied.add(e.raw)
        raws.push(e.raw as StoredEntry<V>)
      }
    }
    deferred.length = kept
    if (raws.length > 0) append(raws)
  }
  let storing = false
  const flush = () => {
    if (deferred.length === 0 || storing) return
    const doc = yarray.doc
    if (!doc) throw new TypeError('LwwMap: the Y.Array is not attached to a Y.Doc')
    // Inside a local transaction the entries join it (its origin, its update). Inside a peer's
    // (an observer of a remote change) they wait for the end of the task: stored there, they
    // would travel as the peer's, and a provider never sends a peer's changes back.
    const running = runningTransaction(doc)
    if (running !== null && !running.local) return storeLater()
    // `storing`: an observer of the storing transaction may write (a write-back), which must not store again.
    storing = true
    try {
      doc.transact(storeDeferred, deferredOrigin)
    } finally {
      storing = false
    }
  }
  // Keys whose held entries wait for something else first (see `pin`).
  const pinned = new Set<string>()
  /** Held writes: store once `holds` is 0, else at the latest `maxHoldMs` from now. */
  const storeSoon = () => {
    if (deferred.length === 0 || !yarray.doc) return
    if (holds === 0) flush()
    else
      holdTimer ??= hostSetTimeout(() => {
        holdTimer = undefined
        flush()
      }, maxHoldMs)
  }
  const pin = (key: string) => {
    pinned.add(key)
  }
  const unpin = (keys: Iterable<string>) => {
    for (const key of keys) pinned.delete(key)
    storeSoon()
  }
  const hold = (): (() => void) => {
    holds++
    let released = false
    return () => {
      if (released) return
      released = true
      holds--
      storeSoon()
    }
  }
  // The source of held writes, kept while their origin is the same (one object per write cost
  // ~1 % of a batch of small writes; observers only read it).
  let localSource: LwwChangeSource = { local: true, origin: undefined }
  /** A local write outside any transaction while held: applied now, stored by `flush`. */
  const setDeferred = (key: string, val: V, origin: unknown) => {
    if (deferred.length > 0 && origin !== deferredOrigin) flush()
    const cur = winnerOf(key)
    const ts = nextTs(key)
    const e = encode(key, val, ts, stampsFor(cur, val, ts))
    deferred.push(e)
    deferredOrigin = origin
    if (origin !== localSource.origin) localSource = { local: true, origin }
    const source = localSource
    if (entryObservers.size > 0) for (const fn of entryObservers) fn(key, val, source)
    // `nextTs` is above every timestamp seen and the stamps keep the others': the new entry supplies every group.
    winners.set(key, e)
    if (cur) for (const p of distinct(partsOf(cur))) addStale(p)
    const before = shown(cur)
    if (before !== val && observers.size > 0) {
      // Not `new Map([[…]])`: built from an iterable, a Map costs an iterator and an array more.
      const done = new Map<string, LwwChange<V>>()
      done.set(key, { before, after: val })
      for (const fn of observers) fn(done, source)
    }
    if (deferred.length >= maxHeld) flush()
    else storeSoon()
  }

  /**
   * A transaction of this map's own: deferred entries are stored first (in it, or before it when
   * none is running). In a peer's transaction they stay deferred (see `flush`), except for a
   * delete (`mustStore`), which must find every entry of its keys in the array.
   */
  const transact = (fn: (tr: Y.Transaction) => void, origin?: unknown, mustStore = false) => {
    const doc = yarray.doc
    if (!doc) throw new TypeError('LwwMap: the Y.Array is not attached to a Y.Doc')
    if (deferred.length > 0 && runningTransaction(doc) === null && origin !== deferredOrigin) flush()
    doc.transact((tr) => {
      if (deferred.length > 0 && (tr.local || mustStore)) storeDeferred(tr, mustStore)
      fn(tr)
    }, origin)
  }

  const deleteMany = (keys: Iterable<string>, origin?: unknown) => {
    const doomed = new Set<string>()
    for (const key of keys) if (winners.has(key) || staleByKey.has(key)) doomed.add(key)
    if (doomed.size === 0) return
    transact(
      () => {
        const all = yarray.toArray()
        for (let i = all.length - 1; i >= 0; i--) {
          const key = keyOf(all[i])
          if (key !== undefined && doomed.has(key)) yarray.delete(i, 1)
        }
      },
      origin,
      true,
    )
  }

  return {
    yarray,
    get: (key) => shown(winnerOf(key)),
    has(key) {
      const e = winners.get(key)
      return e !== undefined && !isRejected(e)
    },
    set(key, val, origin) {
      // Held while someone holds the map or the key is pinned, outside any transaction (see the
      // module comment and `pin`).
      if (
        (holds > 0 || (pinned.size > 0 && pinned.has(key))) &&
        pending === undefined &&
        yarray.doc &&
        runningTransaction(yarray.doc) === null
      )
        return setDeferred(key, val, origin)
      transact((tr) => {
        sweepIfNeeded(tr)
        const ts = nextTs(key)
        const entry = encode(key, val, ts, stampsFor(winnerOf(key), val, ts))
        own.push(entry)
        if (pending) pending.push(entry.raw as StoredEntry<V>)
        else append([entry.raw as StoredEntry<V>])
      }, origin)
    },
    delete: (key, origin) => deleteMany([key], origin),
    deleteMany,
    batch(fn, origin) {
      // One push for the whole batch: pushing entries one by one makes Yjs merge
      // them pairwise, copying the growing item each time (O(n²) for a big batch).
      if (pending) return fn()
      const entries: StoredEntry<V>[] = []
      pending = entries
      try {
        transact(() => {
          try {
            fn()
          } finally {
            pending = undefined
            if (entries.length > 0) append(entries)
          }
        }, origin)
      } finally {
        pending = undefined
      }
    },
    // Lazy winners are valid (never in `rejected`); reading a value decodes it (`winnerOf`),
    // which replaces the map's value for that key: allowed while iterating a Map.
    *keys() {
      for (const [key, e] of winners) if (!isRejected(e)) yield key
    },
    *values() {
      for (const [key, e] of winners) if (!isRejected(e)) yield recordOf(key, e).val
    },
    *entries() {
      for (const [key, e] of winners) if (!isRejected(e)) yield [key, recordOf(key, e).val] as [string, V]
    },
    // Map.forEach: no [key, value] pair per entry, as `for…of` over the map makes.
    forEach(fn) {
      winners.forEach((e, key) => {
        if (!isRejected(e)) fn(recordOf(key, e).val, key)
      })
    },
    stampOf(key, g) {
      const w = winnerOf(key)
      return w === undefined ? undefined : stampOf(w, g)
    },
    staleValues(key) {
      const values: V[] = []
      for (const s of staleOf(key)) if (!isRejected(s)) values.push(s.val)
      return values
    },
    scan(fn) {
      winners.forEach((e, key) => {
        if (Array.isArray(e)) fn(key, undefined, e)
        else if (!isRejected(e)) fn(key, (e as Entry<V>).val, undefined)
      })
    },
    get size() {
      if (rejected.size === 0) return winners.size
      let n = 0
      for (const e of winners.values()) if (!isRejected(e)) n++
      return n
    },
    observe(fn) {
      observers.add(fn)
      return () => observers.delete(fn)
    },
    observeEntries(fn) {
      entryObservers.add(fn)
      return () => entryObservers.delete(fn)
    },
    hold,
    pin,
    unpin,
    flush,
    destroy() {
      if (yarray.doc) flush()
      if (holdTimer !== undefined) hostClearTimeout(holdTimer)
      yarray.unobserve(handler)
      observers.clear()
      entryObservers.clear()
    },
  }
}
