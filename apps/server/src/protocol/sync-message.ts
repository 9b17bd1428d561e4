/**
 * Reading the parts of client messages the server acts on before Hocuspocus
 * does: the document update inside a sync message, and whether an update is
 * well-formed.
 *
 * Hocuspocus frames every message as `varString(docName) varUint(type) …`;
 * a sync message (type 0, or 4 for a reply) continues with
 * `varUint(syncType) varUint8Array(payload)` where syncType 0 is step 1 (a
 * state vector), 1 step 2 and 2 an update (both Yjs updates). y-websocket
 * uses the same layout without the leading document name.
 *
 * `readHocuspocusUpdate` throws on a truncated frame; callers treat that as
 * a hostile message and close the connection.
 */
import * as decoding from 'lib0/decoding'
import * as Y from 'yjs'

const SYNC = 0
const SYNC_REPLY = 4
const SYNC_STEP2 = 1
const SYNC_UPDATE = 2

export interface FrameHeader {
  docName: string
  type: number
}

/** The document name and message type of a Hocuspocus frame. Throws on a truncated frame. */
export function readFrameHeader(message: Uint8Array): FrameHeader {
  const decoder = decoding.createDecoder(message)
  const docName = decoding.readVarString(decoder)
  const type = decoding.readVarUint(decoder)
  return { docName, type }
}

/** Read a sync body (`varUint(syncType) varUint8Array(payload)`); the update of step 2 / update, else undefined. */
export function readSyncUpdate(decoder: decoding.Decoder): Uint8Array | undefined {
  const syncType = decoding.readVarUint(decoder)
  if (syncType !== SYNC_STEP2 && syncType !== SYNC_UPDATE) return undefined
  return decoding.readVarUint8Array(decoder)
}

/** The Yjs update carried by a Hocuspocus frame (sync step 2 or update); `undefined` for other messages. */
export function readHocuspocusUpdate(message: Uint8Array): Uint8Array | undefined {
  const decoder = decoding.createDecoder(message)
  decoding.readVarString(decoder)
  const type = decoding.readVarUint(decoder)
  if (type !== SYNC && type !== SYNC_REPLY) return undefined
  return readSyncUpdate(decoder)
}

/** Guid of the scratch docs: a doc made without one draws a random uuid (32 crypto calls, ≈ 0.1 ms). */
const SCRATCH_GUID = 'yfs-scratch'

/**
 * Whether `update` is a well-formed Yjs (v1) update: it decodes completely
 * and applies cleanly to an empty doc. Checked before an update is stored,
 * so a hostile client cannot put bytes in the log that would break loading.
 * (Applying reads every struct and the whole delete set, so a separate
 * decode pass would check nothing more.)
 */
export function isValidUpdate(update: Uint8Array): boolean {
  return updateProblem(update) === undefined
}

/** Why `update` is not a valid update (see `isValidUpdate`), or `undefined` when it is. */
export function updateProblem(update: Uint8Array): string | undefined {
  return decodesWithNothingToIntegrate(update) ? undefined : checkUpdate(update, false)
}

/**
 * Why `update` cannot be the first update of a new document, or `undefined`
 * when it can: it must be a valid update (see `isValidUpdate`) that applies
 * completely to an empty doc, with nothing left pending (no struct or
 * deletion that depends on changes it does not carry). Bulk stores of new
 * content docs are held to this.
 */
export function newDocUpdateProblem(update: Uint8Array): string | undefined {
  return isSelfContainedFirstUpdate(update) ? undefined : checkUpdate(update, true)
}

// Yjs v1 struct info bits (yjs's `BIT8`, `BIT7`, `BIT6`, `BITS5`) and content refs.
const HAS_ORIGIN = 0x80
const HAS_RIGHT_ORIGIN = 0x40
const HAS_PARENT_SUB = 0x20
const CONTENT_REF = 0x1f
const REF_DELETED = 1
const REF_BINARY = 3
const REF_STRING = 4
const REF_ANY = 8

/**
 * Read one item's content of `ref` as Yjs reads it: its length in clock units (a string's UTF-16
 * units, a deletion's length, the number of values, 1 for bytes), or -1 for a kind not read here
 * (checked in full).
 */
