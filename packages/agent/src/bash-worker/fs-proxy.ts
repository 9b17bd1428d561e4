/**
 * The worker's filesystem: an IFileSystem whose every call is a message to
 * the host (main thread), which runs it on the real workspace filesystem.
 * `resolvePath` is pure and computed here; `getAllPaths`, the one
 * synchronous call just-bash makes (`ls` with a glob), blocks this worker
 * (never the host) until the host answers.
 *
 * Invariant: errors come back with the host error's name, message and errno
 * fields, so just-bash's message checks and our `.code` checks see what they
 * would in-process.
 */
import { type MessagePort, receiveMessageOnPort } from 'node:worker_threads'
import type { IFileSystem } from 'just-bash'
import {
  FS_LISTING_METHODS,
  FS_METADATA_METHODS,
  FS_PATH_METHODS,
  FS_READ_METHODS,
  FS_VOID_METHODS,
  type FsCall,
  type FsMethod,
  type FsVoidMethod,
  type HostToWorker,
  LSTAT_MANY,
  LSTAT_MANY_MAX,
  type LstatResult,
  READ_MANY,
  READ_MANY_MAX,
  type ReadKind,
  type ReadResult,
  type SyncReply,
  type WireError,
  type WriteAllowance,
  type WriteRoom,
} from './protocol.js'

// just-bash blocks globals such as `Atomics.wait` while a script runs (defense in depth against
// scripts reaching the host); this module is host code, so it keeps its own references.
const { store: atomicsStore, wait: atomicsWait } = Atomics
const hostSetImmediate = setImmediate

/** What a run has posted in all (bytes, rows, calls), at some moment. */
type PostedSoFar = WriteRoom & { calls: number }

/** Most posted calls, and bytes, a run may be ahead of the host (write-behind). */
const AHEAD_MAX_CALLS = 4096
const AHEAD_MAX_BYTES = 16 << 20

/** Most posted calls kept before they are sent. */
const OUTBOX_MAX = 128

/** An error from the host filesystem, rebuilt with its errno fields. */
export class HostFsError extends Error {
  readonly code?: string
  readonly syscall?: string
  readonly path?: string
  readonly dest?: string
  constructor(wire: WireError) {
    super(wire.message)
    this.name = wire.name
    this.code = wire.code
    this.syscall = wire.syscall
    this.path = wire.path
    this.dest = wire.dest
  }
}

/** A folder's listing as a run knows it (createStatPrefetch). */
interface Listing {
  names: string[]
  index: Map<string, number>
  // Names a dirent said are regular files (not symlinks).
  files: Set<string>
  // Names read ahead already (each at most once per listing: a script reading in another order
  // must not read the rest of the folder again at every miss).
  readAhead: Set<string>
  // Stats and reads missed in it: the second of each fetches ahead.
  misses: number
  readMisses: number
}

/** Folder listings kept for the prefetch (the most recent). */
const LISTINGS_KEPT = 8

/**
 * What a run knows of the workspace without asking the host: folder listings, entries' stats
 * and the kinds of entries the run itself made.
 *
 * - **Stats.** A script that lists a folder and then stats its entries (`cp -r`, `tar -c`,
 *   `ls -la`, `find`) would cross to the host once per entry; here the second stat missed in a
 *   listed folder asks for the next `LSTAT_MANY_MAX` entries' stats in one message. Only
 *   successful `lstat`s are kept; `stat` and `exists` use them for entries that are not
 *   symlinks (they follow links).
 * - **Names.** `exists` of a name a listing lacks is false. The second `exists` missed in a
 *   folder nobody listed lists it (one message). A loop of `echo … > dir/fN` asks `exists` of
 *   every new file first.
 * - **The run's own changes.** `writeFile`, `appendFile` and `mkdir` answer with the real path
 *   of what they changed (FS_PATH_METHODS). When it is the path asked for (no symlink on the
 *   way), the name joins its folder's listing and its kind is known (`exists` is true, a
 *   `mkdir -p` of a folder made or seen is answered here: `tar -x` makes each file's folder
 *   first), and its old stat is dropped. Any other change of the run (or one through a symlink,
 *   or one that failed) drops everything.
 *
 * What is known answers as of when it was read, like a stat that ran a little earlier: the same
 * race a real filesystem has between `readdir` and `stat`.
 */
