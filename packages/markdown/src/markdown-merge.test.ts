import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { markdownBlocks, mergeMarkdown } from './markdown-merge.js'

const doc = `---
status: draft
title: Plan
---

# Plan

First paragraph
wraps over two lines.

- item one
- item two
  - nested

| a | b |
|---|---|
| 1 | 2 |
| 3 | 4 |

\`\`\`ts
const x = 1

const y = 2
\`\`\`

> quoted one
>
> quoted two

Last paragraph.
`

describe('markdownBlocks', () => {
  it('splits paragraphs, headings, list items, table rows and whole code blocks, and joins back', () => {
    const body = doc.slice(doc.indexOf('# Plan'))
    const blocks = markdownBlocks(body)
    expect(blocks.join('')).toBe(body)
    expect(blocks).toContain('- item one\n')
    expect(blocks).toContain('  - nested\n')
    expect(blocks).toContain('| 3 | 4 |\n')
    expect(blocks).toContain('```ts\nconst x = 1\n\nconst y = 2\n```\n')
    expect(blocks).toContain('First paragraph\nwraps over two lines.\n')
  })

  it('joins back to any text', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', ' ', '\n', '-', '#', '|', '`', '>', '*', '1.') }),
        (t) => {
          expect(markdownBlocks(t).join('')).toBe(t)
        },
      ),
      { seed: 4242, numRuns: 500 },
    )
  })
})

describe('mergeMarkdown', () => {
  it('keeps edits of different blocks: adjacent list items and table rows', () => {
    const ours = doc.replace('- item one', '- item one (agent)').replace('| 1 | 2 |', '| 1 | 2 (agent) |')
    const theirs = doc.replace('- item two', '- item two (person)').replace('| 3 | 4 |', '| 3 | 4 (person) |')
    const r = mergeMarkdown(doc, ours, theirs)
    expect(r.conflicts).toEqual([])
    expect(r.text).toBe(
      doc
        .replace('- item one', '- item one (agent)')
        .replace('| 1 | 2 |', '| 1 | 2 (agent) |')
        .replace('- item two', '- item two (person)')
        .replace('| 3 | 4 |', '| 3 | 4 (person) |'),
    )
  })

  it('merges front matter key by key and reports a key both changed', () => {
    const ours = doc.replace('status: draft', 'status: done').replace('title: Plan', 'title: Agent plan')
    const theirs = doc
      .replace('title: Plan', 'title: Person plan')
      .replace('status: draft', 'owner: ana\nstatus: draft')
    const r = mergeMarkdown(doc, ours, theirs)
    expect(r.text.startsWith('---\nowner: ana\nstatus: done\ntitle: Agent plan\n---\n')).toBe(true)
    expect(r.conflicts).toEqual([{ lines: { start: 4, count: 1 }, theirs: { start: 4, count: 1 } }])
  })

  it('takes their front matter as written when ours left it alone: an empty block they removed stays removed', () => {
    // Found by the codec contract (random seed in CI): both blocks hold no keys, so comparing
    // keys alone kept our empty block.
    const base = '---\n\n---\n'
    expect(mergeMarkdown(base, base, '    alpha\n').text).toBe('    alpha\n')
    expect(mergeMarkdown(base, '    alpha\n', base).text).toBe('    alpha\n')
    const reformatted = '---\ntitle:   Plan\n---\nText.\n'
    expect(
      mergeMarkdown('---\ntitle: Plan\n---\nText.\n', '---\ntitle: Plan\n---\nText.\n', reformatted).text,
    ).toBe(reformatted)
  })

  it('gives the writer a paragraph both changed and reports its lines (after the front matter)', () => {
    const ours = doc.replace('Last paragraph.', 'Last paragraph, agent.')
    const theirs = doc.replace('Last paragraph.', 'Last paragraph, person.')
    const r = mergeMarkdown(doc, ours, theirs)
    expect(r.text).toBe(ours)
    const line = ours.split('\n').indexOf('Last paragraph, agent.') + 1
    expect(r.conflicts).toEqual([{ lines: { start: line, count: 1 }, theirs: { start: line, count: 1 } }])
  })
})
