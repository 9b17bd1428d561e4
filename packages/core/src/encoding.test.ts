import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fromBytes, getEncoding, toBytes, utf8Length } from './encoding.js'

describe('encoding', () => {
  it('utf8Length equals the encoded length for any string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(utf8Length(s)).toBe(new TextEncoder().encode(s).byteLength)
      }),
      { numRuns: 500 },
    )
  })
  it('round trips bytes through every byte encoding', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        for (const enc of ['base64', 'hex', 'binary', 'latin1'] as const) {
          expect(toBytes(fromBytes(bytes, enc), enc)).toEqual(bytes)
        }
      }),
    )
  })
  it('reads the encoding from options or a string', () => {
    expect(getEncoding()).toBe('utf8')
    expect(getEncoding('hex')).toBe('hex')
    expect(getEncoding({ encoding: 'base64' })).toBe('base64')
    expect(fromBytes(new Uint8Array([104, 105]), 'utf8')).toBe('hi')
  })
})
