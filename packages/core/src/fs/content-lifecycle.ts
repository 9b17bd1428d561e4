/**
 * What the filesystem does as content docs open, change, compact and close
 * in the pool, and as peers announce content changes in their rows:
 *
 * - keeps the plaintext cache honest: an entry is dropped whenever the doc
 *   changes, and survives the doc's eviction only when the doc held every
 *   change peers announced (content-versions.ts);
 * - edits made straight on a doc (an editor binding) update the file's row
 *   (size, mtime) on the next microtask and get a history version at most
 *   once per `historyIntervalMs`;
 * - feeds the last-seen tracker (last-seen.ts);
 * - keeps rows describing the content: two replicas that change a file's
 *   content at once both announce it in the row's content group, and one
 *   announcement wins (files-table.ts), so the row's size and version miss
 *   the other change. Every change of a peer's (a row entry, winning or not,
 *   or content arriving) schedules a check, after `announceDelayMs` so rows
 *   in flight can land: when the row does not cover every version announced
 *   and the loaded doc does (or, with no doc loaded, the state this instance
 *   knows of the file from a bulk write or fetch, or that its doc held when it
 *   closed with a check due), this instance announces
 *   its size and version. Replicas holding the same content announce the
 *   same values.
 *
 * The pool's hooks and the table's remote-entry observer are wired to these
 * functions by the `YjsFileSystem` constructor.
 */
import * as Y from 'yjs'
import { contentVersionOf, decodeContentVersion } from '../content/content-versions.js'
import type { FileRow } from '../files-table.js'
import { compactContentState, hasUnversionedChanges, listStoredVersions } from '../history/file-history.js'
import { hostClearTimeout, hostSetTimeout } from '../host-timers.js'
import type { FileId } from '../ids.js'
import { ownWriteOnItsWay } from './batch-state.js'
import { contentSize, recordFileVersion, recordPendingVersion } from './content-codecs.js'
import { decodeState } from './decoded-states.js'
import { FS_ORIGIN, type FsContext } from './fs-context.js'
import { knownHead, rememberState } from './known-states.js'
import { contentPatch } from './write-content.js'

const COMPACT_ABOVE_BYTES = 16 * 1024

/** Pool `onOpen`: watch the doc for changes. */
export function onContentOpen(ctx: FsContext, id: FileId, doc: Y.Doc): void {
  // With a provider (not lazy), its first sync may have brought changes the cached text does not have.
  if (!ctx.lazyContent) ctx.index.plaintext.delete(id)
  const onTransaction = (tr: Y.Transaction) => {
    if (tr.changed.size === 0 && tr.deleteSet.clients.size === 0) return
    ctx.index.plaintext.delete(id)
    // Changed since the version a write here noted (the write notes it again after its transaction).
    ctx.newestVersions.delete(id)
    // Edits made straight on the doc (an editor binding) update the row here;
    // our own writes update it themselves, remote edits come with the peer's row update.
    if (tr.local && tr.origin !== FS_ORIGIN && !ctx.readOnly) scheduleSizeUpdate(ctx, id)
    if (!tr.local) scheduleAnnounceCheck(ctx, id)
  }
  doc.on('afterTransaction', onTransaction)
  const detach = ctx.seen.attach(id, doc)
  ctx.docCleanup.set(id, () => {
    doc.off('afterTransaction', onTransaction)
    detach()
  })
  // Its first sync came before this hook, unobserved: it may hold a change whose row lost.
  checkIfRowBehind(ctx, id)
}

/**
 * This instance now holds `id`'s content (its doc opened, or a state fetched): when the row
 * misses a change announced for the file (a peer's write whose row lost), check after
 * `announceDelayMs` whether what is held here covers it, and announce it then (see the module
 * comment). Otherwise a change whose row lost while no replica had the doc loaded, nor knew a
 * state holding it, was never announced: the row kept the size of one write for good.
 */
export function checkIfRowBehind(ctx: FsContext, id: FileId): void {
  const row = ctx.table.get(id)
  if (ctx.lazyContent || row?.type !== 'file' || row.sv === undefined) return
  // Rows that lost before this instance loaded the main doc: the load announced none of them.
  for (const lost of ctx.table.staleRowsOf(id))
    if (lost.type === 'file' && lost.sv !== undefined) ctx.announced.add(id, lost.sv)
  if (!ctx.announced.coveredBy(id, decodeContentVersion(row.sv))) scheduleAnnounceCheck(ctx, id)
}

/** Pool `compact`: small docs have little to drop; compacting them would cost more than it saves. */
export function compactContent(ctx: FsContext, state: Uint8Array, id: FileId): Uint8Array {
  return state.byteLength > COMPACT_ABOVE_BYTES ? compactContentState(state, ctx.seen.snapshotsOf(id)) : state
}