export function createStatPrefetch(
  lstatMany: (paths: string[]) => Promise<LstatResult[]>,
  // A folder's names (the host's `readdir`), for `exists` in a folder nobody listed, and whether
  // the host found it at that very path (no symlink on the way).
  readdir: (dir: string) => Promise<{ names: string[]; real: boolean }> = async () => {
    throw new Error('no readdir')
  },
  // Files' texts, bytes or byte strings (the host's `readFile`, UTF-8, `readFileBuffer` or
  // `readFileBytes`), for the read-ahead.
  readMany?: (paths: string[], kind: ReadKind) => Promise<ReadResult[]>,
) {
  const listings = new Map<string, Listing>()
  // What was read ahead, each given out once (the next read of its path as that kind), then dropped.
  const texts = new Map<string, { kind: ReadKind; value: string | Uint8Array }>()
  const reading = new Map<string, Promise<void>>()
  const stats = new Map<string, Record<string, unknown>>()
  // Entries the run made itself (and folders seen as folders): what `exists` and `mkdir -p` need.
  const kinds = new Map<string, 'file' | 'folder'>()
  // At most how many bytes the files the run wrote hold (write-behind's appends need it).
  const sizes = new Map<string, number>()
  // `exists` misses per folder nobody listed: the second lists it.
  const unlisted = new Map<string, number>()
  // Paths being fetched: a script stats many entries at once (Promise.all), and they wait for
  // the one fetch instead of each asking for the rest of the folder.
  const fetching = new Map<string, Promise<void>>()
  let generation = 0

  const parentOf = (path: string) => {
    const cut = path.lastIndexOf('/')
    return { dir: cut === 0 ? '/' : path.slice(0, cut), name: path.slice(cut + 1) }
  }

  /**
   * What the stat prefetch and the read-ahead share: on the second miss (`counter`) of `path` in
   * its folder's listing, the entries from it on that `pick` takes (at most `max`) are fetched in
   * one call; each answer that succeeded is kept (`keep`) unless the run changed something
   * meanwhile, and a call for one of those paths waits for the fetch (`inFlight`).
   */
  async function fetchAhead<T>(
    path: string,
    ahead: {
      counter: 'misses' | 'readMisses'
      max: number
      inFlight: Map<string, Promise<void>>
      // Whether this miss may fetch at all, and which entries (a picked entry may be noted).
      eligible(listing: Listing, name: string): boolean
      pick(listing: Listing, name: string, path: string): boolean
      fetch(paths: string[]): Promise<({ ok: true; value: T } | { ok: false })[]>
      keep(path: string, value: T): void
    },
  ): Promise<void> {
    const running = ahead.inFlight.get(path)
    if (running) return running
    const { dir, name } = parentOf(path)
    const listing = listings.get(dir)
    const at = listing?.index.get(name)
    if (!listing || at === undefined || !ahead.eligible(listing, name)) return
    // The first miss may be a lone call (`ls dir; cat dir/one`): only a second one fetches.
    if (++listing[ahead.counter] < 2) return
    const base = dir === '/' ? '' : dir
    const paths: string[] = []
    for (let k = at; k < listing.names.length && paths.length < ahead.max; k++) {
      const entry = listing.names[k]!
      if (ahead.pick(listing, entry, `${base}/${entry}`)) paths.push(`${base}/${entry}`)
    }
    const started = generation
    const run = ahead.fetch(paths).then(
      (results) => {
        // A change of this run meanwhile: these may predate it.
        if (generation !== started) return
        results.forEach((r, k) => {
          if (r.ok) ahead.keep(paths[k]!, r.value)
        })
      },
      // Only a shortcut: each path is asked on its own instead.
      () => undefined,
    )
    for (const p of paths) ahead.inFlight.set(p, run)
    try {
      await run
    } finally {
      for (const p of paths) if (ahead.inFlight.get(p) === run) ahead.inFlight.delete(p)
    }
  }

  /** Stats from `path` on in its folder's listing, on the second stat missed there. */
  function fill(path: string): Promise<void> {
    return fetchAhead(path, {
      counter: 'misses',
      max: LSTAT_MANY_MAX,
      inFlight: fetching,
      eligible: () => true,
      pick: (_listing, _name, entry) => !stats.has(entry) && !fetching.has(entry),
      fetch: lstatMany,
      keep: (entry, value) => {
        stats.set(entry, value as Record<string, unknown>)
        noteSize(entry, value, true)
      },
    })
  }

  /** Read ahead from `path` in its folder's listing, on the second read missed there. */
  function readAhead(path: string, kind: ReadKind): Promise<void> {
    if (!readMany) return Promise.resolve()
    return fetchAhead(path, {
      counter: 'readMisses',
      max: READ_MANY_MAX,
      inFlight: reading,
      eligible: (listing, name) => !listing.readAhead.has(name),
      // Each entry at most once per listing.
      pick: (listing, name) => {
        if (listing.readAhead.has(name)) return false
        listing.readAhead.add(name)
        return true
      },
      fetch: (paths) => readMany(paths, kind),
      keep: (entry, value) => texts.set(entry, { kind, value }),
    })
  }

  /**
   * A stat the host gave of `path`: a regular file's size is known (an lstat's, or a stat's of a
   * file the run wrote at that very path: no symlink that the stat would follow).
   */
  function noteSize(path: string, value: unknown, isLstat: boolean): void {
    const stat = value as { isFile?: unknown; isSymbolicLink?: unknown; size?: unknown } | undefined
    if (stat?.isFile !== true || typeof stat.size !== 'number') return
    if (isLstat ? stat.isSymbolicLink !== true : kinds.get(path) === 'file') sizes.set(path, stat.size)
  }

  /** Keep `names` as the listing of `dir` (the most recent `LISTINGS_KEPT`). */
  function keepListing(dir: string, names: string[], files = new Set<string>()): void {
    listings.delete(dir)
    const index = new Map(names.map((n, k) => [n, k]))
    listings.set(dir, { names, index, files, readAhead: new Set(), misses: 0, readMisses: 0 })
    if (listings.size > LISTINGS_KEPT) listings.delete(listings.keys().next().value!)
  }

  /** `exists` missed in `dir`, which has no listing: the second miss lists it. */
  async function listOnSecondMiss(dir: string): Promise<void> {
    const misses = (unlisted.get(dir) ?? 0) + 1
    unlisted.set(dir, misses)
    if (misses !== 2) return
    const started = generation
    try {
      const { names, real } = await readdir(dir)
      // A change of this run meanwhile: the names may predate it.
      if (generation === started) {
        keepListing(dir, names)
        if (real) kinds.set(dir, 'folder')
      }
    } catch {
      // Not a folder (or gone): each `exists` is asked on its own.
    }
  }

  /** `name` is now an entry of `dir` (the run made it): in the listing, if there is one. */
  function addName(dir: string, name: string): void {
    const listing = listings.get(dir)
    if (!listing || listing.index.has(name)) return
    listing.index.set(name, listing.names.length)
    listing.names.push(name)
  }

  function forget(): void {
    generation++
    listings.clear()
    stats.clear()
    kinds.clear()
    sizes.clear()
    texts.clear()
    unlisted.clear()
  }

  return {
    /** `lstat`, `stat` or `exists` of `path`: from what is known where it knows, else `ask()`. */
    async answer(method: 'lstat' | 'stat' | 'exists', given: string, ask: () => Promise<unknown>) {
      const path = resolveVirtualPath('/', given)
      if (method === 'exists') {
        if (kinds.has(path)) return true
        const { dir, name } = parentOf(path)
        if (path !== '/' && !listings.has(dir) && !stats.has(path)) await listOnSecondMiss(dir)
        const listing = listings.get(dir)
        // A name its listing lacks is absent only in a real folder: through a symlinked one, the
        // run may have made it by the real path, which adds it to that path's listing alone.
        if (
          path !== '/' &&
          listing &&
          !listing.index.has(name) &&
          (dir === '/' || kinds.get(dir) === 'folder')
        )
          return false
        // A regular file its folder's dirents named (not a symlink, whose target may be gone).
        if (listing?.files.has(name)) return true
      }
      if (!stats.has(path) && method !== 'exists') await fill(path)
      const known = stats.get(path)
      if (known && (method === 'lstat' || known.isSymbolicLink !== true))
        return method === 'exists' ? true : { ...known }
      if (method === 'exists') return ask()
      const started = generation
      const value = await ask()
      // Its size, for appends without waiting (`>> f` stats f first): unless the run changed
      // something meanwhile, which the answer may predate.
      if (generation === started) noteSize(path, value, method === 'lstat')
      return value
    },
    /**
     * `readFile` of `given` as UTF-8 text (`kind` 'text'), `readFileBuffer` ('bytes') or
     * `readFileBytes` ('latin1'): read ahead when the script reads the files of a listed folder
     * one after another (`sed -i … dir/*`, `grep -r`, `tar -c`, `cat dir/*`, `wc -l dir/*`),
     * else `ask()`.
     */
    async read<T extends string | Uint8Array>(
      given: string,
      kind: ReadKind,
      ask: () => Promise<T>,
    ): Promise<T> {
      const path = resolveVirtualPath('/', given)
      if (!texts.has(path)) await readAhead(path, kind)
      const known = texts.get(path)
      if (known === undefined) return ask()
      texts.delete(path)
      // Read ahead as another kind: asked again, as the script asks.
      if (known.kind !== kind) return ask()
      return known.value as T
    },
    /**
     * A folder's listing (`readdir` names or dirents), kept for the prefetch; returned as is.
     * `real`: the host says the folder's path is its real path (no symlink on the way).
     */
    listed<T extends string | { name: string }>(given: string, entries: T[], real = false): T[] {
      const files = new Set<string>()
      for (const e of entries)
        if (typeof e !== 'string' && (e as { isFile?: unknown }).isFile === true) {
          if ((e as { isSymbolicLink?: unknown }).isSymbolicLink !== true) files.add(e.name)
        }
      const dir = resolveVirtualPath('/', given)
      keepListing(
        dir,
        entries.map((e) => (typeof e === 'string' ? e : e.name)),
        files,
      )
      // A folder found at its real path: the run may write into it without waiting, as into one it made.
      if (real) kinds.set(dir, 'folder')
      return entries
    },
    /** Whether `given` is known to be a folder (made by the run, or a stat said so): `mkdir -p` has nothing to do. */
    isFolder(given: string): boolean {
      const path = resolveVirtualPath('/', given)
      if (kinds.get(path) === 'folder') return true
      const known = stats.get(path)
      return known !== undefined && known.isDirectory === true && known.isSymbolicLink !== true
    },
    /**
     * What `path` (normalised) is as far as the run knows for sure: a file or folder it made
     * (real, no symlink on the way), `absent` from a listing of its folder, a `file` a listing's
     * dirent says is one, else `undefined`.
     */
    entryOf(path: string): 'file' | 'folder' | 'absent' | undefined {
      const kind = kinds.get(path)
      if (kind) return kind
      if (path === '/') return 'folder'
      const { dir, name } = parentOf(path)
      const listing = listings.get(dir)
      if (!listing) return undefined
      if (!listing.index.has(name)) return 'absent'
      // In a real folder (the caller's check), a regular file is real too.
      return listing.files.has(name) ? 'file' : undefined
    },
    /** Whether `dir` (normalised) is a real folder the run made or found: `/`, or one in `kinds`. */
    isRealFolder(dir: string): boolean {
      return dir === '/' || kinds.get(dir) === 'folder'
    },
    /** At most how many bytes the file at `path` holds, when the run wrote it. */
    sizeOf(path: string): number | undefined {
      return sizes.get(path)
    },
    /** The run wrote the file at `path` (normalised): it holds at most `bytes`. */
    wrote(path: string, bytes: number): void {
      sizes.set(path, bytes)
    },
    /** The run is about to change `given` (FS_PATH_METHODS): fetches on their way are not kept, its stat goes. */
    changing(given: string): void {
      generation++
      const path = resolveVirtualPath('/', given)
      stats.delete(path)
      texts.delete(path)
    },
    /**
     * The run changed `given` (`method`: FS_PATH_METHODS) and the host says its real path is
     * `real`: what is known of it is brought up to date when that is the path itself, else dropped.
     */
    changed(method: string, given: string, real: string | undefined): void {
      const path = resolveVirtualPath('/', given)
      if (real !== path || path === '/') {
        forget()
        return
      }
      stats.delete(path)
      // Its mode or mtime: what else is known of it (kind, size, its folder's names) still holds.
      if (FS_METADATA_METHODS.has(method)) return
      if (method === 'mkdir') sizes.delete(path)
      const kind = method === 'mkdir' ? 'folder' : 'file'
      kinds.set(path, kind)
      // `mkdir -p` made (or found) every folder on the way: none of them is a symlink either.
      for (let at = path; at !== '/'; ) {
        const { dir, name } = parentOf(at)
        addName(dir, name)
        // A folder known already had the folders above it marked (and named) when it was.
        if (dir === '/' || kinds.get(dir) === 'folder') break
        kinds.set(dir, 'folder')
        at = dir
      }
    },
    /** This run changed something: drop everything known. */
    forget,
  }
}

