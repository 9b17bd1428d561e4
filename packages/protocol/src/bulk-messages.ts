/**
 * Bulk content messages (format v1): many content docs per round trip over
 * the main doc's connection, as Hocuspocus stateless messages (JSON text;
 * Yjs updates in base64). The server imports these too, so both sides agree
 * by construction.
 *
 *   client → server  { v: 'yfs.bulk.1', op: 'load',  req, ids: [fileId…], since? }
 *   server → client  { v: 'yfs.bulk.1', op: 'loaded', req, docs: [[fileId, base64 | null, reason?]…], heads?, error? }
 *   client → server  { v: 'yfs.bulk.1', op: 'store', req, docs: [[fileId, base64]…] }
 *   server → client  { v: 'yfs.bulk.1', op: 'stored', req, heads?, error? }
 *   client → server  { v: 'yfs.bulk.1', op: 'update', req, docs: [[fileId, base64]…], bases? }
 *   server → client  { v: 'yfs.bulk.1', op: 'updated', req, heads?, error? }
 *
 * `loaded` lists the requested ids in request order; `null` with a reason
 * (`no such file in workspace`) for an id the server refuses, or with
 * `BULK_ASK_AGAIN` for ids past the server's reply size limit (the client
 * asks for those again). A request the server refuses as a whole (too many
 * ids, duplicates) gets `docs: []` and `error`. `req` is chosen at random
 * by the client and a reply is taken only for a request it sent, so no
 * other connection can answer in the server's name. `stored` comes
 * once every update is durably stored (acknowledged = stored), or with
 * `error` when none of them was (read-only token, invalid update, a row
 * that is not a file). `update` carries changes to existing content docs
 * (each file's row must exist and be a file); `updated` comes once all are
 * stored, or with `error` when none was (also `BULK_UPDATES_OFF`, from a
 * scaled-out server of a version before bulk updates travelled over Redis).
 *
 *
 * **Heads** (optional both ways; a server or client without them ignores them): a doc's head
 * names its stored log as it stands (the last row's number: a server's store numbers a log's rows
 * in commit order); any change to the log gives another. `loaded` and `stored` / `updated`
 * may carry `heads`, one per doc in order (`null`: none to give). A `load` may send `since`, one
 * per id: the head of a state the client holds; a doc still at that head is answered `null` with
 * `BULK_UNCHANGED` (and its head) instead of its state. An `update` may send `bases`, one per doc:
 * the head of the state the update was made on; the server's `heads` then name the log after the
 * update only where it was appended right on that head (the stored state is exactly the base and
 * the update), `null` elsewhere. `stored` heads are given where nothing was stored before.
 *
 * Round trip: `decodeBulkMessage(encodeBulkMessage(m))` deep-equals `m`.
 */
import { fromBase64, toBase64 } from 'lib0/buffer'

export const BULK_VERSION = 'yfs.bulk.1'

/** The reason of an id left out of a `loaded` reply to keep it under the server's size limit: ask again. */
export const BULK_ASK_AGAIN = 'over the reply size limit: ask again'

/** The `updated` error of a scaled-out server of a version before bulk updates travelled over Redis: open each doc instead. */
export const BULK_UPDATES_OFF = 'bulk updates are off on this server'

/** The reason of a doc a `load` asked for `since` a head it is still at: the client's state is the stored one. */
export const BULK_UNCHANGED = 'unchanged since the head given'

/** One head per doc, in order (see the module comment); `null`: none. */
export type BulkHeads = (string | null)[]

export type BulkMessage =
  | { op: 'load'; req: number; ids: string[]; since?: BulkHeads }
  | {
      op: 'loaded'
      req: number
      docs: [string, Uint8Array | null, string?][]
      heads?: BulkHeads
      error?: string
    }
  | { op: 'store'; req: number; docs: [string, Uint8Array][] }
  | { op: 'stored'; req: number; heads?: BulkHeads; error?: string }
  | { op: 'update'; req: number; docs: [string, Uint8Array][]; bases?: BulkHeads }
  | { op: 'updated'; req: number; heads?: BulkHeads; error?: string }

/** JSON text of a bulk message. */
export function encodeBulkMessage(message: BulkMessage): string {
  const wire: Record<string, unknown> = { v: BULK_VERSION, op: message.op, req: message.req }
  if (message.op === 'load') {
    wire.ids = message.ids
    if (message.since !== undefined) wire.since = message.since
  } else if (message.op === 'loaded') {
    wire.docs = message.docs.map(([id, bytes, reason]) =>
      reason === undefined ? [id, bytes && toBase64(bytes)] : [id, bytes && toBase64(bytes), reason],
    )
    if (message.heads !== undefined) wire.heads = message.heads
    if (message.error !== undefined) wire.error = message.error
  } else if (message.op === 'store' || message.op === 'update') {
    wire.docs = message.docs.map(([id, bytes]) => [id, toBase64(bytes)])
    if (message.op === 'update' && message.bases !== undefined) wire.bases = message.bases
  } else {
    if (message.heads !== undefined) wire.heads = message.heads
    if (message.error !== undefined) wire.error = message.error
  }
  return JSON.stringify(wire)
}

