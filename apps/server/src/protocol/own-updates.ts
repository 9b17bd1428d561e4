/**
 * The updates a socket's client sent, until the server sends them back.
 *
 * Hocuspocus sends every update it applies to every connection of the
 * document, the one it came from included (`Document.handleUpdate`): a writer
 * gets each of its own updates back, decodes it and applies nothing (a whole
 * batch's rows on a main doc, every append on a content doc). The guard keeps
 * what its client sent and drops a frame back to it that carries the very same
 * bytes on the same document: the client has that update, so nothing it lacks
 * is dropped. An update the server sends that differs in any byte (merged
 * with others, another client's, the server's own) goes through, as does
 * anything once the document's connection closed or authenticates again.
 *
 * Bounded: updates of at most `MAX_UPDATE_BYTES` are kept (copied), at most
 * `MAX_KEPT` of them and `MAX_KEPT_BYTES` in all, oldest dropped first (an
 * update applied as a no-op is never sent back).
 */

/** Larger updates are not kept (a first sync's state): they are sent back as before. */
const MAX_UPDATE_BYTES = 64 * 1024
const MAX_KEPT = 256
const MAX_KEPT_BYTES = 1 << 20

interface Sent {
  docName: string
  update: Uint8Array
}

export interface OwnUpdates {
  /** The client sent `update` on `docName`. */
  sent(docName: string, update: Uint8Array): void
  /** True (and forgotten) when the client sent exactly `update` on `docName`: drop it. */
  isEcho(docName: string, update: Uint8Array): boolean
  /** `docName`'s connection closed or starts again: nothing of it is an echo any more. */
  forget(docName: string): void
}

export function createOwnUpdates(): OwnUpdates {
  const kept: Sent[] = []
  let bytes = 0

  const remove = (at: number) => {
    bytes -= kept[at]!.update.byteLength
    kept.splice(at, 1)
  }

  return {
    sent(docName, update) {
      if (update.byteLength > MAX_UPDATE_BYTES) return
      kept.push({ docName, update: update.slice() })
      bytes += update.byteLength
      while (kept.length > MAX_KEPT || bytes > MAX_KEPT_BYTES) remove(0)
    },
    isEcho(docName, update) {
      for (let at = 0; at < kept.length; at++) {
        const sent = kept[at]!
        if (sent.docName === docName && sameBytes(sent.update, update)) {
          remove(at)
          return true
        }
      }
      return false
    },
    forget(docName) {
      for (let at = kept.length - 1; at >= 0; at--) if (kept[at]!.docName === docName) remove(at)
    },
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(
    Buffer.from(b.buffer, b.byteOffset, b.byteLength),
  )
}
