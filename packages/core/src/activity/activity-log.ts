/**
 * The activity log: one entry per agent tool call or bash run, stored on the
 * workspace's main doc (`Y.Array(ACTIVITY_KEY)`), so it syncs, persists and
 * converges like the files table. Entries are plain JSON, written once and
 * never edited (append-only); the only deletion is retention, which drops
 * the oldest entries by age and count (`Y.Map(ACTIVITY_CONFIG_KEY)` holds a
 * workspace's limits). Concurrent trims by two replicas delete the same or
 * neighbouring items; Yjs makes every replica end with the same array.
 *
 * What it deliberately doesn't do: decide what goes in an entry (the agent
 * package records calls), or hold file contents, tokens or environment
 * values (the recorder summarises arguments before they get here).
 *
 * Order: entries are listed newest first by `time`, ties broken by place in
 * the array (later first), so every replica lists a converged log the same way.
 */
import type * as Y from 'yjs'
import { afterThisTask } from '../host-timers.js'

/** Root key of the activity entries on the main doc. */
export const ACTIVITY_KEY = 'activity'
/** Root key of the per-workspace activity settings on the main doc. */
export const ACTIVITY_CONFIG_KEY = 'activity-config'

/** One file an entry changed. Version ids are history versions of the file (`fs.history`). */
export interface ActivityFileChange {
  /** File id (history, trash and undo follow the id across renames). */
  id: string
  type: 'file' | 'folder' | 'symlink'
  /** Path after the call (for a delete: where it was). */
  path: string
  /** Path before the call, when the call moved or renamed it. */
  from?: string
  created?: true
  deleted?: true
  /** History version holding the content before / after the call (files whose content changed or that were created/deleted). */
  before?: string
  after?: string
}

export interface ActivityEntry {
  id: string
  /** ms since the epoch, when the call started. */
  time: number
  session: string
  who: string
  tool: string
  /** Arguments, summarised: contents as `{ size, sha256 }`, never whole. */
  args: Record<string, unknown>
  status: 'ok' | 'error'
  /** Errno-style code of a failed call (`ENOENT`, `EIO`, …). */
  error?: string
  durationMs: number
  files: ActivityFileChange[]
}

export interface ActivityRetention {
  /** Most entries kept (oldest dropped first). */
  maxEntries: number
  /** Entries older than this are dropped, in ms. */
  maxAgeMs: number
}

export const DEFAULT_ACTIVITY_RETENTION: ActivityRetention = {
  maxEntries: 10_000,
  maxAgeMs: 30 * 24 * 3600_000,
}

export interface ActivityFilter {
  session?: string
  /** Entries that changed a file at or below this path (either side of a move). */
  pathPrefix?: string
  /** ms since the epoch: entries at or after it. */
  since?: number
  limit?: number
}

/** Entries `enqueue` holds at most before it appends them at once. */
export const MAX_QUEUED = 256

// One log per doc for the default clock, so every caller shares one queue (a reader on another
// ActivityLog object of the same doc still sees queued entries: its reads flush the same queue).
const logs = new WeakMap<Y.Doc, ActivityLog>()

/**
 * Append what the doc's log holds queued (`enqueue`), if it has a log: for whoever is about to
 * close the doc or wait for its changes to be stored (a connection's `flush` and `close`).
 */
export function flushQueuedActivity(doc: Y.Doc): void {
  logs.get(doc)?.flush()
}

/** How often retention drops entries by age (reads apply the age bound exactly anyway). */
const AGE_CHECK_MS = 60_000
/** Entries a log may hold above its count bound before they are dropped (see `trim`). */
const countSlack = (maxEntries: number) => Math.floor(maxEntries / 64)

const isEntry = (v: unknown): v is ActivityEntry =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as ActivityEntry).id === 'string' &&
  typeof (v as ActivityEntry).time === 'number' &&
  typeof (v as ActivityEntry).session === 'string' &&
  Array.isArray((v as ActivityEntry).files)

const under = (path: string, prefix: string) =>
  prefix === '/' || path === prefix || path.startsWith(prefix.endsWith('/') ? prefix : `${prefix}/`)

// Ties in time (calls within one millisecond) go by place in the array, later first: the array's
// order is the same on every replica once converged, and a session's calls are appended in order.
const newestFirst = (a: [ActivityEntry, number], b: [ActivityEntry, number]) =>
  b[0].time - a[0].time || b[1] - a[1]

/** The log of a main doc: lives as long as the doc (nothing to dispose). */
export interface ActivityLog {
  /** Append entries (one transaction), then apply retention. */
  append(entries: readonly ActivityEntry[], origin?: unknown): void
  /**
   * Append an entry soon, off the caller's path: `build` runs and its entry is appended with the
   * others queued in the same turn of the event loop, in one transaction, once that turn ends (or
   * at once when {@link MAX_QUEUED} wait). Reads through this log (`list`, `get`, `size`) and the
   * doc's destruction flush the queue first, so a reader never misses an entry that was queued.
   */
  enqueue(build: () => ActivityEntry, origin?: unknown): void
  /** Append what `enqueue` holds now (nothing to do when the queue is empty). */
  flush(): void
  /** Entries matching `filter`, newest first. */
  list(filter?: ActivityFilter): ActivityEntry[]
  /** One entry by id. */
  get(id: string): ActivityEntry | undefined
  /** The workspace's retention (defaults where unset). */
  retention(): ActivityRetention
  /** Change the workspace's retention (synced), and apply it. */
  setRetention(retention: Partial<ActivityRetention>, origin?: unknown): void
  /** Number of stored entries. */
  readonly size: number
}

