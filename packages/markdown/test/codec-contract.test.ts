// The ContentCodec contract (@yfs/core/testing) on the Markdown codec, over random documents built
// from the schema's constructs (which it stores byte-exact; see property.test.ts).
import { codecContract } from '@yfs/core/testing'
import { describe, it } from 'vitest'
import { markdownCodec } from '../src/index.js'
import { markdownDocument } from './markdown-arbitrary.js'

describe('ContentCodec contract: markdown', () => {
  for (const c of codecContract(markdownCodec, markdownDocument, 60)) it(c.name, () => c.run(), 120_000)
})