/**
 * Pool `onClose`. The plaintext cache outlives the doc when the doc holds every change peers
 * announced: later changes come with a row entry, which drops the entry (`onRemoteRow`).
 */
export function onContentClose(ctx: FsContext, id: FileId, doc: Y.Doc): void {
  const connected = !ctx.lazyContent
  // Edits made here since this instance's last version: versioned in its name before the doc goes
  // (with a provider, the version still reaches the server; in memory the state is already kept).
  if (connected && ctx.editedUnversioned.has(id) && !ctx.readOnly) versionEditsOnClose(ctx, id, doc)
  ctx.editedUnversioned.delete(id)
  // One snapshot of the state at close, for the last-seen entry and the cached text alike.
  let at: Y.Snapshot | undefined
  const snapshot = () => {
    at ??= Y.snapshot(doc)
    return at
  }
  if (connected) ctx.seen.freeze(id, snapshot)
  ctx.docCleanup.get(id)?.()
  ctx.docCleanup.delete(id)
  // A check is due (`checkIfRowBehind`) and the doc goes before it: what the doc holds stays known
  // (its first open forgot any state known before), so the check can still announce it.
  if (connected && ctx.announceChecks.has(id))
    rememberState(ctx, id, Y.encodeStateAsUpdate(doc), contentVersionOf(doc))
  if (!connected || !ctx.index.plaintext.has(id)) return
  if (!ctx.announced.coveredBy(id, Y.decodeStateVector(Y.encodeStateVector(doc))))
    ctx.index.plaintext.delete(id)
  // The text outlives the doc: a whole-file read of it later is seen at this state (read-content.ts).
  else ctx.index.plaintext.stamp(id, snapshot())
}

/**
 * A peer's row entry (winning or not) announces a content change: cached text of a doc
 * that is not loaded may be old (a loaded doc drops it itself when the change arrives).
 */
export function onRemoteRow(ctx: FsContext, row: FileRow): void {
  if (row.type !== 'file') return
  if (row.sv !== undefined && !ctx.lazyContent) ctx.announced.add(row.id, row.sv)
  // A peer said more of it: a repair may fetch its state again.
  repairFetched.get(ctx)?.delete(row.id)
  if (ctx.pool.peek(row.id) === undefined) {
    ctx.index.plaintext.delete(row.id)
    // Written (or fetched) here without opening the doc: the state known here may be the one that
    // holds every change (see `announceKnownState`). Only such files: a peer's thousands of new rows
    // set no timer.
    if (ctx.batch.known.has(row.id)) scheduleAnnounceCheck(ctx, row.id)
  } else scheduleAnnounceCheck(ctx, row.id)
}

/** Check, after `announceDelayMs`, that the row of `id` announces what peers wrote (see the module comment). */
function scheduleAnnounceCheck(ctx: FsContext, id: FileId): void {
  if (ctx.readOnly || ctx.lazyContent || ctx.announceChecks.has(id)) return
  ctx.announceChecks.set(
    id,
    hostSetTimeout(() => {
      ctx.announceChecks.delete(id)
      announceIfBehind(ctx, id)
    }, ctx.announceDelayMs),
  )
}

function announceIfBehind(ctx: FsContext, id: FileId): void {
  const row = ctx.table.get(id)
  const doc = ctx.pool.peek(id)
  if (row?.type !== 'file') return
  if (doc === undefined) {
    announceKnownState(ctx, id, row)
    return
  }
  // The row covers every announced change: nothing was lost.
  if (row.sv !== undefined && ctx.announced.coveredBy(id, decodeContentVersion(row.sv))) return
  // Some announced change has not arrived here yet: its arrival schedules another check.
  if (!ctx.announced.coveredBy(id, Y.decodeStateVector(Y.encodeStateVector(doc)))) return
  if (row.sv === contentVersionOf(doc)) return
  ctx.table.update(id, contentPatch(ctx, id, contentSize(ctx, doc, row.name)), FS_ORIGIN)
}

/**
 * `announceIfBehind` for a file whose doc is not loaded here, from the state this instance knows
 * of it (it wrote or fetched it in bulk, known-states.ts). Two writers in bulk, neither with the
 * doc open: a write announced late (a batch's row waits for its content to be stored) can win the
 * row with a size and version older than a write that already holds it; no loaded doc here or
 * there repaired the row, and it kept the older size for good (an agent's append and a person's
 * overwrite of it: the row said 2 bytes of a 6-byte file, and the agent read its own 2 bytes).
 */
