// The ContentCodec contract (@yfs/core/testing) on the text codec and on binary storage; the
// Markdown codec runs it in packages/markdown/test/codec-contract.test.ts.
import fc from 'fast-check'
import { describe, it } from 'vitest'
import { textCodec } from '../src/index.js'
import { binaryAsCodec, codecContract, latin1Texts } from '../src/testing/index.js'

// Text with lines, unicode (astral included) and the odd carriage return.
const texts = fc
  .array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.constantFrom('\n', '\r\n', 'line\n')), {
    maxLength: 12,
  })
  .map((parts) => parts.join(''))

describe('ContentCodec contract: text', () => {
  for (const c of codecContract(textCodec, texts)) it(c.name, () => c.run())
})

describe('ContentCodec contract: binary storage', () => {
  for (const c of codecContract(binaryAsCodec, latin1Texts)) it(c.name, () => c.run())
})
