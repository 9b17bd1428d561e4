/**
 * Apply a whole-file text write to a `Y.Text` as the smallest edit we can
 * find, so that a concurrent edit elsewhere in the file survives and the
 * history shows what really changed.
 *
 * Strategy: strip the common prefix and suffix (`diffStrings`, chunked compares);
 * if the changed middle is still large, or crosses a line end, widen it to
 * whole lines, diff it by lines with the `diff` package and apply each
 * changed line run as its own delete/insert. A line diff costs O(N·D) (N
 * lines, D lines changed): when most lines changed (`sed 's/a/b/'` over a
 * file with an `a` on every line) it took 0.15 s per 1,000-line file, so past
 * `LINE_DIFF_BUDGET` the changed middle is replaced whole (`lineDiff`).
 */
import { diffArrays } from 'diff'
import type * as Y from 'yjs'
import { diffStrings } from './common-affix.js'
import { splitLines } from './three-way-merge.js'

// Above this many characters in the changed middle, a line diff is worth its cost.
const LINE_DIFF_THRESHOLD = 256
// Line diffs are O(N·D); past this many lines we keep the single replace.
const LINE_DIFF_MAX_LINES = 20_000
// Lines × edit length a line diff may explore (about 25 ms) before the middle is replaced whole.
const LINE_DIFF_BUDGET = 1_000_000

/**
 * The line diff of `oldLines` into `newLines` (`diff`'s `diffArrays`), or `undefined` when it
 * would take more than `LINE_DIFF_BUDGET` to find: when the lines the two have in common (as
 * multisets, a bound on the longest common subsequence) leave more edits than the budget allows,
 * without diffing at all; else when the diff itself exceeds it (`maxEditLength`).
 */
export function lineDiff(
  oldLines: string[],
  newLines: string[],
): ReturnType<typeof diffArrays<string>> | undefined {
  const lines = oldLines.length + newLines.length
  const maxEditLength = Math.floor(LINE_DIFF_BUDGET / Math.max(1, lines))
  const counts = new Map<string, number>()
  for (const line of oldLines) counts.set(line, (counts.get(line) ?? 0) + 1)
  let common = 0
  for (const line of newLines) {
    const left = counts.get(line)
    if (left) {
      common++
      counts.set(line, left - 1)
    }
  }
  // Every line outside a common subsequence is one edit (a removal or an insertion).
  if (lines - 2 * common > maxEditLength) return undefined
  return diffArrays(oldLines, newLines, { maxEditLength }) ?? undefined
}

/**
 * Make `ytext` equal `next` (call inside a transaction). Returns true when anything changed.
 * `prev`: the text `ytext` holds now, when the caller already has it (it must be exact).
 */
export function applyTextDiff(ytext: Y.Text, next: string, prev: string = ytext.toString()): boolean {
  if (prev === next) return false
  const { index, remove, insert } = diffStrings(prev, next)
  // A change across line ends goes by lines even when small: the character diff may shift it
  // ('5\nline ' instead of 'line 5\n'), and a concurrent edit of the neighbouring line would
  // then merge into the wrong place.
  const multiline = insert.includes('\n') || prev.slice(index, index + remove).includes('\n')
  if (!multiline && remove + insert.length < LINE_DIFF_THRESHOLD) {
    if (remove > 0) ytext.delete(index, remove)
    if (insert.length > 0) ytext.insert(index, insert)
    return true
  }
  // Widen the middle to whole lines so line diffing is exact, then diff lines.
  // (lastIndexOf clamps a negative start to 0 and would find a '\n' at 0 itself.)
  const start = index === 0 ? 0 : prev.lastIndexOf('\n', index - 1) + 1
  let end = index + remove
  if (end > start && prev[end - 1] !== '\n') {
    const eol = prev.indexOf('\n', end)
    end = eol === -1 ? prev.length : eol + 1
  } else if (end === start && end < prev.length) {
    const eol = prev.indexOf('\n', end)
    end = eol === -1 ? prev.length : eol + 1
  }
  // The suffix after the change is common to both texts, so both middles widen by the same amount.
  const oldMid = prev.slice(start, end)
  const newMid = next.slice(start, index + insert.length + (end - index - remove))
  const oldLines = splitLines(oldMid)
  const newLines = splitLines(newMid)
  const parts =
    oldLines.length + newLines.length > LINE_DIFF_MAX_LINES ? undefined : lineDiff(oldLines, newLines)
  if (!parts) {
    if (remove > 0) ytext.delete(index, remove)
    if (insert.length > 0) ytext.insert(index, insert)
    return true
  }
  let pos = start
  for (const part of parts) {
    const text = part.value.join('')
    if (part.removed) ytext.delete(pos, text.length)
    else if (part.added) {
      ytext.insert(pos, text)
      pos += text.length
    } else pos += text.length
  }
  return true
}
