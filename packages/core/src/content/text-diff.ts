/**
 * Apply a whole-file text write to a `Y.Text` as the smallest edit we can
 * find, so that a concurrent edit elsewhere in the file survives and the
 * history shows what really changed.
 *
 * Strategy: strip the common prefix and suffix (`diffStrings`, chunked compares);
 * if the changed middle is still large, or crosses a line end, widen it to
 * whole lines, diff it by lines with the `diff` package and apply each
 * changed line run as its own delete/insert.
 */
import { diffArrays } from 'diff'
import type * as Y from 'yjs'
import { diffStrings } from './common-affix.js'
import { splitLines } from './three-way-merge.js'

// Above this many characters in the changed middle, a line diff is worth its cost.
const LINE_DIFF_THRESHOLD = 256
// Line diffs are O(N·D); past this many lines we keep the single replace.
const LINE_DIFF_MAX_LINES = 20_000

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
  if (oldLines.length + newLines.length > LINE_DIFF_MAX_LINES) {
    if (remove > 0) ytext.delete(index, remove)
    if (insert.length > 0) ytext.insert(index, insert)
    return true
  }
  let pos = start
  for (const part of diffArrays(oldLines, newLines)) {
    const text = part.value.join('')
    if (part.removed) ytext.delete(pos, text.length)
    else if (part.added) {
      ytext.insert(pos, text)
      pos += text.length
    } else pos += text.length
  }
  return true
}
