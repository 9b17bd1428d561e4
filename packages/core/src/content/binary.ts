/**
 * Binary content: bytes that are not valid UTF-8 or contain a NUL byte are
 * stored byte-exact in `Y.Map(BINARY_KEY)` under `bytes`, whatever the file's
 * name. While that entry exists the file is binary; writing text deletes it.
 * Detection is by content, not by extension.
 *
 * The bytes are copied into a plain `Uint8Array` before they reach Yjs: Yjs
 * accepts only that exact constructor (a Node `Buffer` throws "Unexpected
 * content type"), a view (`subarray`, a `Buffer` from the pool) must store
 * only its own bytes, and a caller that reuses its buffer must not change
 * what was written.
 */
import type * as Y from 'yjs'

export const BINARY_KEY = 'binary'
const BYTES = 'bytes'

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** The UTF-8 text of `bytes`, or `undefined` when they are binary (NUL or invalid UTF-8). */
export function decodeTextOrBinary(bytes: Uint8Array): string | undefined {
  if (bytes.includes(0)) return undefined
  try {
    return strictUtf8.decode(bytes)
  } catch {
    // Invalid UTF-8 is the signal for binary content, not an error.
    return undefined
  }
}

export function readBinary(doc: Y.Doc): Uint8Array | undefined {
  if (!doc.share.has(BINARY_KEY)) return undefined
  const value = doc.getMap<unknown>(BINARY_KEY).get(BYTES)
  return value instanceof Uint8Array ? value : undefined
}

/** Store a copy of `bytes` (any `Uint8Array` subclass or view) as the file's content. */
export function writeBinary(doc: Y.Doc, bytes: Uint8Array): void {
  doc.getMap<unknown>(BINARY_KEY).set(BYTES, new Uint8Array(bytes))
}

export function clearBinary(doc: Y.Doc): void {
  if (doc.share.has(BINARY_KEY)) doc.getMap<unknown>(BINARY_KEY).delete(BYTES)
}

export function observeBinary(doc: Y.Doc, onChange: (origin: unknown) => void): () => void {
  const map = doc.getMap<unknown>(BINARY_KEY)
  const handler = (_e: Y.YMapEvent<unknown>, tr: Y.Transaction) => onChange(tr.origin)
  map.observe(handler)
  return () => map.unobserve(handler)
}
