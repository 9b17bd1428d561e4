// The wire contract both sides rely on: every message survives encode → decode unchanged, and
// anything else a peer can send (other JSON, broken base64, wrong shapes) decodes to `undefined`.
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import {
  type BulkMessage,
  decodeBulkMessage,
  encodeBulkMessage,
  isBase64,
  isPackedBulkMessage,
} from './bulk-messages.js'
import { decodeSearchMessage, encodeSearchMessage, type SearchMessage } from './search-messages.js'

const req = fc.integer({ min: 0, max: 2 ** 48 })
const id = fc.string({ minLength: 1, maxLength: 21 })
const bytes = fc.uint8Array({ maxLength: 64 })
const head = fc.option(fc.string({ maxLength: 12 }), { nil: null })
/** `record` with `heads` of `key`, one per element of `of`'s array (or none). */
function withHeads<T extends object>(
  record: fc.Arbitrary<T>,
  key: 'since' | 'heads' | 'bases',
  length: (m: T) => number | undefined,
): fc.Arbitrary<T> {
  return record.chain((m) => {
    const n = length(m)
    if (n === undefined) return fc.constant(m)
    return fc
      .option(fc.array(head, { minLength: n, maxLength: n }), { nil: undefined })
      .map((h) => (h === undefined ? m : { ...m, [key]: h }))
  })
}

const bulkMessage: fc.Arbitrary<BulkMessage> = fc.oneof(
  withHeads(
    fc.record({ op: fc.constant('load' as const), req, ids: fc.array(id) }),
    'since',
    (m) => m.ids.length,
  ),
  withHeads(
    fc.record(
      {
        op: fc.constant('loaded' as const),
        req,
        docs: fc.array(
          fc.oneof(
            fc.tuple(id, fc.option(bytes, { nil: null })),
            fc.tuple(id, fc.constant(null), fc.string()),
          ) as fc.Arbitrary<[string, Uint8Array | null, string?]>,
        ),
        error: fc.string(),
        readsPacked: fc.constant(true as const),
      },
      { requiredKeys: ['op', 'req', 'docs'] },
    ),
    'heads',
    (m) => m.docs.length,
  ),
  fc.record({ op: fc.constant('store' as const), req, docs: fc.array(fc.tuple(id, bytes)) }),
  fc.record(
    {
      op: fc.constant('stored' as const),
      req,
      heads: fc.array(head),
      error: fc.string(),
      readsPacked: fc.constant(true as const),
    },
    { requiredKeys: ['op', 'req'] },
  ),
  withHeads(
    fc.record({ op: fc.constant('update' as const), req, docs: fc.array(fc.tuple(id, bytes)) }),
    'bases',
    (m) => m.docs.length,
  ),
  fc.record(
    {
      op: fc.constant('updated' as const),
      req,
      heads: fc.array(head),
      error: fc.string(),
      readsPacked: fc.constant(true as const),
    },
    { requiredKeys: ['op', 'req'] },
  ),
)

const searchMessage: fc.Arbitrary<SearchMessage> = fc.oneof(
  fc.record({
    op: fc.constant('search' as const),
    req,
    request: fc.record({ query: fc.string(), regex: fc.boolean(), limit: fc.nat(1000) }),
  }) as fc.Arbitrary<SearchMessage>,
  fc.record({
    op: fc.constant('result' as const),
    req,
    error: fc.record(
      { code: fc.constantFrom('EINVAL', 'ENOSYS', 'EBUSY', 'EIO'), message: fc.string(), position: fc.nat() },
      { requiredKeys: ['code', 'message'] },
    ),
  }) as fc.Arbitrary<SearchMessage>,
)

