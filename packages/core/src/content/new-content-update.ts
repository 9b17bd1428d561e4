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
 */
import { toBase64 } from 'lib0/buffer'
import * as encoding from 'lib0/encoding'
// The versions array's format only (a leaf module): content does not depend on history's logic.
import { type StoredVersion, VERSIONS_KEY } from '../history/version-list.js'
import { BINARY_KEY } from './binary.js'
import { TEXT_KEY } from './text-codec.js'

const utf8 = new TextEncoder()

const REF_BINARY = 3
const REF_STRING = 4
const REF_ANY = 8
const HAS_PARENT_SUB = 0x20

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
}

function writeStateVector(encoder: encoding.Encoder, clientID: number, clock: number): void {
  if (clock === 0) encoding.writeVarUint(encoder, 0)
  else {
    encoding.writeVarUint(encoder, 1)
    encoding.writeVarUint(encoder, clientID)
    encoding.writeVarUint(encoder, clock)
  }
}

/** The update of a fresh content doc holding `text` or `bytes` and its first version. */
export function encodeNewContentDoc(doc: NewContentDoc): EncodedContentDoc {
  const { clientID, text, bytes } = doc
  // Length of the content item in Yjs clock units: UTF-16 code units of a string, 1 for a map entry.
  const contentLength = bytes ? 1 : (text ?? '').length
  const snapshot = encoding.createEncoder()
  encoding.writeVarUint(snapshot, 0)
  writeStateVector(snapshot, clientID, contentLength)
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
    snapshot: encoding.toUint8Array(snapshot),
  }

  const e = encoding.createEncoder()
  encoding.writeVarUint(e, 1)
  encoding.writeVarUint(e, contentLength > 0 ? 2 : 1)
  encoding.writeVarUint(e, clientID)
  encoding.writeVarUint(e, 0)
  if (bytes) {
    encoding.writeUint8(e, REF_BINARY | HAS_PARENT_SUB)
    encoding.writeVarUint(e, 1)
    encoding.writeVarString(e, BINARY_KEY)
    encoding.writeVarString(e, 'bytes')
    encoding.writeVarUint8Array(e, bytes)
  } else if (contentLength > 0) {
    encoding.writeUint8(e, REF_STRING)
    encoding.writeVarUint(e, 1)
    encoding.writeVarString(e, TEXT_KEY)
    // = writeVarString (varUint byte length, UTF-8 bytes), whose byte-by-byte copy of short strings is slow.
    encoding.writeVarUint8Array(e, utf8.encode(text!))
  }
  encoding.writeUint8(e, REF_ANY)
  encoding.writeVarUint(e, 1)
  encoding.writeVarString(e, VERSIONS_KEY)
  encoding.writeVarUint(e, 1)
  encoding.writeAny(e, version as unknown as { [key: string]: encoding.AnyEncodable })
  encoding.writeVarUint(e, 0)

  const sv = encoding.createEncoder()
  writeStateVector(sv, clientID, contentLength + 1)
  return { update: encoding.toUint8Array(e), sv: toBase64(encoding.toUint8Array(sv)), version }
}
