/**
 * Bulk content extension: answers the bulk messages of @yfs/client
 * (bulk-messages.ts) that arrive as stateless messages on a workspace's main
 * doc connection, so a client loads or stores many content docs per round
 * trip instead of opening each one (auth, load, sync) on its own.
 *
 * - `load`: the stored state of each requested content doc, in request
 *   order; ids that are not files of the workspace get `null` and the
 *   reason. Read tokens may load (they may open the docs one by one too).
 * - `store`: new content docs, each validated (it must apply completely to
 *   an empty doc) and all appended in one store transaction before the reply
 *   (acknowledged = stored); an id whose row exists and is not a file, an
 *   invalid update (the error names its file) or a read-only connection
 *   refuses the whole request before anything is stored. A stored doc that is loaded in this
 *   process gets the update applied, so its connections receive it.
 *   Rows may arrive later (content first, row last), as with single opens.
 * - `update`: changes to existing content docs (a client overwriting files
 *   whose docs it does not hold open), each checked as the socket guard
 *   checks a provider's update (a well-formed Yjs update; it may build on
 *   the stored state) and all appended in one store transaction before the
 *   reply; a read-only connection, an invalid update or a row that is not a
 *   file refuses the whole request. Rows may arrive later, as for `store`:
 *   a client's file created and overwritten in one batch sends its content
 *   and the change before the row. Loaded docs get the updates applied.
 *   (Servers before Redis could carry these answered `BULK_UPDATES_OFF`
 *   when scaled out; @yfs/client then opens each doc through its provider.)
 * - Heads (bulk-messages.ts), with a store that has them (SQLite): a `load` that sends `since`
 *   gets each doc's head, and `BULK_UNCHANGED` instead of the state of a doc still at the head
 *   the client gave (it holds that state: nothing is read or merged); `stored` and `updated`
 *   (with `bases`) name each doc's head where the update went right on the state the client
 *   built it on, so the client knows it holds the stored state and can give that head next time.
 * - With several server processes (Redis), the stored updates of both are
 *   published (`publish`): a doc another process holds loaded gets them
 *   there (extensions/redis.ts), so its clients see the change.
 *
 * Authentication is the main doc connection's own: its token was checked
 * for this workspace when the connection opened.
 *
 * Bounds (any reader can send these): a `load` of more than `maxBulkIds`
 * ids, or with an id twice, is refused as a whole (`error`); a reply holds
 * at most `maxBulkReplyBytes` of content (always at least its first doc),
 * the ids past it answered `BULK_ASK_AGAIN`; a `store` of more than
 * `maxBulkIds` docs is refused. Nothing a request does escapes this hook:
 * every failure becomes an error reply (Hocuspocus does not await stateless
 * hooks, so a throw here would be an unhandled rejection).
 */
import type { Extension, Hocuspocus, onStatelessPayload } from '@hocuspocus/server'
import {
  BULK_ASK_AGAIN,
  BULK_UNCHANGED,
  type BulkHeads,
  type BulkMessage,
  contentDocName,
  decodeBulkMessage,
  encodeBulkMessage,
  isPackedBulkMessage,
  parseDocName,
} from '@yfs/protocol'
import * as Y from 'yjs'
import type { Logger } from '../logger.js'
import type { ServerLimits } from '../protocol/limits.js'
import { newDocUpdateProblem, updateProblem } from '../protocol/sync-message.js'
import type { WorkspaceFiles } from '../workspace-files.js'
import type { Persistence } from './persistence.js'

export interface BulkContentOptions {
  persistence: Persistence
  files: WorkspaceFiles
  logger: Logger
  /** The server's Hocuspocus (to update docs that are loaded). */
  instance: () => Hocuspocus
  limits: Pick<ServerLimits, 'maxBulkIds' | 'maxBulkReplyBytes'>
  /**
   * Tell other server processes of the updates stored (Redis, `publishUpdates`): a doc one of them
   * holds loaded gets them. Best effort after the store: a failure is logged.
   */
  publish?: (updates: readonly { name: string; update: Uint8Array }[]) => Promise<void>
}

/** Origin of updates applied to loaded docs by a bulk store (already stored: not stored again). */
export const BULK_STORE_ORIGIN = Symbol('yfs-bulk-store')

/** The update of an empty doc (what a file with nothing stored loads as). */
const EMPTY_UPDATE = new Uint8Array([0, 0])

const FILE_ID = /^[A-Za-z0-9_-]{1,64}$/

