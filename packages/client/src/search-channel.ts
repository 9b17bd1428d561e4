/**
 * The search of a connected workspace: requests answered by the server's
 * index (PostgreSQL: apps/server extensions/search.ts) over the main doc's
 * provider, or by the filesystem's in-process index when the server has
 * none (SQLite deployments answer `ENOSYS`) — decided once, on the first
 * search. The server searches what it has stored: `flush()` first to search
 * one's own unacknowledged changes.
 *
 * Replies are taken only for pending random request ids (as bulk-channel.ts).
 */
import type { HocuspocusProvider } from '@hocuspocus/provider'
import {
  SearchError,
  type Searcher,
  type SearchRequest,
  type SearchResult,
  searchIndexOf,
  type YjsFileSystem,
} from '@yfs/core'
import { decodeSearchMessage, encodeSearchMessage, type SearchFailure } from '@yfs/protocol'
import { ConnectError } from './connect-error.js'

/** How long a search may take (the first one on a big workspace waits for the server to index it). */
export const SEARCH_TIMEOUT_MS = 120_000

export interface SearchChannel extends Searcher {
  /** `'server'`, `'local'` (in-process), or `undefined` before the first search. */
  readonly backend: 'server' | 'local' | undefined
  destroy(): void
}

function randomReq(): number {
  const [high, low] = crypto.getRandomValues(new Uint32Array(2))
  return (high! & 0xffff) * 2 ** 32 + low!
}

export function createSearchChannel(
  main: HocuspocusProvider,
  fs: YjsFileSystem,
  timeoutMs: number,
): SearchChannel {
  const name = main.configuration.name
  const pending = new Map<number, (reply: { result?: SearchResult; error?: SearchFailure }) => void>()
  let backend: 'server' | 'local' | undefined

  const onStateless = ({ payload }: { payload: string }) => {
    const message = decodeSearchMessage(payload)
    if (message?.op !== 'result') return
    const waiter = pending.get(message.req)
    if (!waiter) return
    pending.delete(message.req)
    waiter('result' in message ? { result: message.result } : { error: message.error })
  }
  main.on('stateless', onStateless)

  const ask = (request: SearchRequest) =>
    new Promise<{ result?: SearchResult; error?: SearchFailure }>((resolve, reject) => {
      if (!main.isSynced) {
        reject(new ConnectError('offline', name))
        return
      }
      let req = randomReq()
      while (pending.has(req)) req = randomReq()
      const timer = setTimeout(() => {
        pending.delete(req)
        reject(new ConnectError('timeout', name))
      }, timeoutMs)
      pending.set(req, (reply) => {
        clearTimeout(timer)
        resolve(reply)
      })
      main.sendStateless(encodeSearchMessage({ op: 'search', req, request }))
    })

  return {
    get backend() {
      return backend
    },
    async search(request) {
      if (backend === 'local') return searchIndexOf(fs).search(request)
      const reply = await ask(request)
      if (reply.error?.code === 'ENOSYS') {
        backend = 'local'
        return searchIndexOf(fs).search(request)
      }
      backend = 'server'
      if (reply.error?.code === 'EINVAL') throw new SearchError(reply.error.message, reply.error.position)
      if (reply.error) throw new ConnectError(`search failed: ${reply.error.message}`, name)
      return reply.result!
    },
    destroy() {
      main.off('stateless', onStateless)
      pending.clear()
    },
  }
}