const isString = (x: unknown): x is string => typeof x === 'string'

/** Heads: absent, or an array of `length` strings or nulls; `false` when malformed. */
function headsOf(x: unknown, length: number): BulkHeads | undefined | false {
  if (x === undefined) return undefined
  if (!Array.isArray(x) || x.length !== length) return false
  return x.every((h) => h === null || isString(h)) ? (x as BulkHeads) : false
}

/** 1 for the characters of the base64 alphabet (`A-Z a-z 0-9 + /`), by char code. */
const BASE64_ALPHABET = (() => {
  const table = new Uint8Array(128)
  for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')
    table[c.charCodeAt(0)] = 1
  return table
})()
const PAD = 61 // '='

/**
 * Whether `x` is padded base64: groups of four alphabet characters, the last one possibly
 * ending in `=` or `==`. Node's base64 decoder skips characters outside the alphabet (`%%%`
 * decodes to no bytes), so a peer's broken payload is refused here rather than read as an
 * empty update. A loop, not a regular expression: updates are megabytes at times, and the
 * expression cost a tenth of the server's time storing a 1 MB tar archive.
 */
export function isBase64(x: unknown): x is string {
  if (!isString(x) || x.length % 4 !== 0) return false
  let end = x.length
  if (end > 0 && x.charCodeAt(end - 1) === PAD) end -= x.charCodeAt(end - 2) === PAD ? 2 : 1
  for (let i = 0; i < end; i++) {
    const c = x.charCodeAt(i)
    if (c >= 128 || BASE64_ALPHABET[c] === 0) return false
  }
  return true
}

/** The bulk message in `payload`; `undefined` for any other (or malformed) stateless payload. */
export function decodeBulkMessage(payload: string): BulkMessage | undefined {
  // Not naming this version literally: another channel's message (see decodeSearchMessage).
  if (!payload.includes(BULK_VERSION)) return undefined
  let wire: Record<string, unknown>
  try {
    const parsed: unknown = JSON.parse(payload)
    if (typeof parsed !== 'object' || parsed === null) return undefined
    wire = parsed as Record<string, unknown>
  } catch {
    // Not JSON: some other stateless message, not ours.
    return undefined
  }
  const { v, op, req } = wire
  if (v !== BULK_VERSION || typeof req !== 'number' || !Number.isSafeInteger(req)) return undefined
  try {
    if (op === 'load' && Array.isArray(wire.ids) && wire.ids.every(isString)) {
      const since = headsOf(wire.since, wire.ids.length)
      if (since === false) return undefined
      return since === undefined ? { op, req, ids: wire.ids } : { op, req, ids: wire.ids, since }
    }
    if (op === 'stored' || op === 'updated') {
      // Heads of a reply: their count is checked against the request by the client.
      const heads = headsOf(wire.heads, Array.isArray(wire.heads) ? wire.heads.length : 0)
      if (heads === false) return undefined
      return {
        op,
        req,
        ...(heads !== undefined ? { heads } : {}),
        ...(isString(wire.error) ? { error: wire.error } : {}),
      }
    }
    if (!Array.isArray(wire.docs)) return undefined
    if (op === 'loaded') {
      const docs: [string, Uint8Array | null, string?][] = []
      for (const d of wire.docs as unknown[]) {
        if (!Array.isArray(d) || !isString(d[0]) || !(d[1] === null || isBase64(d[1]))) return undefined
        const bytes = d[1] === null ? null : fromBase64(d[1])
        docs.push(isString(d[2]) ? [d[0], bytes, d[2]] : [d[0], bytes])
      }
      const heads = headsOf(wire.heads, docs.length)
      if (heads === false) return undefined
      return {
        op,
        req,
        docs,
        ...(heads !== undefined ? { heads } : {}),
        ...(isString(wire.error) ? { error: wire.error } : {}),
      }
    }
    if (op === 'store' || op === 'update') {
      const docs: [string, Uint8Array][] = []
      for (const d of wire.docs as unknown[]) {
        if (!Array.isArray(d) || !isString(d[0]) || !isBase64(d[1])) return undefined
        docs.push([d[0], fromBase64(d[1])])
      }
      if (op === 'store') return { op, req, docs }
      const bases = headsOf(wire.bases, docs.length)
      if (bases === false) return undefined
      return bases === undefined ? { op, req, docs } : { op, req, docs, bases }
    }
  } catch {
    // Bad base64 from a peer: not a message we can act on.
    return undefined
  }
  return undefined
}