function announceKnownState(ctx: FsContext, id: FileId, row: FileRow): void {
  const known = ctx.batch.known.get(id)
  if (known === undefined || row.sv === known.sv) return
  if (row.sv !== undefined && ctx.announced.coveredBy(id, decodeContentVersion(row.sv))) return
  // Only a state holding every announced change describes the file; the stored one does.
  if (!ctx.announced.coveredBy(id, decodeContentVersion(known.sv))) {
    fetchToRepair(ctx, id)
    return
  }
  const doc = decodeState(id, known.update)
  try {
    const size = contentSize(ctx, doc, row.name)
    ctx.writtenSv.set(id, known.sv)
    ctx.table.update(id, contentPatch(ctx, id, size), FS_ORIGIN)
  } finally {
    doc.destroy()
  }
}

/**
 * Files whose stored state a check fetched (`fetchToRepair`) since the last peer's row entry for
 * them, per filesystem: fetched once until a peer says more (a server lacking a change must not be
 * asked again and again).
 */
const repairFetched = new WeakMap<FsContext, Set<FileId>>()
/** Filesystems destroyed: a repair fetch that comes back later does nothing. */
const destroyed = new WeakSet<FsContext>()

/**
 * Two writers in bulk, neither with the doc open, each knowing only the state it wrote: neither
 * holds the other's change, so neither announced the merged file, and no replica with write access
 * may ever read it (until 2026-11-30 a reader with a read token, and `stat` anywhere, gave one
 * writer's size for good). The stored state holds both: fetched here, known, and checked again.
 */
function fetchToRepair(ctx: FsContext, id: FileId): void {
  // This instance's own write of it still on its way: its acknowledgement or row comes first.
  if (!ctx.loadContent || ownWriteOnItsWay(ctx.batch, id)) return
  const fetched = repairFetched.get(ctx) ?? new Set<FileId>()
  repairFetched.set(ctx, fetched)
  if (fetched.has(id)) return
  fetched.add(id)
  ctx
    .loadContent([id], [knownHead(ctx, id)])
    .then(([got]) => {
      const state = got instanceof Uint8Array ? got : got?.state
      // Still at the head known here (the server lacks the change too), or written or opened here
      // meanwhile (that path checks for itself).
      if (state === undefined || destroyed.has(ctx) || ctx.pool.peek(id) !== undefined) return
      if (ownWriteOnItsWay(ctx.batch, id)) return
      const doc = new Y.Doc({ guid: id, gc: false })
      try {
        Y.applyUpdate(doc, state)
        rememberState(
          ctx,
          id,
          state,
          contentVersionOf(doc),
          got instanceof Uint8Array ? undefined : got?.head,
        )
      } catch {
        // Bytes this Yjs cannot apply: the file's doc, once opened, has its server salvage them.
        return
      } finally {
        doc.destroy()
      }
      checkIfRowBehind(ctx, id)
    })
    // Offline or refused: the next peer's row of the file checks (and fetches) again.
    .catch(() => fetched.delete(id))
}

/** Cancel pending announcement checks (the filesystem is destroyed). */
export function cancelAnnounceChecks(ctx: FsContext): void {
  destroyed.add(ctx)
  for (const timer of ctx.announceChecks.values()) hostClearTimeout(timer)
  ctx.announceChecks.clear()
}

function versionEditsOnClose(ctx: FsContext, id: FileId, doc: Y.Doc): void {
  const row = ctx.table.get(id)
  if (row?.type !== 'file' || !hasUnversionedChanges(doc)) return
  recordPendingVersion(ctx, doc, row.name, contentSize(ctx, doc, row.name), 'edit')
}

function scheduleSizeUpdate(ctx: FsContext, id: FileId): void {
  if (ctx.pendingSize.size === 0) queueMicrotask(() => flushSizeUpdates(ctx))
  ctx.pendingSize.add(id)
}

function flushSizeUpdates(ctx: FsContext): void {
  const ids = [...ctx.pendingSize]
  ctx.pendingSize.clear()
  ctx.table.batch(() => {
    for (const id of ids) {
      const row = ctx.table.get(id)
      const doc = ctx.pool.peek(id)
      if (!row || !doc || row.type !== 'file') continue
      const size = contentSize(ctx, doc, row.name)
      ctx.table.update(id, contentPatch(ctx, id, size), FS_ORIGIN)
      // Editor edits are versioned at most once per interval, and, with peers, at once when this
      // instance has no version on the doc yet: that version names its client, so a version
      // recorded on demand elsewhere (history(), a checkpoint) names this instance's author for
      // its edits (pending-authors.ts). The rest is recorded on demand, or when the doc closes.
      const last = listStoredVersions(doc).at(-1)
      const unnamed = !ctx.lazyContent && !ctx.recordedOn.has(doc)
      if (!last || ctx.clock() - last.ts >= ctx.historyIntervalMs || unnamed)
        recordFileVersion(ctx, doc, row.name, size, 'edit')
      else ctx.editedUnversioned.add(id)
    }
  }, FS_ORIGIN)
}
