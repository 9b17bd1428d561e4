/**
 * ConnectError: the server refused or did not answer. `reason` is the
 * server's refusal reason (`missing token`, `invalid token`, `token not valid
 * for this workspace`, `no such file in workspace`, …) or `timeout`.
 */
export class ConnectError extends Error {
  readonly reason: string
  readonly document: string
  constructor(reason: string, document: string) {
    super(`EACCES: ${reason}, open '${document}'`)
    this.name = 'ConnectError'
    this.reason = reason
    this.document = document
  }
}
