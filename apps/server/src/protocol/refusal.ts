/**
 * Refusals of hostile or oversized client messages, with the WebSocket close
 * codes the server uses for them. A refusal closes only the offending socket
 * (or drops the message); its `reason` is short, fixed text, never a copy of
 * what the client sent, so logs and close frames stay bounded.
 *
 *   4400  malformed or invalid (bad framing, invalid update, bad awareness)
 *   4401  not authenticated in time
 *   4403  not allowed (broadcast messages)
 *   4413  too large (token, document name, awareness state)
 *   4429  too many (frames or bytes before authentication, documents, refusals, presence ids)
 */

export const CLOSE_MALFORMED = 4400
export const CLOSE_UNAUTHENTICATED = 4401
export const CLOSE_FORBIDDEN = 4403
export const CLOSE_TOO_LARGE = 4413
export const CLOSE_TOO_MANY = 4429

export type RefusalCode =
  | typeof CLOSE_MALFORMED
  | typeof CLOSE_UNAUTHENTICATED
  | typeof CLOSE_FORBIDDEN
  | typeof CLOSE_TOO_LARGE
  | typeof CLOSE_TOO_MANY

/** A message the server will not take: close the socket with `code` and `reason`. */
export class Refusal extends Error {
  constructor(
    readonly code: RefusalCode,
    readonly reason: string,
  ) {
    super(reason)
    this.name = 'Refusal'
  }
}