function readContent(decoder: decoding.Decoder, ref: number): number {
  switch (ref) {
    case REF_DELETED:
      return decoding.readVarUint(decoder)
    case REF_BINARY:
      decoding.readVarUint8Array(decoder)
      return 1
    case REF_STRING:
      return decoding.readVarString(decoder).length
    case REF_ANY: {
      const values = decoding.readVarUint(decoder)
      for (let k = 0; k < values; k++) skipAny(decoder)
      return values
    }
    default:
      return -1
  }
}

// lib0 reads strings with a fatal UTF-8 decoder (lib0/string.js): bytes that are not UTF-8 throw.
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** Read past a lib0 `varString` as `decoding.readVarString` reads it (throws where it throws), without making the string. */
function skipString(decoder: decoding.Decoder): void {
  const bytes = decoding.readVarUint8Array(decoder)
  for (let i = 0; i < bytes.length; i++) {
    // ASCII is valid UTF-8; anything else is checked by the decoder lib0 uses.
    if (bytes[i]! >= 0x80) {
      utf8Strict.decode(bytes)
      return
    }
  }
}

/**
 * Read past one lib0 `any` value as `decoding.readAny` reads it, without making it (strings are
 * checked, not kept; see `skipString`); a tag `readAny` does not know throws, as there. Every new
 * file's first version is such a value, with nine strings.
 */
function skipAny(decoder: decoding.Decoder): void {
  const tag = decoding.readUint8(decoder)
  switch (tag) {
    case 127: // undefined
    case 126: // null
    case 121: // false
    case 120: // true
      return
    case 125:
      decoding.readVarInt(decoder)
      return
    case 124:
      decoding.readFloat32(decoder)
      return
    case 123:
      decoding.readFloat64(decoder)
      return
    case 122:
      decoding.readBigInt64(decoder)
      return
    case 119:
      skipString(decoder)
      return
    case 116:
      decoding.readVarUint8Array(decoder)
      return
    case 118: {
      const keys = decoding.readVarUint(decoder)
      for (let k = 0; k < keys; k++) {
        skipString(decoder)
        skipAny(decoder)
      }
      return
    }
    case 117: {
      const items = decoding.readVarUint(decoder)
      for (let k = 0; k < items; k++) skipAny(decoder)
      return
    }
    default:
      throw new TypeError(`not a lib0 any value (tag ${tag})`)
  }
}

/**
 * True for an update that decodes completely and of which nothing integrates when applied to an
 * empty doc, so decoding it, as Yjs's readers do, is the whole check: each client starts past
 * clock 0 (its first change waits for the ones before it), or starts at 0 with a first item that
 * refers (origin, right origin or parent) to another client (it waits for that client's item:
 * Yjs's `getMissing`). No first item of any client can then integrate before another has, so none
 * does, and the deletions wait too. That is what a peer's edits are
 * (a provider's updates, a main doc's rows after its first), and an overwrite built in a scratch
 * doc on a file's state (a bulk update: a new client whose first insert sits among the file's
 * items). Items whose content is not text, bytes, values or a deletion, and anything that does
 * not decode, are `false`: checked in full (a property test in sync-message.test.ts).
 */
