/**
 * Three-way merge of Markdown for stale writes (the codec's `merge`, see
 * `ContentCodec.merge` in @yfs/core): the body merges block by block
 * (paragraphs, list items, headings, table rows, code blocks, …) and the
 * front matter key by key.
 *
 * It works on the serialised text, not on the ProseMirror tree, so it does
 * not depend on how the parser builds nodes: blocks are line ranges found by
 * a plain markdown-it block pass (each unit runs from one block start to the
 * next; the blank lines after a block are a unit of their own), then merged with core's `mergeText`. Front
 * matter is parsed as YAML; a key changed on one side takes that side's
 * value, a key both changed differently takes ours (a conflict).
 *
 * @example
 * mergeMarkdown('- a\n- b\n', '- A\n- b\n', '- a\n- B\n').text // '- A\n- B\n'
 */
import { type ConflictRegion, mergeText, splitLines, type TextMergeResult } from '@yfs/core'
import { equalityDeep } from 'lib0/function'
import MarkdownIt from 'markdown-it'
import { type FrontMatter, splitFrontMatter, stringifyFrontMatter } from './front-matter.js'

// Block structure only: no linkify or plugins needed to find where blocks start.
const blockParser = MarkdownIt('commonmark', { html: true }).enable(['table', 'strikethrough'])

// Tokens whose first line starts a merge unit.
const UNIT_STARTS = new Set([
  'heading_open',
  'paragraph_open',
  'list_item_open',
  'tr_open',
  'fence',
  'code_block',
  'hr',
  'html_block',
  'blockquote_open',
])

/** Markdown split into block units (join them to get the text back). */
export function markdownBlocks(text: string): string[] {
  const lines = splitLines(text)
  if (lines.length === 0) return []
  const starts = new Set<number>([0])
  for (const token of blockParser.parse(text, {}))
    if (token.map && UNIT_STARTS.has(token.type) && token.map[0] < lines.length) starts.add(token.map[0])
  const sorted = [...starts].sort((a, b) => a - b)
  const units: string[] = []
  sorted.forEach((start, i) => {
    const end = sorted[i + 1] ?? lines.length
    // Blank lines after a block are a unit of their own: deleting the last block must not change the one before it.
    let content = end
    while (content > start && lines[content - 1]!.trim() === '') content--
    if (content > start) units.push(lines.slice(start, content).join(''))
    if (content < end) units.push(lines.slice(content, end).join(''))
  })
  return units
}

/** Front matter text (the `---` block, as in `text`) and body. */
function split(text: string): { data: FrontMatter; front: string; body: string } {
  const { data, body } = splitFrontMatter(text)
  return { data, front: text.slice(0, text.length - body.length), body }
}

/** 1-based line of a top-level key in a front matter block (1 when not found). */
function keyLine(front: string, key: string): number {
  const lines = front.split('\n')
  const i = lines.findIndex(
    (l) => l.startsWith(`${key}:`) || l.startsWith(`"${key}":`) || l.startsWith(`'${key}':`),
  )
  return i < 0 ? 1 : i + 1
}

const lineCount = (text: string) => splitLines(text).length

/** Number of blank lines at the start or the end of `text`. */
function blankEdge(text: string, end: boolean): number {
  const lines = splitLines(text)
  let n = 0
  while (n < lines.length && lines[end ? lines.length - 1 - n : n]!.trim() === '') n++
  return n
}

/**
 * Drop blank lines at the start or end that neither side has: when both sides
 * delete neighbouring blocks, the blank line between them may be left over.
 */
function trimBlankEdges(text: string, sides: string[]): string {
  const lines = splitLines(text)
  if (lines.every((l) => l.trim() === '')) return sides.some((x) => x === text) ? text : ''
  const start = blankEdge(text, false) - Math.max(...sides.map((x) => blankEdge(x, false)))
  const end = blankEdge(text, true) - Math.max(...sides.map((x) => blankEdge(x, true)))
  return lines.slice(Math.max(0, start), lines.length - Math.max(0, end)).join('')
}

/** Merge Markdown texts: blocks for the body, keys for the front matter. */
export function mergeMarkdown(base: string, ours: string, theirs: string): TextMergeResult {
  const [b, o, t] = [split(base), split(ours), split(theirs)]
  const conflicts: ConflictRegion[] = []
  // Ours left the front matter as it was: theirs, as written (also when only its text changed,
  // e.g. an empty block removed: its keys are the same, `{}`).
  let front = o.front === b.front ? t.front : o.front
  const frontChanged = o.front !== b.front && !equalityDeep(b.data, t.data)
  const conflictKeys: string[] = []
  if (frontChanged) {
    const data: FrontMatter = {}
    const keys = [...new Set([...Object.keys(o.data), ...Object.keys(t.data), ...Object.keys(b.data)])]
    for (const key of keys.sort()) {
      const [bv, ov, tv] = [b.data[key], o.data[key], t.data[key]]
      let value = ov
      if (equalityDeep(ov, bv)) value = tv
      else if (!equalityDeep(tv, bv) && !equalityDeep(ov, tv)) conflictKeys.push(key)
      if (value !== undefined) data[key] = value
    }
    front = stringifyFrontMatter(data)
  }
  const body = mergeText(b.body, o.body, t.body, markdownBlocks)
  body.text = trimBlankEdges(body.text, [o.body, t.body])
  for (const key of conflictKeys)
    conflicts.push({
      lines: { start: keyLine(front, key), count: key in o.data ? 1 : 0 },
      theirs: { start: keyLine(t.front, key), count: key in t.data ? 1 : 0 },
    })
  const frontLines = lineCount(front)
  const theirFrontLines = lineCount(t.front)
  for (const c of body.conflicts)
    conflicts.push({
      lines: { start: c.lines.start + frontLines, count: c.lines.count },
      theirs: { start: c.theirs.start + theirFrontLines, count: c.theirs.count },
    })
  return { text: front + body.text, conflicts }
}