describe('bulk messages', () => {
  it('round-trip unchanged, packed or not', () => {
    fc.assert(
      fc.property(bulkMessage, fc.boolean(), (m, packed) => {
        const payload = encodeBulkMessage(m, packed)
        expect(isPackedBulkMessage(payload)).toBe(packed)
        expect(decodeBulkMessage(payload)).toEqual(m)
      }),
    )
  })

  it('packed: a body that is not padded base64 of exactly the lengths the head gives decodes to undefined', () => {
    const good = encodeBulkMessage(
      { op: 'store', req: 1, docs: [['a', Uint8Array.from([1, 2, 3, 4])]] },
      true,
    )
    expect(decodeBulkMessage(good)).toEqual({
      op: 'store',
      req: 1,
      docs: [['a', Uint8Array.from([1, 2, 3, 4])]],
    })
    const [head, body] = good.split('\n') as [string, string]
    for (const bad of [
      `${head}\n${body.slice(0, -4)}`, // shorter
      `${head}\n${body}AAAA`, // longer
      `${head}\n${body.slice(0, 2)}%${body.slice(3)}`, // a character outside the alphabet
      `${head}\n${body.slice(0, 2)}-${body.slice(3)}`, // base64url
      `${head}\n ${body.slice(1)}`, // a space
      `${head}\n${body.replace(/=+$/, '')}`, // unpadded
      `${head}\n==${body.slice(2)}`, // padding first
      head, // no body at all
      head.replace('[["a",4]]', '[["a",-4]]') + `\n${body}`,
      head.replace('[["a",4]]', '[["a",null]]') + `\n`, // a store's doc without bytes
      head.replace('[["a",4]]', '[["a","AQIDBA=="]]') + `\n`, // v1's field in a packed head
    ])
      expect(decodeBulkMessage(bad), bad).toBeUndefined()
    // A v1 head with a body is not v1.
    expect(
      decodeBulkMessage(encodeBulkMessage({ op: 'load', req: 1, ids: ['a'] }) + '\nAAAA'),
    ).toBeUndefined()
  })

  it('decode anything else to undefined, never throwing', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (payload) => {
        const m = decodeBulkMessage(payload)
        // Only a payload that carries our version tag can be a message.
        if (m !== undefined) expect(payload).toMatch(/yfs\.bulk\.[12]/)
      }),
    )
    for (const payload of [
      '{"v":"yfs.bulk.1","op":"store","req":1,"docs":[["a","%%%"]]}',
      '{"v":"yfs.bulk.1","op":"update","req":1,"docs":[["a","%%%"]]}',
      '{"v":"yfs.bulk.1","op":"update","req":1}',
      '{"v":"yfs.bulk.1","op":"load","req":1.5,"ids":[]}',
      '{"v":"yfs.bulk.1","op":"load","req":1,"ids":[1]}',
      '{"v":"yfs.bulk.1","op":"loaded","req":1,"docs":[[1,null]]}',
      // Heads of another length than the ids or docs, or not strings.
      '{"v":"yfs.bulk.1","op":"load","req":1,"ids":["a"],"since":[]}',
      '{"v":"yfs.bulk.1","op":"load","req":1,"ids":["a"],"since":[1]}',
      '{"v":"yfs.bulk.1","op":"loaded","req":1,"docs":[["a",null]],"heads":["1","2"]}',
      '{"v":"yfs.bulk.1","op":"update","req":1,"docs":[["a","AA=="]],"bases":"1"}',
      '{"v":"yfs.bulk.1","op":"updated","req":1,"heads":[{}]}',
      '{"v":"yfs.bulk.3","op":"load","req":1,"ids":[]}',
      // Packed without the newline that ends its head.
      '{"v":"yfs.bulk.2","op":"load","req":1,"ids":[]}',
      'null',
    ])
      expect(decodeBulkMessage(payload), payload).toBeUndefined()
  })
})

describe('base64 check', () => {
  // The expression the check replaced (slow on megabytes, the same answers).
  const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
  const chars = fc.constantFrom(...'AZaz09+/==%-_ \né'.split(''))
  it('accepts exactly what the regular expression accepts', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: chars }),
          fc.uint8Array().map((b) => Buffer.from(b).toString('base64')),
        ),
        (s) => {
          expect(isBase64(s)).toBe(BASE64.test(s))
        },
      ),
      { numRuns: 2000 },
    )
    for (const s of ['', 'AA==', 'AAA=', 'AAAA', '====', 'A===', 'AA=A', 'AAAAA', 'AA==AAAA', '%%%%'])
      expect(isBase64(s), s).toBe(BASE64.test(s))
  })
})

describe('search messages', () => {
  it('round-trip unchanged', () => {
    fc.assert(
      fc.property(searchMessage, (m) => {
        expect(decodeSearchMessage(encodeSearchMessage(m))).toEqual(m)
      }),
    )
  })

  it('refuse other versions, bad request ids and shapeless bodies', () => {
    for (const payload of [
      '{"v":"yfs.search.2","op":"search","req":1,"request":{}}',
      '{"v":"yfs.search.1","op":"search","req":"1","request":{}}',
      '{"v":"yfs.search.1","op":"search","req":1,"request":"q"}',
      '{"v":"yfs.search.1","op":"result","req":1,"error":{"code":"EIO"}}',
      '{"v":"yfs.bulk.1","op":"load","req":1,"ids":[]}',
      'not json',
    ])
      expect(decodeSearchMessage(payload), payload).toBeUndefined()
  })
})

describe('stateless messages of another channel', () => {
  it('are not parsed: a payload that does not name the version is refused before JSON.parse', () => {
    const states = encodeBulkMessage({ op: 'loaded', req: 1, docs: [['a', new Uint8Array(4096).fill(7)]] })
    const search = encodeSearchMessage({
      op: 'search',
      req: 2,
      request: { query: 'x', regex: false, limit: 10 },
    } as SearchMessage)
    const parse = vi.spyOn(JSON, 'parse')
    try {
      expect(decodeSearchMessage(states)).toBeUndefined()
      expect(decodeBulkMessage(search)).toBeUndefined()
      expect(parse).not.toHaveBeenCalled()
      // Their own decoders still parse them.
      expect(decodeBulkMessage(states)?.op).toBe('loaded')
      expect(decodeSearchMessage(search)?.op).toBe('search')
      expect(parse).toHaveBeenCalledTimes(2)
    } finally {
      parse.mockRestore()
    }
  })
})
