// Learning test for the private field @yfs/markdown reads from markdown-it: `Ruler.__rules__`
// (internals/markdown-it.ts). It fails when markdown-it moves its rules or changes what the
// `reference` rule does, naming the field.
import MarkdownIt from 'markdown-it'
import { describe, expect, it } from 'vitest'
import { blockRuleOf } from './markdown-it.js'

describe('markdown-it internals used by @yfs/markdown', () => {
  it('keeps block rules in Ruler.__rules__, with a `reference` rule that reads a definition', () => {
    const md = MarkdownIt('commonmark')
    expect(Array.isArray((md.block.ruler as unknown as { __rules__: unknown }).__rules__)).toBe(true)
    const reference = blockRuleOf(md, 'reference')
    // The rule recognises a link reference definition (and nothing else) and consumes its lines.
    let seen = 0
    md.block.ruler.at('reference', (state, start, end, silent) => {
      const ok = reference(state, start, end, silent)
      if (ok && !silent) seen++
      return ok
    })
    const env: { references?: Record<string, { href: string }> } = {}
    md.parse('[yfs]: https://example.com "title"\n\nA paragraph with [yfs].\n', env)
    expect(seen).toBe(1)
    expect(env.references?.YFS?.href).toBe('https://example.com')
  })

  it('refuses a rule name markdown-it does not have', () => {
    expect(() => blockRuleOf(MarkdownIt('commonmark'), 'no-such-rule')).toThrow(TypeError)
  })
})