/**
 * At least as many bytes as `content` takes stored: its UTF-8 length for a string (no encoding a
 * shell passes makes more bytes of a string than UTF-8 does), its length for bytes; `undefined`
 * for anything else. A lone surrogate counts 3, a pair 6 (UTF-8: 3 and 4): an upper bound.
 */
export function contentBytesAtMost(content: unknown): number | undefined {
  if (content instanceof Uint8Array) return content.byteLength
  if (typeof content !== 'string') return undefined
  let n = content.length
  for (let i = 0; i < content.length; i++) {
    const c = content.charCodeAt(i)
    if (c >= 0x80) n += c < 0x800 ? 1 : 2
  }
  return n
}

type StatPrefetch = ReturnType<typeof createStatPrefetch>

/** A `Date` with a time (what the host's `utimes` stores): an invalid one is asked, not posted. */
function isValidDate(value: unknown): boolean {
  return value instanceof Date && Number.isFinite(value.getTime())
}

/** `readFile`'s options when they ask for UTF-8 text (the only text the read-ahead holds). */
function isUtf8(options: unknown): boolean {
  if (options === undefined || options === null) return true
  const encoding = typeof options === 'string' ? options : (options as { encoding?: unknown }).encoding
  return encoding === undefined || encoding === null || encoding === 'utf8' || encoding === 'utf-8'
}

