/**
 * One `loadContent` call for a file and the other files of its folder that
 * this instance cannot serve without a round trip: a `grep -r` reads them
 * next, a `sed -i` overwrites them next. For the first file of a folder a
 * batch fetches to read, only `FIRST_FETCH` of them (a folder of up to
 * `WHOLE_FOLDER` whole); to write, the file alone: an agent's edit of one
 * file must not fetch (and the server load) states it will not use, and a
 * write in a later batch fetches its base again (known-states.ts), so every
 * such call paid for its folder (a folder of 100 files: 100 states per
 * one-file `sed -i`). From the second, up to `FETCH_BATCH`.
 *
 * - Texts go to the plaintext cache when the fetched state holds every change
 *   peers announced and its text has the row's size (the cache never serves
 *   older content than the row describes), with the snapshot they were read
 *   at (a reader's next write merges against it).
 * - Every fetched state is remembered (known-states.ts): an overwrite of a
 *   file whose doc is not open builds on it (write-batch.ts); fetched to be
 *   written, it also stays decoded for that write (decoded-states.ts). A state known
 *   at a server's head is asked for since that head: a doc still at it comes
 *   back without its state, and the known one counts as fetched.
 *
 * Binary files, files of other codecs and refused ids are left to the pool.
 * A failed fetch (offline, timed out, refused) fills nothing: each caller
 * falls back to opening the doc, which reports the cause.
 */
import * as Y from 'yjs'
import { readBinary } from '../content/binary.js'
import { contentVersionOf } from '../content/content-versions.js'
import { utf8Length } from '../encoding.js'
import type { FileRow } from '../files-table.js'
import type { FileId } from '../ids.js'
import { type FetchedStates, type HeadedState, ownWriteOnItsWay } from './batch-state.js'
import { codecFor } from './content-codecs.js'
import { checkIfRowBehind } from './content-lifecycle.js'
import type { ContentState } from './content-state.js'
import { decodedState, decodeState } from './decoded-states.js'
import type { FsContext } from './fs-context.js'
import {
  confirmKnown,
  coveringState,
  KNOWN_STATES_MAX_BYTES,
  knownHead,
  rememberState,
} from './known-states.js'

/** Files fetched per `loadContent` call… */
const FETCH_BATCH = 256
/**
 * …and for the first file of a folder a batch fetches to read: a folder with at most
 * `WHOLE_FOLDER` files to fetch whole (one request, as a `grep -r` over many small folders
 * wants), a bigger one `FIRST_FETCH` only (an agent reading one file must not load hundreds of
 * states). The first to write comes alone (see the module comment).
 */
const WHOLE_FOLDER = 128
const FIRST_FETCH = 16
/**
 * Bytes of states one fetch brings at most, estimated (`estimatedBytes`): all it brings must still
 * be known when each file's write comes (known-states.ts keeps `KNOWN_STATES_MAX_BYTES`). Without
 * it, a `sed -i` over 300 files of 64 KiB whose states had grown to 160 KB each (every line
 * changed, every call: each state keeps what it replaced) fetched 256 states, lost most of them
 * before their writes, and fetched them again write after write: 20 s, then over 120 s, a call.
 */
const FETCH_MAX_BYTES = KNOWN_STATES_MAX_BYTES / 4
/** Folders a batch remembers fetching from (a batch over more starts afresh). */
const FOLDERS_COUNTED = 4096

const NOTHING: FetchedStates = new Map()

/**
 * Fetch `id` and up to `FETCH_BATCH` − 1 files of its folder (`FIRST_FETCH` − 1 for the first
 * file of a big folder this batch fetches) whose docs are not open here: for a read (`forWrite`
 * false) those whose text is not cached, for a write those whose state is not known either.
 * Resolves with the states fetched (those of a fetch already running for `id`, when there is one).
 */