export function createBulkContentExtension(options: BulkContentOptions): Extension {
  const { persistence, files, logger } = options
  const { maxBulkIds, maxBulkReplyBytes } = options.limits

  async function answer(
    workspace: string,
    readOnly: boolean,
    message: BulkMessage,
  ): Promise<BulkMessage | undefined> {
    if (message.op === 'load') {
      const { req, ids } = message
      if (ids.length > maxBulkIds)
        return { op: 'loaded', req, docs: [], error: `more than ${maxBulkIds} ids` }
      if (new Set(ids).size !== ids.length)
        return { op: 'loaded', req, docs: [], error: 'an id is asked for twice' }
      const types = await files.rowTypes(workspace, ids)
      const names = ids.map((id) => contentDocName(workspace, id))
      // Heads only for a client that sends `since` (it takes them).
      const withHeads = message.since !== undefined ? persistence.heads : undefined
      const current = withHeads && (await withHeads.of(workspace, names))
      const docs: [string, Uint8Array | null, string?][] = []
      const heads: BulkHeads = []
      let bytes = 0
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k]!
        heads.push(null)
        if (types[k] !== 'file') {
          docs.push([id, null, 'no such file in workspace'])
          continue
        }
        const since = message.since?.[k]
        if (current && typeof since === 'string' && since === current[k]) {
          docs.push([id, null, BULK_UNCHANGED])
          heads[k] = since
          continue
        }
        if (bytes >= maxBulkReplyBytes) {
          docs.push([id, null, BULK_ASK_AGAIN])
          continue
        }
        const loaded: { state: Uint8Array | undefined; head?: string } = withHeads
          ? await withHeads.load(names[k]!)
          : { state: await persistence.load(names[k]!) }
        const state = loaded.state ?? EMPTY_UPDATE
        // The first doc always goes in, however big, so every round answers something.
        if (bytes > 0 && bytes + state.byteLength > maxBulkReplyBytes) {
          bytes = maxBulkReplyBytes
          docs.push([id, null, BULK_ASK_AGAIN])
          continue
        }
        bytes += state.byteLength
        docs.push([id, state])
        heads[k] = loaded.head ?? null
      }
      return withHeads ? { op: 'loaded', req, docs, heads } : { op: 'loaded', req, docs }
    }
    if (message.op === 'store') {
      const error = await refusalOf(workspace, readOnly, message.docs, newDocUpdateProblem, false)
      if (error !== undefined) return { op: 'stored', req: message.req, error }
      // A new doc's head, where nothing was stored before it.
      const heads = await storeAndApply(workspace, message.docs, () => undefined)
      return heads ? { op: 'stored', req: message.req, heads } : { op: 'stored', req: message.req }
    }
    if (message.op === 'update') {
      const error = await refusalOf(workspace, readOnly, message.docs, updateProblem, true)
      if (error !== undefined) return { op: 'updated', req: message.req, error }
      const { bases } = message
      const heads = await storeAndApply(workspace, message.docs, bases && ((k) => bases[k] ?? null))
      return heads ? { op: 'updated', req: message.req, heads } : { op: 'updated', req: message.req }
    }
    return undefined
  }

  /**
   * Why a `store` or `update` of `docs` is refused as a whole, or `undefined`: a read-only
   * connection, too many docs, an id that is no file id (or, with `unique`, one twice), a row
   * that exists and is not a file, or an update with a `problem`.
   */
  async function refusalOf(
    workspace: string,
    readOnly: boolean,
    docs: [string, Uint8Array][],
    problem: (update: Uint8Array) => string | undefined,
    unique: boolean,
  ): Promise<string | undefined> {
    if (readOnly) return 'read-only token'
    if (docs.length > maxBulkIds) return `more than ${maxBulkIds} docs`
    const ids = docs.map(([id]) => id)
    if (!ids.every((id) => FILE_ID.test(id))) return 'invalid file id'
    if (unique && new Set(ids).size !== ids.length) return 'a file is updated twice'
    const types = await files.rowTypes(workspace, ids)
    if (types.some((t) => t !== undefined && t !== 'file')) return 'not a file'
    for (const [id, update] of docs) {
      const found = problem(update)
      if (found !== undefined) return `invalid update for file ${id}: ${found}`
    }
    return undefined
  }

  /**
   * One store transaction for the whole request (all stored, or none); then loaded docs get the
   * updates. With `baseOf` (the head each update was made on: `undefined` for nothing stored) and
   * a store with heads, resolves with the head each doc has now where its update was appended
   * right on that base (`null` elsewhere); else with `undefined`.
   */
  async function storeAndApply(
    workspace: string,
    docs: [string, Uint8Array][],
    baseOf?: (k: number) => string | null | undefined,
  ): Promise<BulkHeads | undefined> {
    const updates = docs.map(([id, update]) => ({ name: contentDocName(workspace, id), update }))
    const withHeads = baseOf && persistence.heads
    let heads: BulkHeads | undefined
    if (withHeads) {
      const stored = await withHeads.storeMany(workspace, updates)
      heads = stored.map(({ before, after }, k) =>
        after !== undefined && before === baseOf(k) ? after : null,
      )
    } else await persistence.storeMany(workspace, updates)
    for (const { name, update } of updates) {
      const loaded = options.instance().documents.get(name)
      if (loaded) Y.applyUpdate(loaded, update, BULK_STORE_ORIGIN)
    }
    options.publish?.(updates).catch((error: unknown) => logger.warn('bulk updates not published', { error }))
    return heads
  }

  return {
    extensionName: 'yfs-bulk-content',
    async onStateless({ connection, documentName, payload }: onStatelessPayload) {
      const message = decodeBulkMessage(payload)
      if (!message || (message.op !== 'load' && message.op !== 'store' && message.op !== 'update')) return
      // Answered in the format asked in; every reply says packed requests are read here.
      const packed = isPackedBulkMessage(payload)
      const send = (reply: BulkMessage) =>
        connection.sendStateless(encodeBulkMessage({ ...reply, readsPacked: true } as BulkMessage, packed))
      const doc = parseDocName(documentName)
      const failed = (error: string): BulkMessage =>
        message.op === 'load'
          ? { op: 'loaded', req: message.req, docs: [], error }
          : { op: message.op === 'store' ? 'stored' : 'updated', req: message.req, error }
      let reply: BulkMessage | undefined
      try {
        reply =
          doc?.kind === 'main'
            ? await answer(doc.workspace, connection.readOnly, message)
            : failed('bulk messages go to the main doc')
      } catch (error) {
        logger.error('bulk request failed', { hook: 'onStateless', docNameBytes: documentName.length, error })
        reply = failed(message.op === 'load' ? 'internal error' : 'storage error')
      }
      if (!reply) return
      try {
        send(reply)
      } catch (error) {
        // A reply that cannot be encoded or sent: say so in a reply that can.
        logger.error('bulk reply failed', { hook: 'onStateless', docNameBytes: documentName.length, error })
        send(failed('internal error'))
      }
    },
  }
}