/**
 * Which writes a run sends without waiting for their answer (WriteAllowance in protocol.ts): a
 * `writeFile` or `appendFile` it knows succeeds. Each one taken counts its bytes whole (and a row
 * for a new file) against the room the run started with. After a posted call failed anyway
 * (`stop`), none is.
 */
export function createWriteBehind(allowance: WriteAllowance | undefined, known: StatPrefetch) {
  let bytes = allowance?.bytes ?? 0
  let rows = allowance?.rows ?? 0
  // What the run has posted in all: a room the host reports leaves out what was posted after the call it answers.
  let spentBytes = 0
  let spentRows = 0
  let spentCalls = 0
  // What of it the host has surely run: what was posted before a call it answered (it runs
  // posted calls before any later one). The rest is ahead of it, and kept within AHEAD_MAX_*.
  let doneBytes = 0
  let doneCalls = 0
  let stopped = allowance === undefined
  const localRoots = new Set(allowance?.localRoots ?? [])
  /** The name of `path` (normalised) when a call on it may be posted at all: in a real folder, not under a local root (`/tmp`). */
  const postableName = (path: string): string | undefined => {
    if (stopped || !allowance || path === '/') return undefined
    const cut = path.lastIndexOf('/')
    const topEnd = path.indexOf('/', 1)
    if (localRoots.has(path.slice(1, topEnd === -1 ? undefined : topEnd))) return undefined
    return known.isRealFolder(cut === 0 ? '/' : path.slice(0, cut)) ? path.slice(cut + 1) : undefined
  }
  return {
    /**
     * Whether `method(path, content)` (path normalised) may go without waiting; when it may,
     * its bytes and row are counted and the result is the bytes the file holds at most after it.
     */
    take(method: 'writeFile' | 'appendFile', path: string, content: unknown): number | undefined {
      const name = postableName(path)
      if (name === undefined || !allowance) return undefined
      const entry = known.entryOf(path)
      if (entry === undefined || entry === 'folder') return undefined
      if (name.includes('\\') || name.includes('\0')) return undefined
      if ((contentBytesAtMost(name) ?? Infinity) > allowance.maxNameLength) return undefined
      if ((contentBytesAtMost(path) ?? Infinity) > allowance.maxPathLength) return undefined
      if (path.split('/').length - 1 > allowance.maxPathDepth) return undefined
      const size = contentBytesAtMost(content)
      if (size === undefined) return undefined
      const before = method === 'writeFile' ? 0 : entry === 'absent' ? 0 : known.sizeOf(path)
      if (before === undefined || before + size > allowance.maxFileSize) return undefined
      const newRows = entry === 'absent' ? 1 : 0
      if (size > bytes || newRows > rows) return undefined
      // Not too far ahead of the host (its memory, and how long a stop waits for the queue); a
      // waited call lets it catch up. One write alone is always let go.
      const aheadCalls = spentCalls - doneCalls
      if (
        aheadCalls >= AHEAD_MAX_CALLS ||
        (aheadCalls > 0 && spentBytes - doneBytes + size > AHEAD_MAX_BYTES)
      )
        return undefined
      bytes -= size
      rows -= newRows
      spentBytes += size
      spentRows += newRows
      spentCalls++
      return before + size
    },
    /**
     * Whether `chmod(path, mode)` or `utimes(path, atime, mtime)` (path normalised) may go without
     * waiting: the entry is one the run knows (made, wrote or listed as a regular file) in a real
     * folder, and the arguments are ones the host takes, so only another party removing it
     * meanwhile could make it fail.
     */
    takeMetadata(method: string, path: string, args: unknown[]): boolean {
      if (postableName(path) === undefined) return false
      const entry = known.entryOf(path)
      if (entry !== 'file' && entry !== 'folder') return false
      const valid =
        method === 'chmod'
          ? Number.isInteger(args[1])
          : method === 'utimes' && isValidDate(args[1]) && isValidDate(args[2])
      if (!valid || spentCalls - doneCalls >= AHEAD_MAX_CALLS) return false
      spentCalls++
      return true
    },
    /** What was posted so far, to note when a call is sent. */
    mark(): PostedSoFar {
      return { bytes: spentBytes, rows: spentRows, calls: spentCalls }
    },
    /** The host answered a call sent at `sentAt` (its `mark()`): what was posted before it has run. */
    answered(sentAt: PostedSoFar): void {
      doneBytes = Math.max(doneBytes, sentAt.bytes)
      doneCalls = Math.max(doneCalls, sentAt.calls)
    },
    /** The host's room after a call sent at `sentAt` (its `mark()`): less what was posted since. */
    refresh(room: WriteRoom, sentAt: PostedSoFar): void {
      bytes = room.bytes - (spentBytes - sentAt.bytes)
      rows = room.rows - (spentRows - sentAt.rows)
    },
    /** A posted call failed: every later one waits for its answer. */
    stop(): void {
      stopped = true
    },
  }
}