export function decodesWithNothingToIntegrate(update: Uint8Array): boolean {
  try {
    const decoder = decoding.createDecoder(update)
    const clients = decoding.readVarUint(decoder)
    for (let c = 0; c < clients; c++) {
      const structs = decoding.readVarUint(decoder)
      const client = decoding.readVarUint(decoder)
      const fromZero = decoding.readVarUint(decoder) === 0
      for (let i = 0; i < structs; i++) {
        const info = decoding.readUint8(decoder)
        const origins = info & (HAS_ORIGIN | HAS_RIGHT_ORIGIN)
        // Another client this item refers to (-1: none), as `getMissing` looks for one.
        let other = -1
        if ((info & HAS_ORIGIN) !== 0) other = otherClient(decoder, client, other)
        if ((info & HAS_RIGHT_ORIGIN) !== 0) other = otherClient(decoder, client, other)
        if (origins === 0) {
          // The parent: a root type's name, or an item's id; then a map entry's key.
          if (decoding.readVarUint(decoder) === 1) decoding.readVarString(decoder)
          else other = otherClient(decoder, client, other)
          if ((info & HAS_PARENT_SUB) !== 0) decoding.readVarString(decoder)
        }
        // Yjs writes no empty item: one in hostile bytes gets the full check.
        if (readContent(decoder, info & CONTENT_REF) <= 0) return false
        // From clock 0, a first item that refers to no other client may integrate.
        if (fromZero && i === 0 && other < 0) return false
      }
    }
    // The delete set: per client, its ranges (clock, length). An empty range, which Yjs never
    // writes, makes the full check fail (a deletion left pending is written again, and Yjs's
    // encoder refuses a length of 0): checked in full.
    const deleting = decoding.readVarUint(decoder)
    for (let c = 0; c < deleting; c++) {
      decoding.readVarUint(decoder)
      const ranges = decoding.readVarUint(decoder)
      for (let r = 0; r < ranges; r++) {
        decoding.readVarUint(decoder)
        if (decoding.readVarUint(decoder) === 0) return false
      }
    }
    return !decoding.hasContent(decoder)
  } catch {
    return false
  }
}

/** Read an id: its client when it is not `client`, else `found` (the other client found so far). */
function otherClient(decoder: decoding.Decoder, client: number, found: number): number {
  const of = decoding.readVarUint(decoder)
  decoding.readVarUint(decoder)
  return found < 0 && of !== client ? of : found
}

/**
 * True for the shape of a new file's first state as clients send it in bulk (core's
 * `encodeNewContentDoc`, or a fresh doc's one transaction): one client from clock 0, each item
 * without origins in a root type (a text's string, a map entry's bytes or values, an array's
 * values), no deletions, nothing after. Nothing in such an update depends on anything else, so
 * it applies completely to an empty doc; reading it here with the readers Yjs uses (lib0's; the
 * values' strings checked as lib0 checks them, `skipAny`) checks every byte, without the scratch
 * doc (whose random client id alone costs ≈ 13 µs).
 * Anything else, or anything that does not decode, is `false` and is checked in full: this only
 * says yes where the full check says yes (a property test in sync-message.test.ts).
 */
export function isSelfContainedFirstUpdate(update: Uint8Array): boolean {
  try {
    const decoder = decoding.createDecoder(update)
    if (decoding.readVarUint(decoder) !== 1) return false
    const structs = decoding.readVarUint(decoder)
    decoding.readVarUint(decoder) // the client
    if (decoding.readVarUint(decoder) !== 0) return false // from clock 0
    for (let i = 0; i < structs; i++) {
      const info = decoding.readUint8(decoder)
      if ((info & (HAS_ORIGIN | HAS_RIGHT_ORIGIN)) !== 0) return false
      if (decoding.readVarUint(decoder) !== 1) return false // the parent is a root type, by name
      decoding.readVarString(decoder)
      if ((info & HAS_PARENT_SUB) !== 0) decoding.readVarString(decoder)
      // Text, bytes or values; an empty item (length 0) is not what a client sends: checked in full.
      const ref = info & CONTENT_REF
      if (ref === REF_DELETED || readContent(decoder, ref) <= 0) return false
    }
    // No deletions, and nothing after them.
    return decoding.readVarUint(decoder) === 0 && !decoding.hasContent(decoder)
  } catch {
    return false
  }
}

function checkUpdate(update: Uint8Array, complete: boolean): string | undefined {
  const scratch = new Y.Doc({ gc: false, guid: SCRATCH_GUID })
  try {
    Y.applyUpdate(scratch, update)
    const { pendingStructs, pendingDs } = scratch.store
    if (complete && (pendingStructs !== null || pendingDs !== null))
      return 'depends on changes it does not carry'
    return undefined
  } catch {
    // Any decoding failure means the bytes are not an update: report, don't throw.
    return 'not a Yjs update'
  } finally {
    scratch.destroy()
  }
}

/** Whether a (valid) update carries nothing: no structs and no deletions (e.g. an idle sync step 2). */
export function isEmptyUpdate(update: Uint8Array): boolean {
  // The empty v1 update is exactly [0 structs, 0 delete-set clients].
  return update.byteLength === 2 && update[0] === 0 && update[1] === 0
}
