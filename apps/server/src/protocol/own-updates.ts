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
 * What is kept of an update is its document, its length and its SHA-256, not
 * its bytes: so updates of any size are kept (a batch's rows, 90 KB for 1,000
 * new files and 9 MB for 100,000, were the costliest echoes of all), in ~100
 * bytes each. A digest is computed for each update the client sends and, for a
 * frame back to it, only when a kept update of that document has its length. A
 * digest that matched by chance would drop a frame this client lacks; SHA-256
 * makes that impossible in practice, and only the client's own updates are
 * kept, so nobody can make another client's frames match.
 *
 * Bounded: at most `MAX_KEPT` updates are kept, oldest dropped first (an
 * update applied as a no-op is never sent back).
 */
import { createHash } from 'node:crypto'

const MAX_KEPT = 256

interface Sent {
  docName: string
  size: number
  digest: string
}

export interface OwnUpdates {
  /** The client sent `update` on `docName`. */
  sent(docName: string, update: Uint8Array): void
  /** True (and forgotten) when the client sent exactly `update` on `docName`: drop it. */
  isEcho(docName: string, update: Uint8Array): boolean
  /** `docName`'s connection closed or starts again: nothing of it is an echo any more. */
  forget(docName: string): void
}

const digestOf = (update: Uint8Array): string => createHash('sha256').update(update).digest('base64')

export function createOwnUpdates(): OwnUpdates {
  const kept: Sent[] = []

  return {
    sent(docName, update) {
      kept.push({ docName, size: update.byteLength, digest: digestOf(update) })
      if (kept.length > MAX_KEPT) kept.shift()
    },
    isEcho(docName, update) {
      let digest: string | undefined
      for (let at = 0; at < kept.length; at++) {
        const sent = kept[at]!
        if (sent.docName !== docName || sent.size !== update.byteLength) continue
        digest ??= digestOf(update)
        if (sent.digest === digest) {
          kept.splice(at, 1)
          return true
        }
      }
      return false
    },
    forget(docName) {
      for (let at = kept.length - 1; at >= 0; at--) if (kept[at]!.docName === docName) kept.splice(at, 1)
    },
  }
}
