/**
 * The server process's last line of defence: a promise rejection nobody
 * handled is logged and the process keeps serving. Node's default is to
 * exit, which would let one client's message take every client down if any
 * handler (ours or a library's, e.g. a Hocuspocus hook it does not await)
 * let a rejection escape. Handlers are written not to; this catches what
 * slips through, and the log line says where to look.
 *
 * Uncaught synchronous exceptions are left to Node (the process exits):
 * after one, the state of the process is unknown.
 */
import type { Logger } from './logger.js'

/** Log unhandled rejections instead of exiting. Returns a function that removes the handler. */
export function containUnhandledRejections(logger: Logger): () => void {
  const onRejection = (reason: unknown) => {
    logger.error('unhandled rejection', {
      error: reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason).slice(0, 200),
    })
  }
  process.on('unhandledRejection', onRejection)
  return () => process.off('unhandledRejection', onRejection)
}
