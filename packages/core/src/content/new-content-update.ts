/**
 * The first update of a new file's content doc, encoded directly: the same
 * bytes `Y.encodeStateAsUpdate` gives for a fresh doc (client `clientID`)
 * after one transaction that writes the content — a text through the text
 * codec (`Y.Text(TEXT_KEY)`, one string item) or bytes (`Y.Map(BINARY_KEY)`,
 * key `bytes`) — and records the first history version (a keyframe whose
 * snapshot is the state after the content, appended to
 * `Y.Array(VERSIONS_KEY)`). Used by bulk loads to a server, where building
 * and encoding a Y.Doc per file was most of the client's cost.
 *
 * It only covers that shape (one client, no deletions, root types only);
 * a property test checks it byte for byte against the Y.Doc path.
 *
 * Yjs v1 update layout used here: `varUint(#clients)`, per client
 * `varUint(#structs) varUint(client) varUint(firstClock)` and its items
 * (`uint8 info`, `varUint(1) varString(rootKey)` for a root parent without
 * origins, `varString(parentSub)` when info has 0x20, then the content:
 * ContentString (ref 4) `varString`, ContentBinary (ref 3) `varUint8Array`,
 * ContentAny (ref 8) `varUint(len)` and `any` per value), then the delete
 * set (`varUint(0)`: none). A v1 snapshot is `varUint(0)` (no deletions)
 * followed by the state vector (`varUint(#clients)`, `client clock` pairs).
 * The version is one lib0 `any` object (lib0/encoding.js `writeAny`: a type
 * byte, then per key its `varString` and value), written here field by field.
 */
// The versions array's format only (a leaf module): content does not depend on history's logic.
import { type StoredVersion, VERSIONS_KEY } from '../history/version-list.js'
import { BINARY_KEY } from './binary.js'
import { TEXT_KEY } from './text-codec.js'

const utf8 = new TextEncoder()

const REF_BINARY = 3
const REF_STRING = 4
const REF_ANY = 8
const HAS_PARENT_SUB = 0x20

// lib0's `writeAny` type tags (lib0/encoding.js): the version is one `any` object.
const ANY_INTEGER = 125
const ANY_FLOAT32 = 124
const ANY_FLOAT64 = 123
const ANY_FALSE = 121
const ANY_TRUE = 120
const ANY_STRING = 119
const ANY_OBJECT = 118
const ANY_BYTES = 116
/** lib0's `binary.BITS31`: integers up to this are written as a varInt, larger ones as floats. */
const BITS31 = 0x7fffffff

export interface NewContentDoc {
  /** The Yjs client id of the writer (a random uint32, as Y.Doc picks). */
  clientID: number
  /** Text content (text codec) … */
  text?: string
  /** … or binary content. */
  bytes?: Uint8Array
  /** The first version's fields; `binary` and `snapshot` are derived. */
  version: Omit<StoredVersion, 'binary' | 'snapshot' | 'base' | 'depth'>
}

export interface EncodedContentDoc {
  update: Uint8Array
  /** The doc's content version (base64 state vector, as `contentVersionOf`). */
  sv: string
  /** Its first (and only) version, as the doc's versions array holds it. */
  version: StoredVersion
  /** The writer's clock after the update: the doc's state vector is `{ clientID: clock }`. */
  clock: number
}

/**
 * One reused buffer the update is written into, then copied out once. lib0's encoder made three
 * `Encoder`s per file, each allocating its first chunk and growing by copies: a quarter of the
 * time of an agent's `cp -r` or `tar -x` of small files was spent there (profiled).
 */
let buf = new Uint8Array(4096)
let pos = 0
/** A buffer grown past this for one big file is not kept for the next. */
const KEEP_MAX = 1 << 20
const floats = new DataView(new ArrayBuffer(8))

function room(n: number): void {
  if (pos + n <= buf.length) return
  const grown = new Uint8Array(Math.max(buf.length * 2, pos + n))
  grown.set(buf.subarray(0, pos))
  buf = grown
}

/** lib0's `writeVarUint`. */
function varUint(n: number): void {
  room(10)
  while (n > 0x7f) {
    buf[pos++] = 0x80 | (n & 0x7f)
    n = Math.floor(n / 128)
  }
  buf[pos++] = n & 0x7f
}

/** lib0's `writeVarUint8Array`. */
function varBytes(bytes: Uint8Array): void {
  varUint(bytes.byteLength)
  room(bytes.byteLength)
  buf.set(bytes, pos)
  pos += bytes.byteLength
}

/** lib0's `writeVarString`: the UTF-8 byte length, then the bytes (`TextEncoder`, as lib0's native path). */
function varString(text: string): void {
  // Each UTF-16 unit takes at most 3 bytes: a string of up to 42 units has a one-byte length.
  if (text.length > 42) {
    varBytes(utf8.encode(text))
    return
  }
  room(text.length * 3 + 1)
  // Short ASCII (keys, most names): copied as is, without a call into the encoder.
  let i = 0
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0x80) break
    buf[pos + 1 + i] = c
  }
  if (i === text.length) {
    buf[pos] = i
    pos += 1 + i
    return
  }
  const { written } = utf8.encodeInto(text, buf.subarray(pos + 1))
  buf[pos] = written
  pos += 1 + written
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'