/** Same semantics as @yfs/core's `paths.resolve` (and just-bash's): `..` stops at `/`, no trailing slash. */
export function resolveVirtualPath(base: string, path: string): string {
  // Most paths a script's calls name are normal already (just-bash resolves them first): as they are.
  if (isNormalPath(path)) return path
  const joined = path.startsWith('/') ? path : base === '/' ? `/${path}` : `${base}/${path}`
  const out: string[] = []
  for (const part of joined.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') out.pop()
    else out.push(part)
  }
  return `/${out.join('/')}`
}

/** An absolute path with no empty, `.` or `..` component and no trailing slash (or `/`). */
function isNormalPath(path: string): boolean {
  if (path === '/') return true
  if (path.charCodeAt(0) !== 0x2f || path.charCodeAt(path.length - 1) === 0x2f) return false
  for (let i = 0; i < path.length; i++) {
    if (path.charCodeAt(i) !== 0x2f) continue
    // A component starts at i + 1: empty, `.` or `..` makes the path not normal.
    const a = path.charCodeAt(i + 1)
    if (a === 0x2f) return false
    if (a === 0x2e) {
      const b = path.charCodeAt(i + 2)
      if (Number.isNaN(b) || b === 0x2f) return false
      if (b === 0x2e) {
        const c = path.charCodeAt(i + 3)
        if (Number.isNaN(c) || c === 0x2f) return false
      }
    }
  }
  return true
}

