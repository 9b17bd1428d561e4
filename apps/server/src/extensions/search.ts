/**
 * Search extension: answers the search messages of @yfs/client
 * (search-messages.ts) that arrive as stateless messages on a workspace's
 * main doc connection, from the server's plaintext index
 * (search/server-search.ts), and tells the index when a loaded content doc
 * changes. Search is a read: read tokens may search. Authentication is the
 * main doc connection's own: its token was checked for this workspace.
 *
 * Bounds (any reader can send these): a request over `maxSearchRequestBytes`
 * is ignored; core's `prepareSearch` refuses a query over 1,000 characters,
 * more than 32 globs, and caps `limit` (200) and matches per hit (20), so a
 * query that matches everything is answered one bounded page at a time; a
 * reply over `maxSearchReplyBytes` drops hits from its end (the next page
 * starts there); a connection with `maxSearchesInFlight` searches running
 * is answered `EBUSY`. Without an index (SQLite) the answer is `ENOSYS`, and
 * the client searches in process. Nothing escapes the hook: every failure is
 * an error reply.
 */
import type { Extension, onChangePayload, onStatelessPayload } from '@hocuspocus/server'
import { isSearchError, type SearchResult } from '@yfs/core'
import {
  decodeSearchMessage,
  encodeSearchMessage,
  parseDocName,
  type SearchFailure,
  type SearchMessage,
} from '@yfs/protocol'
import type { Logger } from '../logger.js'
import type { ServerLimits } from '../protocol/limits.js'
import type { ServerSearch } from '../search/server-search.js'

export interface SearchExtensionOptions {
  /** Undefined when the store has no search index (SQLite). */
  search: ServerSearch | undefined
  logger: Logger
  limits: Pick<ServerLimits, 'maxSearchRequestBytes' | 'maxSearchReplyBytes' | 'maxSearchesInFlight'>
}

/** A reply within `maxBytes`: hits dropped from the end (the next page starts at the first one dropped). */
function bounded(req: number, result: SearchResult, maxBytes: number): string {
  let hits = result.hits
  for (;;) {
    const next = result.offset + hits.length
    const page: SearchResult = {
      hits,
      total: result.total,
      offset: result.offset,
      ...(next < result.total ? { nextOffset: next } : {}),
    }
    const text = encodeSearchMessage({ op: 'result', req, result: page })
    if (Buffer.byteLength(text) <= maxBytes || hits.length === 0) return text
    hits = hits.slice(0, Math.floor(hits.length / 2))
  }
}

export function createSearchExtension(options: SearchExtensionOptions): Extension {
  const { search, logger, limits } = options
  const running = new WeakMap<object, number>()

  return {
    extensionName: 'yfs-search',

    async onChange({ documentName }: onChangePayload) {
      const doc = parseDocName(documentName)
      if (search && doc?.kind === 'content') search.noteChange(doc.workspace, doc.fileId)
    },

    async onStateless({ connection, documentName, payload }: onStatelessPayload) {
      // Bounded before it is parsed (the decoder refuses, unparsed, what is not a search message).
      if (Buffer.byteLength(payload) > limits.maxSearchRequestBytes) return
      const message = decodeSearchMessage(payload)
      if (message?.op !== 'search') return
      const fail = (error: SearchFailure) =>
        connection.sendStateless(encodeSearchMessage({ op: 'result', req: message.req, error }))
      const doc = parseDocName(documentName)
      if (doc?.kind !== 'main') return fail({ code: 'EINVAL', message: 'search messages go to the main doc' })
      if (!search) return fail({ code: 'ENOSYS', message: 'this server has no search index (SQLite)' })
      const key = connection.webSocket as object
      const count = running.get(key) ?? 0
      if (count >= limits.maxSearchesInFlight)
        return fail({ code: 'EBUSY', message: `more than ${limits.maxSearchesInFlight} searches at once` })
      running.set(key, count + 1)
      let reply: string
      try {
        const result = await search.search(
          doc.workspace,
          (message as Extract<SearchMessage, { op: 'search' }>).request,
        )
        reply = bounded(message.req, result, limits.maxSearchReplyBytes)
      } catch (error) {
        if (isSearchError(error))
          reply = encodeSearchMessage({
            op: 'result',
            req: message.req,
            error: {
              code: 'EINVAL',
              message: error.message,
              ...(error.position !== undefined ? { position: error.position } : {}),
            },
          })
        else {
          logger.error('search failed', { hook: 'onStateless', docNameBytes: documentName.length, error })
          reply = encodeSearchMessage({
            op: 'result',
            req: message.req,
            error: { code: 'EIO', message: 'internal error' },
          })
        }
      } finally {
        running.set(key, (running.get(key) ?? 1) - 1)
      }
      connection.sendStateless(reply)
    },
  }
}