/** Padded base64 of a few bytes (what lib0's `toBase64` gives), without a Buffer per call. */
function base64(bytes: Uint8Array): string {
  let out = ''
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i]!
    const b = i + 1 < bytes.length ? bytes[i + 1]! : 0
    const c = i + 2 < bytes.length ? bytes[i + 2]! : 0
    out += BASE64[a >> 2]! + BASE64[((a & 3) << 4) | (b >> 4)]!
    out += i + 1 < bytes.length ? BASE64[((b & 15) << 2) | (c >> 6)]! : '='
    out += i + 2 < bytes.length ? BASE64[c & 63]! : '='
  }
  return out
}

/** lib0's `writeAny` of a number. */
function anyNumber(n: number): void {
  room(9)
  if (Number.isInteger(n) && Math.abs(n) <= BITS31) {
    buf[pos++] = ANY_INTEGER
    // lib0's `writeVarInt`: sign in the first byte's 7th bit, 6 bits of the number, then 7 per byte.
    const negative = n < 0 || Object.is(n, -0)
    let rest = Math.abs(n)
    buf[pos++] = (rest > 0x3f ? 0x80 : 0) | (negative ? 0x40 : 0) | (rest & 0x3f)
    rest = Math.floor(rest / 64)
    while (rest > 0) {
      buf[pos++] = (rest > 0x7f ? 0x80 : 0) | (rest & 0x7f)
      rest = Math.floor(rest / 128)
    }
    return
  }
  floats.setFloat32(0, n)
  if (floats.getFloat32(0) === n) {
    buf[pos++] = ANY_FLOAT32
    for (let k = 0; k < 4; k++) buf[pos++] = floats.getUint8(k)
    return
  }
  floats.setFloat64(0, n)
  buf[pos++] = ANY_FLOAT64
  for (let k = 0; k < 8; k++) buf[pos++] = floats.getUint8(k)
}

/** One key of an `any` object and its value (a string or a number), as lib0's `writeAny` writes it. */
function field(key: string, value: string | number): void {
  varString(key)
  if (typeof value === 'number') anyNumber(value)
  else {
    room(1)
    buf[pos++] = ANY_STRING
    varString(value)
  }
}

/** A v1 state vector of one client at `clock` (none at clock 0), as bytes of their own. */
function stateVector(clientID: number, clock: number, deletions: boolean): Uint8Array {
  const start = pos
  if (deletions) varUint(0)
  if (clock === 0) varUint(0)
  else {
    varUint(1)
    varUint(clientID)
    varUint(clock)
  }
  const out = buf.slice(start, pos)
  pos = start
  return out
}

/** The update of a fresh content doc holding `text` or `bytes` and its first version. */
export function encodeNewContentDoc(doc: NewContentDoc): EncodedContentDoc {
  const { clientID, text, bytes } = doc
  // Length of the content item in Yjs clock units: UTF-16 code units of a string, 1 for a map entry.
  const contentLength = bytes ? 1 : (text ?? '').length
  pos = 0
  // A v1 snapshot: no deletions, then the state vector after the content.
  const snapshot = stateVector(clientID, contentLength, true)
  const { id, author, reason, size, codec, name, ts } = doc.version
  // Same key order as recordVersion's object (writeAny writes keys in order).
  const version: StoredVersion = {
    id,
    author,
    reason,
    size,
    codec,
    name,
    ts,
    binary: bytes !== undefined,
    snapshot,
  }

  try {
    // One client, its structs from clock 0.
    varUint(1)
    varUint(contentLength > 0 ? 2 : 1)
    varUint(clientID)
    varUint(0)
    if (bytes) {
      room(1)
      buf[pos++] = REF_BINARY | HAS_PARENT_SUB
      varUint(1)
      varString(BINARY_KEY)
      varString('bytes')
      varBytes(bytes)
    } else if (contentLength > 0) {
      room(1)
      buf[pos++] = REF_STRING
      varUint(1)
      varString(TEXT_KEY)
      varString(text!)
    }
    room(1)
    buf[pos++] = REF_ANY
    varUint(1)
    varString(VERSIONS_KEY)
    varUint(1)
    // The version, as lib0's writeAny writes this object: its keys in order, each value by type.
    room(2)
    buf[pos++] = ANY_OBJECT
    varUint(9)
    field('id', id)
    field('author', author)
    field('reason', reason)
    field('size', size)
    field('codec', codec)
    field('name', name)
    field('ts', ts)
    varString('binary')
    room(1)
    buf[pos++] = bytes !== undefined ? ANY_TRUE : ANY_FALSE
    varString('snapshot')
    room(1)
    buf[pos++] = ANY_BYTES
    varBytes(snapshot)
    // No deletions.
    varUint(0)
    const update = buf.slice(0, pos)
    const clock = contentLength + 1
    return { update, sv: base64(stateVector(clientID, clock, false)), version, clock }
  } finally {
    pos = 0
    if (buf.length > KEEP_MAX) buf = new Uint8Array(4096)
  }
}