/**
 * Attach to the activity log of `doc`.
 * @example
 * const log = attachActivityLog(fs.doc)
 * log.list({ session: 's1', limit: 20 })
 */
export function attachActivityLog(doc: Y.Doc, clock?: () => number): ActivityLog {
  if (clock) return createActivityLog(doc, clock)
  let log = logs.get(doc)
  if (!log) {
    log = createActivityLog(doc, Date.now)
    logs.set(doc, log)
  }
  return log
}

function createActivityLog(doc: Y.Doc, clock: () => number): ActivityLog {
  const array = doc.getArray<unknown>(ACTIVITY_KEY)
  const config = doc.getMap<unknown>(ACTIVITY_CONFIG_KEY)
  const retention = (): ActivityRetention => {
    const n = config.get('maxEntries')
    const age = config.get('maxAgeMs')
    return {
      maxEntries: typeof n === 'number' && n >= 0 ? Math.floor(n) : DEFAULT_ACTIVITY_RETENTION.maxEntries,
      maxAgeMs: typeof age === 'number' && age >= 0 ? age : DEFAULT_ACTIVITY_RETENTION.maxAgeMs,
    }
  }
  // When retention last dropped entries by age (ms since the epoch); see `trim`.
  let agedAt = Number.NEGATIVE_INFINITY
  const trim = (force: boolean) => {
    const { maxEntries, maxAgeMs } = retention()
    const now = clock()
    const cutoff = now - maxAgeMs
    // Dropping entries walks the array from its front, over the tombstones of every entry dropped
    // before (they never merge: their clocks are not consecutive). So a log at its bound does not
    // drop one entry per append: it drops by count once it holds 1/64 more than the bound, and by
    // age at most once a minute. `list` applies both bounds exactly, so readers never see the slack.
    const overCount = array.length - maxEntries
    const byAge = force || now - agedAt >= AGE_CHECK_MS
    if (!force && overCount <= countSlack(maxEntries) && !byAge) return
    if (byAge) agedAt = now
    // The array is in append order, which is roughly time order: count old entries from the front.
    let drop = Math.max(0, overCount)
    if (byAge)
      while (drop < array.length) {
        const v = array.get(drop)
        if (isEntry(v) && v.time >= cutoff) break
        drop++
      }
    if (drop > 0) array.delete(0, drop)
  }
  // The entries retention keeps, with their places: the newest `maxEntries` not older than
  // `maxAgeMs` (the stored array may hold up to the slack `trim` leaves).
  const retained = () => {
    const { maxEntries, maxAgeMs } = retention()
    const cutoff = clock() - maxAgeMs
    const stored = array.toArray()
    const out: [ActivityEntry, number][] = []
    for (let i = Math.max(0, stored.length - maxEntries); i < stored.length; i++) {
      const v = stored[i]
      if (isEntry(v) && v.time >= cutoff) out.push([v, i])
    }
    return out
  }
  const append = (entries: readonly ActivityEntry[], origin: unknown) => {
    if (entries.length === 0) return
    doc.transact(() => {
      // `insert` at the end, not `push`: Yjs finds an index through its search markers, which
      // stay at the end between appends, while `push` walks every item from the front.
      array.insert(array.length, [...entries])
      trim(false)
    }, origin)
  }
  // Entries waiting for the end of this turn of the event loop, in the order they were queued.
  let queued: { build: () => ActivityEntry; origin: unknown }[] = []
  let scheduled = false
  const flush = () => {
    if (queued.length === 0) return
    const batch = queued
    queued = []
    // One transaction per run of equal origins (callers pass none, or one per kind of writer).
    let start = 0
    for (let i = 1; i <= batch.length; i++) {
      if (i < batch.length && batch[i]!.origin === batch[start]!.origin) continue
      append(
        batch.slice(start, i).map((q) => q.build()),
        batch[start]!.origin,
      )
      start = i
    }
  }
  // A doc destroyed with entries queued (a closed workspace) takes them along first.
  doc.on('destroy', flush)
  return {
    append(entries, origin) {
      flush()
      append(entries, origin)
    },
    enqueue(build, origin) {
      queued.push({ build, origin })
      if (queued.length >= MAX_QUEUED) return flush()
      if (scheduled) return
      scheduled = true
      // After this task: the caller's response is on its way.
      afterThisTask(() => {
        scheduled = false
        try {
          flush()
        } catch (error) {
          // Nobody awaits this turn: a listener that fails (a store closed under it) must not take
          // the process down. The entries of that transaction are lost, and said so.
          console.error('yfs: activity entries could not be appended:', error)
        }
      })
    },
    flush,
    list(filter = {}) {
      flush()
      const { session, pathPrefix, since, limit } = filter
      const kept = retained()
      const out = kept.filter(
        ([e]) =>
          (session === undefined || e.session === session) &&
          (since === undefined || e.time >= since) &&
          (pathPrefix === undefined ||
            e.files.some(
              (f) => under(f.path, pathPrefix) || (f.from !== undefined && under(f.from, pathPrefix)),
            )),
      )
      out.sort(newestFirst)
      const entries = out.map(([e]) => e)
      return limit === undefined ? entries : entries.slice(0, limit)
    },
    get(id) {
      flush()
      return retained().find(([e]) => e.id === id)?.[0]
    },
    retention,
    setRetention(next, origin) {
      flush()
      doc.transact(() => {
        if (next.maxEntries !== undefined) config.set('maxEntries', next.maxEntries)
        if (next.maxAgeMs !== undefined) config.set('maxAgeMs', next.maxAgeMs)
        trim(true)
      }, origin)
    },
    get size() {
      flush()
      return array.length
    },
  }
}
