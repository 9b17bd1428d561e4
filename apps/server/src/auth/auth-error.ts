/**
 * AuthError: why a connection or document was refused. Hocuspocus sends
 * `reason` to the provider (`authenticationFailed`); the y-websocket path
 * puts it in the close frame. Reasons are short, stable strings clients can
 * branch on; they never contain token material.
 */
export type AuthReason =
  | 'missing token'
  | 'invalid token'
  | 'token not valid for this workspace'
  | 'invalid document name'
  | 'no such file in workspace'

export class AuthError extends Error {
  readonly reason: AuthReason
  constructor(reason: AuthReason, detail?: string) {
    super(detail ? `${reason}: ${detail}` : reason)
    this.name = 'AuthError'
    this.reason = reason
  }
}
