/** A tool-level failure that is not a filesystem errno: a bad path URL, a stale version, a patch that does not apply. */
export class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly path?: string,
    readonly hint?: string,
  ) {
    super(message)
    this.name = 'ToolError'
  }
}
