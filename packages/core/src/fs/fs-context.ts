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
import type { ConnectContentDoc, ContentDocPool } from '../content/doc-pool.js'
import { FsError } from '../errors.js'
import type { FilesTable } from '../files-table.js'
import type { StoredVersion } from '../history/version-list.js'
import type { FileId } from '../ids.js'
import type { FileSystemLimits } from '../limits.js'
import type { FileSystemIndex } from '../path-index.js'
import type { BatchState, FetchedStates, HeadedState } from './batch-state.js'
import type { EventHub } from './events.js'
import type { LastSeenTracker } from './last-seen.js'
import type { LocalLayer } from './local-layer.js'

/** Origin of every transaction this filesystem makes (editors use their own). */
export const FS_ORIGIN = Symbol('yfs')

/** Options of `createFileSystem` (re-exported by yjs-file-system.ts). */
export interface CreateFileSystemOptions {
  /** The main doc; a new one when omitted. The caller connects it to a provider. */
  doc?: Y.Doc
  /** Provider hook for content docs (see ContentDocPool). */
  connect?: ConnectContentDoc
  limits?: Partial<FileSystemLimits>
  /** Wall clock (ms) for timestamps; injectable for tests. */
  clock?: () => number
  /** Content codecs by priority; the text codec is always the fallback. */
  codecs?: ContentCodec[]
  /** Content-doc pool tuning. */
  idleMs?: number
  maxIdle?: number
  /** Who this instance writes as in file history (e.g. `agent:claude`, `user:ana`). Default `'agent'`. */
  author?: string
  /** Editor edits (made straight on content docs) get at most one version per this many ms. Default 30 s. */
  historyIntervalMs?: number
  /**
   * Every change to the workspace fails with EACCES (e.g. a read-only token on a sync
   * server). Reads work; the local system paths (/dev/null, command stubs) stay writable.
   */
  readOnly?: boolean
  /**
   * Merge whole-file writes from this instance with changes made since it last read the
   * file (see `write`). Default true; false replaces, as writes did before (a baseline for
   * benchmarks, or a caller that merges by itself).
   */
  mergeStaleWrites?: boolean
  /**
   * With `connect`: store many new content docs at once (a server's batched write, see
   * @yfs/client); resolves once every update is stored. `writeTree` uses it instead of
   * opening each new file's doc through the provider.
   */
  storeContent?: (
    docs: { id: FileId; update: Uint8Array }[],
    // biome-ignore lint/suspicious/noConfusingVoidType: an implementation that gives no heads returns Promise<void> (as before heads)
  ) => Promise<void | readonly (string | undefined)[]>
  /**
   * With `storeContent`: whether a new file written outside a batch may go to the bulk store now
   * (default: always). A client answers false while offline or when it keeps a local copy: the
   * file then opens its own doc, whose provider keeps the write until the server has it.
   */
  bulkStoreReady?: () => boolean
  /**
   * With `connect`: apply changes to many existing content docs at once (a server's batched
   * update, see @yfs/client); resolves once every update is stored. An overwrite in a write
   * batch of a file whose doc is not open here builds on the file's stored state (fetched with
   * `loadContent`) and goes here (write-batch.ts).
   *
   * Heads (optional, see `HeadedState`): `base` is the head of the state an update was made on;
   * `storeContent` and `updateContent` may resolve with each doc's head after it, where the
   * server stored the doc's update right on that base (a new doc's: on nothing).
   */
  updateContent?: (
    docs: { id: FileId; update: Uint8Array; base?: string }[],
    // biome-ignore lint/suspicious/noConfusingVoidType: an implementation that gives no heads returns Promise<void> (as before heads)
  ) => Promise<void | readonly (string | undefined)[]>
  /**
   * With `connect`: hold the local updates of open content docs until the returned function is
   * called (a client sends each doc's held changes as one update then). A write batch takes this
   * hold while it is open and releases it before its rows (write-batch.ts): a loop writing an
   * open file sends one update per batch, not one per write.
   */
  holdContentUpdates?: () => () => void
  /**
   * With `connect`: whether the server can be reached now (default: always). Offline, a new
   * file this instance stored without opening its doc opens from the state it stored, instead
   * of waiting for a sync that cannot happen (as it would, had its doc stayed loaded).
   */
  online?: () => boolean
  /**
   * With `connect`: the stored states of many content docs at once, in order (`undefined`
   * where refused). Reads of files whose doc is not loaded fetch their folder's files in
   * one call and fill the plaintext cache; anything it cannot serve is opened as usual.
   * With heads, a state comes as a `HeadedState`; `since` gives, per id, the head of a state
   * this instance holds, and a doc still at it comes back without its state.
   */
  loadContent?: (
    ids: FileId[],
    since?: readonly (string | undefined)[],
  ) => Promise<(Uint8Array | HeadedState | undefined)[]>
  /**
   * With `connect`: how long after a peer's row or content change this instance waits before
   * it checks that the file's row describes the content everyone announced, and announces it
   * itself when a concurrent announcement lost (content-lifecycle.ts). Default 250 ms.
   */
  announceDelayMs?: number
  /**
   * How long a held truncation waits for the write that replaces it (held-truncations.ts):
   * `writeFile(f, '')` of a non-empty file, then a write of f, is one write. Default 1000 ms;
   * 0 applies truncations at once.
   */
  holdTruncationsMs?: number
  /**
   * How long the states an overwrite without its doc decoded (write-batch.ts) stay decoded after
   * the last write batch, for the next one to build on without decoding them again
   * (decoded-states.ts). Default 60,000 ms; less trades decodes for memory (up to ~50 MB per
   * filesystem that overwrites thousands of files in bulk); 0 drops them as each batch ends.
   */
  keepDecodedMs?: number
  /**
   * `false`: rows are read and written whole, one last-writer-wins value each, as versions
   * before per-group rows did (files-table.ts). Only to test workspaces shared with them.
   */
  rowGroups?: boolean
}

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
  /** Content docs (as opened now) this instance has recorded a version on: its client is known by name there. */
  readonly recordedOn: WeakSet<Y.Doc>
  /** Files edited straight on their doc here since this instance's last version of them. */
  readonly editedUnversioned: Set<FileId>
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
  readonly storeContent: CreateFileSystemOptions['storeContent']
  readonly updateContent: CreateFileSystemOptions['updateContent']
  readonly bulkStoreReady: () => boolean
  readonly holdContentUpdates: CreateFileSystemOptions['holdContentUpdates']
  readonly online: () => boolean
  readonly loadContent: CreateFileSystemOptions['loadContent']
  /** Ids being fetched by loadContent, so concurrent reads share one request. */
  readonly fetching: Map<FileId, Promise<FetchedStates>>
  /** Pending checks that a file's row announces its content (content-lifecycle.ts), by file. */
  readonly announceChecks: Map<FileId, ReturnType<typeof setTimeout>>
  readonly announceDelayMs: number
  /** Truncations held back for the write that replaces them, by file (held-truncations.ts). */
  readonly held: Map<FileId, ReturnType<typeof setTimeout>>
  readonly holdTruncationsMs: number
  readonly keepDecodedMs: number
  /**
   * Files whose newest version a write here recorded (or a bulk store that opened no doc), with
   * the content version that write produced: while the row still announces that content
   * version, `latestVersion` needs no doc (an agent's activity entry asks it for every file a
   * command wrote). Dropped when the doc is opened or changes otherwise, or another version is
   * recorded here. `sv` is undefined in memory mode, where rows carry none.
   */
  readonly newestVersions: Map<FileId, { sv: string | undefined; version: StoredVersion }>
  /** Open write batches and the new files' content they hold (write-batch.ts). */
  readonly batch: BatchState
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
