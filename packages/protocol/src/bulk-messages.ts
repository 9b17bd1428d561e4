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
 * **Packed** (format v2, `yfs.bulk.2`): the same messages, each doc's bytes given in the JSON head by
 * their length (`null` as before), all of them after it in one base64 body:
 * `<JSON head>\n<base64 of every doc's bytes, in order>`. Reading a megabyte then costs one base64
 * decode instead of JSON-parsing and checking a megabyte of base64 strings (a tar archive's store
 * took ~15 ms to decode as v1). A server that reads packed messages says so in every reply
 * (`readsPacked`); a client sends packed messages only after such a reply, so an older server is
 * never sent one, and a server answers in the format it was asked in.
 *
 * Round trip: `decodeBulkMessage(encodeBulkMessage(m, packed))` deep-equals `m`, packed or not.
 */
import { fromBase64, toBase64 } from 'lib0/buffer'

export const BULK_VERSION = 'yfs.bulk.1'

/** The version tag of packed messages (see the module comment). */
export const BULK_VERSION_PACKED = 'yfs.bulk.2'

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
      readsPacked?: true
    }
  | { op: 'store'; req: number; docs: [string, Uint8Array][] }
  | { op: 'stored'; req: number; heads?: BulkHeads; error?: string; readsPacked?: true }
  | { op: 'update'; req: number; docs: [string, Uint8Array][]; bases?: BulkHeads }
  | { op: 'updated'; req: number; heads?: BulkHeads; error?: string; readsPacked?: true }

/** The text of a bulk message: JSON (v1), or packed (v2: a JSON head and one base64 body). */
export function encodeBulkMessage(message: BulkMessage, packed = false): string {
  const wire: Record<string, unknown> = {
    v: packed ? BULK_VERSION_PACKED : BULK_VERSION,
    op: message.op,
    req: message.req,
  }
  // Packed: each doc's bytes go to the body, the head gives their length.
  const body: Uint8Array[] = []
  const bytesField = (bytes: Uint8Array): string | number => {
    if (!packed) return toBase64(bytes)
    body.push(bytes)
    return bytes.byteLength
  }
  if (message.op === 'load') {
    wire.ids = message.ids
    if (message.since !== undefined) wire.since = message.since
  } else if (message.op === 'loaded') {
    wire.docs = message.docs.map(([id, bytes, reason]) =>
      reason === undefined ? [id, bytes && bytesField(bytes)] : [id, bytes && bytesField(bytes), reason],
    )
    if (message.heads !== undefined) wire.heads = message.heads
    if (message.error !== undefined) wire.error = message.error
  } else if (message.op === 'store' || message.op === 'update') {
    wire.docs = message.docs.map(([id, bytes]) => [id, bytesField(bytes)])
    if (message.op === 'update' && message.bases !== undefined) wire.bases = message.bases
  } else {
    if (message.heads !== undefined) wire.heads = message.heads
    if (message.error !== undefined) wire.error = message.error
  }
  if ((message.op === 'loaded' || message.op === 'stored' || message.op === 'updated') && message.readsPacked)
    wire.readsPacked = true
  // JSON.stringify writes no raw newline: the first one ends the head.
  const head = JSON.stringify(wire)
  return packed ? `${head}\n${toBase64(concatBytes(body))}` : head
}

/** Whether `payload` is a packed (v2) bulk message, to answer in kind. */
export function isPackedBulkMessage(payload: string): boolean {
  return payload.startsWith(PACKED_START)
}

const PACKED_START = `{"v":"${BULK_VERSION_PACKED}",`

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!
  let total = 0
  for (const part of parts) total += part.byteLength
  const all = new Uint8Array(total)
  let at = 0
  for (const part of parts) {
    all.set(part, at)
    at += part.byteLength
  }
  return all
}

/**
 * A packed message's body cut into docs of `lengths` bytes (each a copy of its own: a doc kept
 * must not hold the whole body); `undefined` unless the body is padded base64 of exactly their
 * total. Checked without a loop over its characters: a decoder skips characters outside the
 * alphabet (Node's) or throws on them (browsers' `atob`), so any such character shortens the
 * bytes, and `-`, `_` (base64url, which Node's decoder reads too) are looked for natively.
 */
