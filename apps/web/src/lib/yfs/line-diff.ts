/**
 * Side-by-side line diffs for the review panels (History, Activity, Checkpoints): two texts in,
 * rows out, each row a line of the old text on the left and of the new text on the right. A run of
 * removed lines followed by added lines is paired row by row (a changed line reads across); the
 * rest of a longer side stands alone. Pure: no DOM, the panels render the rows as text.
 */
import { diffLines } from 'diff'

export interface DiffCell {
  /** 1-based line number in its text. */
  n: number
  text: string
}

export interface DiffRow {
  kind: 'same' | 'changed' | 'removed' | 'added'
  left?: DiffCell
  right?: DiffCell
}

export interface SideBySide {
  rows: DiffRow[]
  added: number
  removed: number
}

const linesOf = (value: string) => {
  const lines = value.split('\n')
  if (lines.at(-1) === '') lines.pop()
  return lines
}

/** Rows of a side-by-side diff from `before` to `after`. */
export function sideBySide(before: string, after: string): SideBySide {
  const rows: DiffRow[] = []
  let l = 0
  let r = 0
  let added = 0
  let removed = 0
  let pending: string[] = []
  const flushRemoved = () => {
    for (const text of pending) rows.push({ kind: 'removed', left: { n: ++l, text } })
    pending = []
  }
  for (const part of diffLines(before, after)) {
    const lines = linesOf(part.value)
    if (part.removed) {
      flushRemoved()
      pending = lines
      removed += lines.length
    } else if (part.added) {
      added += lines.length
      lines.forEach((text, i) => {
        const old = pending[i]
        if (old !== undefined)
          rows.push({ kind: 'changed', left: { n: ++l, text: old }, right: { n: ++r, text } })
        else rows.push({ kind: 'added', right: { n: ++r, text } })
      })
      pending = pending.slice(lines.length)
      flushRemoved()
    } else {
      flushRemoved()
      for (const text of lines) rows.push({ kind: 'same', left: { n: ++l, text }, right: { n: ++r, text } })
    }
  }
  flushRemoved()
  return { rows, added, removed }
}
