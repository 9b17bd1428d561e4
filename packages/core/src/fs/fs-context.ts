/**
 * The state of one `YjsFileSystem`, as a plain record its modules share.
 *
 * `YjsFileSystem` is a facade: each concept (path resolution, content
 * reading and writing, trash, history, checkpoints, transactions, …) lives
 * in its own module as plain functions taking this record first. Private
 * `#fields` cannot be reached from other modules, so the state lives here;
 * only the facade creates it (in its constructor) and only `fs/` modules see
 * it. It is deliberately not exported from the package.
 *
 * Also here: the two rules every mutation follows, `assertWritable` (EACCES
 * in a read-only workspace) and `exclusive` (one mutation at a time).
 */
import type * as Y from 'yjs'
import type { ContentCodec } from '../content/codec.js'
import type { ContentAnnouncements } from '../content/content-versions.js'
import type { ContentDocPool } from '../content/doc-pool.js'
import { FsError } from '../errors.js'
import type { FilesTable } from '../files-table.js'
import type { FileId } from '../ids.js'
import type { FileSystemLimits } from '../limits.js'
import type { FileSystemIndex } from '../path-index.js'
import type { EventHub } from './events.js'
import type { LastSeenTracker } from './last-seen.js'
import type { LocalLayer } from './local-layer.js'

/** Origin of every transaction this filesystem makes (editors use their own). */
export const FS_ORIGIN = Symbol('yfs')

/** Stores many new content docs at once (see `CreateFileSystemOptions.storeContent`). */
export type StoreContent = (docs: { id: FileId; update: Uint8Array }[]) => Promise<void>
/** Loads the stored states of many content docs at once (see `CreateFileSystemOptions.loadContent`). */
export type LoadContent = (ids: FileId[]) => Promise<(Uint8Array | undefined)[]>

export interface FsContext {
  readonly doc: Y.Doc
  readonly table: FilesTable
  readonly index: FileSystemIndex
  readonly pool: ContentDocPool
  readonly limits: FileSystemLimits
  /** By priority; the text codec is last. */
  readonly codecs: readonly ContentCodec[]
  /** `/bin`, `/usr`, `/dev`, `/proc`, `/tmp`: never shared (local-layer.ts). */
  readonly local: LocalLayer
  readonly clock: () => number
  readonly author: string
  readonly readOnly: boolean
  readonly historyIntervalMs: number
  readonly events: EventHub
  /** Files edited straight on their doc (an editor) whose row waits for the next microtask. */
  readonly pendingSize: Set<FileId>
  /** Detaches the content-doc observers of an open doc (watch-content.ts). */
  readonly docCleanup: Map<FileId, () => void>
  /** What this instance last saw of each file it read whole or wrote: the base of its stale writes. */
  readonly seen: LastSeenTracker
  /** No provider: new files' content docs are built on first open (ContentDocPool.seed). */
  readonly lazyContent: boolean
  /** With a provider: content versions announced by peers' rows (see content-versions.ts). */
  readonly announced: ContentAnnouncements
  /** With a provider: the version of our own last content write per file, for the row that announces it. */
  readonly writtenSv: Map<FileId, string>
  readonly storeContent: StoreContent | undefined
  readonly loadContent: LoadContent | undefined
  /** Ids being fetched by loadContent, so concurrent reads share one request. */
  readonly fetching: Map<FileId, Promise<void>>
  /** Tail of the mutation queue (see `exclusive`). */
  queue: Promise<unknown>
  /** Set while a transaction's or bulk load's rows land, so their events carry its id. */
  transactionId: string | undefined
  /** Index listener for change events, attached only while someone watches (it costs a path walk per change). */
  unsubscribe: (() => void) | undefined
}

/** EACCES for any change in a read-only workspace. */
export function assertWritable(ctx: FsContext, syscall: string, path: string): void {
  if (ctx.readOnly) throw new FsError('EACCES', syscall, path)
}

/** Run mutations one at a time, so checks and writes of one call never interleave with another's. */
export function exclusive<T>(ctx: FsContext, fn: () => Promise<T> | T): Promise<T> {
  const run = ctx.queue.then(fn, fn)
  ctx.queue = run.catch(() => undefined)
  return run
}
