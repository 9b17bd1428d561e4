/**
 * Search messages (format v1): a search answered by the server's index, over
 * the main doc's connection as Hocuspocus stateless messages (JSON text).
 * The server imports these too, so both sides agree by construction.
 *
 *   client → server  { v: 'yfs.search.1', op: 'search', req, request: SearchRequest }
 *   server → client  { v: 'yfs.search.1', op: 'result', req, result: SearchResult }
 *                  | { v: 'yfs.search.1', op: 'result', req, error: { code, message, position? } }
 *
 * `code` is `EINVAL` for a bad request (core's SearchError, with the regex
 * error's `position`), `ENOSYS` when the server has no search index (SQLite:
 * the client searches in process), `EBUSY` when the connection has too many
 * searches running, `EIO` otherwise. `req` is chosen at random by the client
 * and a reply is taken only for a request it sent.
 */
import type { SearchRequest, SearchResult } from '@yfs/core'

export const SEARCH_VERSION = 'yfs.search.1'

export interface SearchFailure {
  code: 'EINVAL' | 'ENOSYS' | 'EBUSY' | 'EIO'
  message: string
  position?: number
}

export type SearchMessage =
  | { op: 'search'; req: number; request: SearchRequest }
  | { op: 'result'; req: number; result: SearchResult }
  | { op: 'result'; req: number; error: SearchFailure }

/** JSON text of a search message. */
export function encodeSearchMessage(message: SearchMessage): string {
  return JSON.stringify({ v: SEARCH_VERSION, ...message })
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null

/**
 * The search message in `payload`; `undefined` for any other (or malformed) stateless payload.
 * Only the envelope is checked here: the server checks a request's fields (core `prepareSearch`).
 */
export function decodeSearchMessage(payload: string): SearchMessage | undefined {
  // Every stateless message of the main doc reaches every decoder: one that does not name this
  // version literally is not ours, and parsing it (a bulk reply of megabytes of states) costs
  // as much as its own decoder's parse, for nothing.
  if (!payload.includes(SEARCH_VERSION)) return undefined
  let wire: unknown
  try {
    wire = JSON.parse(payload)
  } catch {
    // Not JSON: some other stateless message, not ours.
    return undefined
  }
  if (!isObject(wire) || wire.v !== SEARCH_VERSION) return undefined
  const { op, req } = wire
  if (typeof req !== 'number' || !Number.isSafeInteger(req)) return undefined
  if (op === 'search' && isObject(wire.request))
    return { op, req, request: wire.request as unknown as SearchRequest }
  if (op === 'result' && isObject(wire.result))
    return { op, req, result: wire.result as unknown as SearchResult }
  if (op === 'result' && isObject(wire.error) && typeof wire.error.message === 'string')
    return { op, req, error: wire.error as unknown as SearchFailure }
  return undefined
}