export async function fetchFolder(ctx: FsContext, id: FileId, forWrite = false): Promise<FetchedStates> {
  const running = ctx.fetching.get(id)
  if (running) return running
  const ids = [id]
  const parent = ctx.index.effectiveParent(id)
  const first = parent !== undefined && firstInFolder(ctx, parent)
  // A folder's first to write: the file alone.
  const alone = parent === undefined || (first && forWrite)
  let bytes = estimatedBytes(ctx, id)
  for (const sibling of alone ? [] : ctx.index.allChildren(parent)) {
    if (ids.length >= FETCH_BATCH || bytes >= FETCH_MAX_BYTES) break
    const row = ctx.table.get(sibling)
    if (sibling === id || row?.type !== 'file' || row.trashedAt !== null || ctx.fetching.has(sibling))
      continue
    // Any codec: a Markdown folder (the daemon materialising it, a grep) is fetched per round trip too.
    if (ctx.pool.peek(sibling) !== undefined) continue
    // A file whose write is being stored is known once stored (`baseStateOf` waits for it): fetched
    // now, the old state would be fetched for nothing (a `sed -i` loaded a quarter of its files twice).
    const needed = forWrite
      ? !ownWriteOnItsWay(ctx.batch, sibling) && coveringState(ctx, sibling) === undefined
      : !ctx.index.plaintext.holds(sibling, row.size)
    if (!needed) continue
    const more = estimatedBytes(ctx, sibling)
    if (bytes + more > FETCH_MAX_BYTES) break
    bytes += more
    ids.push(sibling)
  }
  // A big folder's first to read: the file and a few more (`ids[0]` is the file).
  if (first && ids.length > WHOLE_FOLDER) ids.length = FIRST_FETCH
  const run = (async (): Promise<FetchedStates> => {
    // The head of each state known here (from any batch): a doc still at it comes back empty.
    const since = ids.map((fileId) => knownHead(ctx, fileId))
    let states: (Uint8Array | HeadedState | undefined)[]
    try {
      states = await ctx.loadContent!(ids, since)
    } catch {
      return NOTHING
    }
    const fetched = new Map<FileId, { state: ContentState; sv: string }>()
    let came = 0
    let cameBytes = 0
    ids.forEach((fileId, k) => {
      const got = states[k]
      const row = ctx.table.get(fileId)
      if (!got || row?.type !== 'file') return
      const { state, head } = got instanceof Uint8Array ? { state: got, head: undefined } : got
      // Newer than anything known of it: a write of this instance since is in its pending update.
      const pendingHere = ctx.batch.updates.has(fileId)
      if (state === undefined) {
        // Still at the head given: the state known here is the stored one, fetched anew.
        const known = head !== undefined && !pendingHere ? confirmKnown(ctx, fileId, head) : undefined
        if (!known) return
        fetched.set(fileId, { state: known.update, sv: known.sv })
        if (!ctx.index.plaintext.holds(fileId, row.size))
          readIntoCache(ctx, fileId, row, known.update, forWrite)
        return
      }
      came++
      cameBytes += state.byteLength
      const read = readIntoCache(ctx, fileId, row, state, forWrite)
      if (read === undefined) return
      fetched.set(fileId, { state, sv: read })
      if (pendingHere) return
      rememberState(ctx, fileId, state, read, head)
      checkIfRowBehind(ctx, fileId)
    })
    if (came > 0) ctx.batch.fetchedStateBytes = cameBytes / came
    return fetched
  })()
  for (const fileId of ids) ctx.fetching.set(fileId, run)
  try {
    return await run
  } finally {
    for (const fileId of ids) if (ctx.fetching.get(fileId) === run) ctx.fetching.delete(fileId)
  }
}

/**
 * The bytes a fetch of `id` is likely to bring: none for a state known at the server's head (it
 * comes back without its state unless changed), else the file's size or the last fetch's average
 * state, whichever is more (a state holds its history too).
 */
function estimatedBytes(ctx: FsContext, id: FileId): number {
  if (knownHead(ctx, id) !== undefined) return 0
  return Math.max(ctx.table.get(id)?.size ?? 0, ctx.batch.fetchedStateBytes)
}

/**
 * Decode file `id`'s fetched `state` and put its text (or bytes) in the plaintext cache when it holds every
 * change peers announced and has the row's size (the cache never serves older content than the
 * row describes), with the snapshot it was read at (a reader's next write merges against it).
 * Returns the state's content version; `undefined` for a state this Yjs cannot apply (a server
 * log holding bytes from before its checks: left out, so the file's doc is opened instead, whose
 * server salvages the log). `keep`: fetched to be written, the doc stays decoded for the write
 * (decoded-states.ts), which would otherwise decode the same state again (and the version noted
 * before it, a third time before states were kept).
 */
function readIntoCache(
  ctx: FsContext,
  id: FileId,
  row: FileRow,
  state: ContentState,
  keep = false,
): string | undefined {
  let doc: Y.Doc
  try {
    // Kept: read only, the doc holds exactly `state` (one already kept for it is taken as is).
    doc = keep ? decodedState(ctx, id, state) : decodeState(id, state)
  } catch {
    return undefined
  }
  try {
    const version = contentVersionOf(doc)
    const codec = codecFor(ctx, row.name)
    const bytes = readBinary(doc)
    if (!bytes && !codec.hasContent(doc)) return version
    if (!ctx.announced.coveredBy(id, Y.decodeStateVector(Y.encodeStateVector(doc)))) return version
    if (bytes) {
      if (bytes.byteLength === row.size) ctx.index.plaintext.setBytes(id, bytes, Y.snapshot(doc))
      return version
    }
    const text = codec.read(doc)
    const size = utf8Length(text)
    if (size === row.size) ctx.index.plaintext.set(id, text, size, Y.snapshot(doc))
    return version
  } finally {
    if (!keep) doc.destroy()
  }
}

/** True for the first file of folder `parent` fetched in the batch open now (or since the last one). */
function firstInFolder(ctx: FsContext, parent: FileId): boolean {
  const batch = ctx.batch
  if (batch.fetchesEpoch !== batch.epoch || batch.foldersFetched.size >= FOLDERS_COUNTED) {
    batch.foldersFetched.clear()
    batch.fetchesEpoch = batch.epoch
  }
  if (batch.foldersFetched.has(parent)) return false
  batch.foldersFetched.add(parent)
  return true
}