const SYNC_TIMEOUT_MS = 30_000

type FsResult = Extract<HostToWorker, { type: 'fs-result'; ok: true }>

export interface FsProxy {
  fs: IFileSystem
  /** Send the posted calls not sent yet (before the run's last message). */
  flush(): void
  /** Feed a host answer (`fs-result`) to the call waiting for it. */
  settle(message: Extract<HostToWorker, { type: 'fs-result' }>): void
}

/** An IFileSystem over `port`, with only the methods the host has. */
export function createFsProxy(
  port: MessagePort,
  syncPort: MessagePort,
  flag: Int32Array,
  methods: readonly (FsMethod | FsVoidMethod)[],
  writeAllowance?: WriteAllowance,
): FsProxy {
  let next = 0
  const pending = new Map<
    number,
    { resolve(v: unknown): void; reject(e: unknown): void; sentAt: PostedSoFar }
  >()
  // Posted calls not sent yet: they go together, before any other message and at the latest
  // when this thread next turns its event loop or the outbox is full.
  let outbox: FsCall[] = []
  let flushing = false
  const flush = () => {
    flushing = false
    if (outbox.length === 0) return
    port.postMessage({ type: 'fs-posted', calls: outbox })
    outbox = []
  }
  // Calls sent without waiting (write-behind): only a failure is answered.
  let postedSinceTurn = 0
  const postWithoutWaiting = (call: FsCall) => {
    outbox.push(call)
    if (outbox.length >= OUTBOX_MAX) flush()
    else if (!flushing) {
      flushing = true
      hostSetImmediate(flush)
    }
  }
  // Resolves with the whole `fs-result` (its `value`, and `real` for FS_PATH_METHODS).
  const send = (method: FsMethod | typeof LSTAT_MANY | typeof READ_MANY, args: unknown[]) =>
    new Promise<FsResult>((resolve, reject) => {
      const id = ++next
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject, sentAt: writeBehind.mark() })
      flush()
      port.postMessage({ type: 'fs', id, method, args })
    })
  const call = async (method: FsMethod | typeof LSTAT_MANY | typeof READ_MANY, args: unknown[]) =>
    (await send(method, args)).value
  const prefetch = createStatPrefetch(
    (paths) => call(LSTAT_MANY, [paths]) as Promise<LstatResult[]>,
    methods.includes('readdir')
      ? async (dir) => {
          const result = await send('readdir', [dir])
          return { names: result.value as string[], real: result.real === dir }
        }
      : undefined,
    methods.includes('readFile') && methods.includes('readFileBuffer')
      ? (paths, kind) => call(READ_MANY, [paths, kind]) as Promise<ReadResult[]>
      : undefined,
  )
  const writeBehind = createWriteBehind(writeAllowance, prefetch)
  const fs: Record<string, unknown> = {
    resolvePath: resolveVirtualPath,
    getAllPaths(): string[] {
      atomicsStore(flag, 0, 0)
      flush()
      syncPort.postMessage({ method: 'getAllPaths' })
      if (atomicsWait(flag, 0, 0, SYNC_TIMEOUT_MS) === 'timed-out')
        throw new HostFsError({ name: 'Error', message: 'EIO: i/o error, the workspace did not answer' })
      const reply = receiveMessageOnPort(syncPort)?.message as SyncReply | undefined
      if (!reply) throw new HostFsError({ name: 'Error', message: 'EIO: i/o error, no answer' })
      if (!reply.ok) throw new HostFsError(reply.error)
      return reply.value as string[]
    },
  }
  /** A write or `mkdir` of one path: what is known of it is updated from the host's answer. */
  const pathChange =
    (method: FsMethod) =>
    async (...args: unknown[]): Promise<unknown> => {
      const path = args[0]
      if (typeof path !== 'string') {
        prefetch.forget()
        return call(method, args)
      }
      // `mkdir -p` of a folder known to be one: nothing to do (as if it ran a little earlier).
      const recursive = (args[1] as { recursive?: unknown } | undefined)?.recursive === true
      if (method === 'mkdir' && recursive && prefetch.isFolder(path)) return undefined
      const write = method === 'writeFile' || method === 'appendFile' ? method : undefined
      const resolved = resolveVirtualPath('/', path)
      prefetch.changing(path)
      // A write (or a change of mode or mtime) known to succeed: sent, and the script goes on
      // (the host runs it before any later call).
      const after = write
        ? writeBehind.take(write, resolved, args[1])
        : writeBehind.takeMetadata(method, resolved, args)
          ? 'metadata'
          : undefined
      if (after !== undefined) {
        postWithoutWaiting({ id: ++next, method, args })
        prefetch.changed(method, path, resolved)
        if (after !== 'metadata') prefetch.wrote(resolved, after)
        // A loop of posted writes never waits for a message, so this thread would never turn its
        // event loop: every OUTBOX_MAX of them it does, and hears a stop (time limit, a failed write).
        if (++postedSinceTurn >= OUTBOX_MAX) {
          postedSinceTurn = 0
          await new Promise((turned) => hostSetImmediate(turned))
        }
        return undefined
      }
      let result: FsResult
      try {
        result = await send(method, args)
      } catch (error) {
        // Failed: it may have changed part of what it was asked (mkdir -p's first folders).
        prefetch.forget()
        throw error
      }
      prefetch.changed(method, path, result.real)
      if (result.made && result.real === resolved) prefetch.listed(resolved, [])
      if (write && result.real === resolved) {
        // What the file holds at most now: a whole write's bytes, an append's onto a known size.
        const bytes = contentBytesAtMost(args[1])
        const before = write === 'writeFile' ? 0 : prefetch.sizeOf(resolved)
        if (bytes !== undefined && before !== undefined) prefetch.wrote(resolved, before + bytes)
      }
      return result.value
    }
  /** The worker's `method`: answered from what the run knows where it can, else asked of the host. */
  const proxied = (method: FsMethod): ((...args: never[]) => unknown) => {
    const plain = (...args: unknown[]) => call(method, args)
    if (method === 'lstat' || method === 'stat' || method === 'exists')
      return (path: string) => prefetch.answer(method, path, () => plain(path))
    if (FS_LISTING_METHODS.has(method))
      return async (path: string) => {
        const result = await send(method, [path])
        const entries = result.value as (string | { name: string })[]
        return prefetch.listed(path, entries, result.real === resolveVirtualPath('/', path))
      }
    if (method === 'readFile')
      return (path: string, options?: unknown) =>
        isUtf8(options)
          ? prefetch.read(path, 'text', () => plain(path, options) as Promise<string>)
          : plain(path, options)
    if (method === 'readFileBuffer')
      return (path: string) => prefetch.read(path, 'bytes', () => plain(path) as Promise<Uint8Array>)
    if (method === 'readFileBytes')
      return (path: string) => prefetch.read(path, 'latin1', () => plain(path) as Promise<string>)
    if (FS_READ_METHODS.has(method)) return plain
    if (FS_PATH_METHODS.has(method)) return pathChange(method)
    return (...args: unknown[]) => {
      // This run changes something: what was prefetched may no longer hold.
      prefetch.forget()
      return plain(...args)
    }
  }
  for (const method of methods) {
    if ((FS_VOID_METHODS as readonly string[]).includes(method)) {
      fs[method] = (...args: unknown[]) => {
        prefetch.forget()
        flush()
        port.postMessage({ type: 'fs-void', method, args })
      }
      continue
    }
    fs[method] = proxied(method as FsMethod)
  }
  return {
    fs: fs as unknown as IFileSystem,
    flush,
    settle(message) {
      const waiter = pending.get(message.id)
      if (!waiter) {
        // An answer nobody waits for: a posted write that failed after all (the host stops the
        // script and says so). From now on every call waits, and nothing known is trusted.
        if (!message.ok) {
          writeBehind.stop()
          prefetch.forget()
        }
        return
      }
      pending.delete(message.id)
      writeBehind.answered(waiter.sentAt)
      if (message.room) writeBehind.refresh(message.room, waiter.sentAt)
      if (message.ok) waiter.resolve(message)
      else waiter.reject(new HostFsError(message.error))
    },
  }
}
