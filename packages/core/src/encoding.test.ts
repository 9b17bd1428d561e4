import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fromBytes, getEncoding, toBytes, UTF8_LENGTH_CHUNK, utf8Length } from './encoding.js'

describe('encoding', () => {
  it('utf8Length equals the encoded length for any string, lone surrogates included', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        expect(utf8Length(s)).toBe(new TextEncoder().encode(s).byteLength)
      }),
      { numRuns: 500 },
    )
  })
  it('utf8Length equals the encoded length for long strings, surrogate pairs at the chunk edges', () => {
    const encoded = (s: string) => new TextEncoder().encode(s).byteLength
    fc.assert(
      fc.property(
        fc.integer({ min: UTF8_LENGTH_CHUNK - 8, max: UTF8_LENGTH_CHUNK + 8 }),
        fc.string({ unit: 'binary', maxLength: 24, size: 'max' }),
        (k, s) => {
          for (const text of [
            'a'.repeat(k) + s,
            `${'é'.repeat(k)}${s}😀${'😀'.repeat(k)}`,
            `${'x'.repeat(k - 1)}😀${s}\ud83d`,
          ])
            expect(utf8Length(text)).toBe(encoded(text))
        },
      ),
      { numRuns: 200 },
    )
    expect(utf8Length(`${'a'.repeat(UTF8_LENGTH_CHUNK - 1)}😀`)).toBe(UTF8_LENGTH_CHUNK - 1 + 4)
    expect(utf8Length(`${'a'.repeat(UTF8_LENGTH_CHUNK - 1)}\ud83d`)).toBe(UTF8_LENGTH_CHUNK - 1 + 3)
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