function unpackBody(body: string, lengths: readonly number[]): Uint8Array[] | undefined {
  let total = 0
  for (const length of lengths) total += length
  if (body.length % 4 !== 0) return undefined
  const pad = body.endsWith('==') ? 2 : body.endsWith('=') ? 1 : 0
  if ((body.length / 4) * 3 - pad !== total || body.includes('-') || body.includes('_')) return undefined
  const all = decodeBase64(body)
  if (all.byteLength !== total) return undefined
  const out: Uint8Array[] = []
  let at = 0
  for (const length of lengths) {
    out.push(all.slice(at, at + length))
    at += length
  }
  return out
}

// Node's Buffer where there is one: lib0's `fromBase64` copies Node's result into a new array
// element by element (~8 ms a megabyte); the docs are copied out of this view anyway.
const NodeBuffer = (globalThis as { Buffer?: { from(s: string, encoding: 'base64'): Uint8Array } }).Buffer
const decodeBase64 = (body: string): Uint8Array => {
  if (!NodeBuffer) return fromBase64(body)
  const bytes = NodeBuffer.from(body, 'base64')
  return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

const isLength = (x: unknown): x is number => typeof x === 'number' && Number.isSafeInteger(x) && x >= 0

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

/** The bulk message in `payload`, v1 or packed; `undefined` for any other (or malformed) stateless payload. */
export function decodeBulkMessage(payload: string): BulkMessage | undefined {
  const packed = isPackedBulkMessage(payload)
  const newline = packed ? payload.indexOf('\n') : -1
  if (packed && newline < 0) return undefined
  const head = packed ? payload.slice(0, newline) : payload
  // Not naming this version literally: another channel's message (see decodeSearchMessage).
  if (!packed && !payload.includes(BULK_VERSION)) return undefined
  let wire: Record<string, unknown>
  try {
    const parsed: unknown = JSON.parse(head)
    if (typeof parsed !== 'object' || parsed === null) return undefined
    wire = parsed as Record<string, unknown>
  } catch {
    // Not JSON: some other stateless message, not ours.
    return undefined
  }
  const { v, op, req } = wire
  if (
    v !== (packed ? BULK_VERSION_PACKED : BULK_VERSION) ||
    typeof req !== 'number' ||
    !Number.isSafeInteger(req)
  )
    return undefined
  const readsPacked = wire.readsPacked === true ? { readsPacked: true as const } : {}
  /** The docs' bytes fields (base64 in v1, lengths when packed) as bytes, in order; `null` stays. */
  const bytesOf = (fields: unknown[]): (Uint8Array | null)[] | undefined => {
    if (!packed) {
      if (!fields.every((f) => f === null || isBase64(f))) return undefined
      return fields.map((f) => (f === null ? null : fromBase64(f as string)))
    }
    if (!fields.every((f) => f === null || isLength(f))) return undefined
    const parts = unpackBody(payload.slice(newline + 1), fields.filter(isLength))
    if (!parts) return undefined
    let k = 0
    return fields.map((f) => (f === null ? null : parts[k++]!))
  }
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
        ...readsPacked,
      }
    }
    if (!Array.isArray(wire.docs)) return undefined
    const entries = wire.docs as unknown[]
    if (!entries.every((d) => Array.isArray(d) && isString(d[0]))) return undefined
    const fields = (entries as unknown[][]).map((d) => d[1])
    if (op === 'loaded') {
      const bytes = bytesOf(fields)
      if (!bytes) return undefined
      const docs = (entries as [string, unknown, unknown?][]).map(
        ([id, , reason], k): [string, Uint8Array | null, string?] =>
          isString(reason) ? [id, bytes[k]!, reason] : [id, bytes[k]!],
      )
      const heads = headsOf(wire.heads, docs.length)
      if (heads === false) return undefined
      return {
        op,
        req,
        docs,
        ...(heads !== undefined ? { heads } : {}),
        ...(isString(wire.error) ? { error: wire.error } : {}),
        ...readsPacked,
      }
    }
    if (op === 'store' || op === 'update') {
      // Every doc of a store or update has bytes.
      if (fields.includes(null)) return undefined
      const bytes = bytesOf(fields)
      if (!bytes) return undefined
      const docs = (entries as [string][]).map(([id], k): [string, Uint8Array] => [id, bytes[k]!])
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
