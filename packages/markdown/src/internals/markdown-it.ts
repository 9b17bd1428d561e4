/**
 * The one place @yfs/markdown reads a private field of markdown-it (14.3.3,
 * pinned): a block rule's function, to wrap it. markdown-it's `Ruler` keeps its
 * rules in `__rules__` and has no public getter; `ruler.at(name, fn)` replaces
 * a rule but does not hand back the one it replaces. The learning test beside
 * this file (`markdown-it.test.ts`) fails when markdown-it stops keeping rules
 * there, or when the rule stops behaving as the wrapper expects.
 */
import type MarkdownIt from 'markdown-it'
import type StateBlock from 'markdown-it/lib/rules_block/state_block.mjs'

/** A markdown-it block rule. */
export type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean

/** The function of the block rule `name` of `md`. Throws TypeError when there is none. */
export function blockRuleOf(md: MarkdownIt, name: string): BlockRule {
  // Private: markdown-it keeps a Ruler's rules in `__rules__` (see the module comment).
  const rules = (md.block.ruler as unknown as { __rules__?: { name: string; fn: BlockRule }[] }).__rules__
  const rule = rules?.find((r) => r.name === name)
  if (!rule) throw new TypeError(`markdown-it has no block rule ${name}`)
  return rule.fn
}
