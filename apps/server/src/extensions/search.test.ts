/** The search message's bounds: reply size, searches in flight, ENOSYS without an index, read-only. */
import type { onStatelessPayload } from '@hocuspocus/server'
import { SearchError, type SearchResult } from '@yfs/core'
import { decodeSearchMessage, encodeSearchMessage, type SearchMessage } from '@yfs/protocol'
import { describe, expect, it } from 'vitest'
import { silentLogger } from '../logger.js'
import type { ServerSearch } from '../search/server-search.js'
import { createSearchExtension } from './search.js'

const hit = (k: number) => ({
  path: `/f${k}.md`,
  pathMatch: false,
  wordMatch: true,
  matchingLines: 1,
  density: 1,
  matches: [{ line: 1, column: 1, length: 3, snippet: 'x'.repeat(150), mark: [0, 3] as [number, number] }],
})

function harness(search: ServerSearch | undefined, limits = {}) {
  const ext = createSearchExtension({
    search,
    logger: silentLogger,
    limits: { maxSearchRequestBytes: 4096, maxSearchReplyBytes: 4096, maxSearchesInFlight: 1, ...limits },
  })
  const sent: SearchMessage[] = []
  const connection = {
    readOnly: true,
    webSocket: {},
    sendStateless: (p: string) => sent.push(decodeSearchMessage(p)!),
  }
  const ask = (request: object, documentName = 'ws', req = 7) =>
    ext.onStateless!({
      connection,
      documentName,
      payload: encodeSearchMessage({ op: 'search', req, request: request as never }),
    } as unknown as onStatelessPayload)
  return { sent, ask }
}

const fakeSearch = (impl: ServerSearch['search']): ServerSearch => ({
  search: impl,
  noteChange: () => undefined,
  refresh: async () => undefined,
  close: () => undefined,
})

describe('search extension', () => {
  it('keeps a reply under maxSearchReplyBytes by leaving hits to the next page (read token)', async () => {
    const result: SearchResult = {
      hits: Array.from({ length: 100 }, (_, k) => hit(k)),
      total: 500,
      offset: 0,
    }
    const { sent, ask } = harness(fakeSearch(async () => result))
    await ask({ query: 'x' })
    const reply = sent[0]!
    expect('result' in reply).toBe(true)
    const page = (reply as { result: SearchResult }).result
    expect(encodeSearchMessage(reply).length).toBeLessThanOrEqual(4096)
    expect(page.hits.length).toBeGreaterThan(0)
    expect(page.hits.length).toBeLessThan(100)
    expect(page.nextOffset).toBe(page.hits.length)
    expect(page.total).toBe(500)
  })

  it('answers EBUSY past the searches in flight, ENOSYS without an index, EINVAL with the position', async () => {
    let release!: () => void
    const slow = fakeSearch(
      () =>
        new Promise<SearchResult>((resolve) => {
          release = () => resolve({ hits: [], total: 0, offset: 0 })
        }),
    )
    const busy = harness(slow)
    const first = busy.ask({ query: 'a' }, 'ws', 1)
    await busy.ask({ query: 'b' }, 'ws', 2)
    expect(busy.sent[0]).toMatchObject({ req: 2, error: { code: 'EBUSY' } })
    release()
    await first
    expect(busy.sent[1]).toMatchObject({ req: 1, result: { total: 0 } })

    const none = harness(undefined)
    await none.ask({ query: 'a' })
    expect(none.sent[0]).toMatchObject({ error: { code: 'ENOSYS' } })

    const bad = harness(
      fakeSearch(async () => {
        throw new SearchError('invalid regular expression: missing closing ) at position 1', 1)
      }),
    )
    await bad.ask({ query: 'a(', regex: true })
    expect(bad.sent[0]).toMatchObject({ error: { code: 'EINVAL', position: 1 } })
    await bad.ask({ query: 'a' }, 'ws/file1')
    expect(bad.sent[1]).toMatchObject({
      error: { code: 'EINVAL', message: 'search messages go to the main doc' },
    })
  })

  it('ignores requests over maxSearchRequestBytes', async () => {
    const { sent, ask } = harness(fakeSearch(async () => ({ hits: [], total: 0, offset: 0 })))
    await ask({ query: 'q'.repeat(5000) })
    expect(sent).toEqual([])
  })
})
