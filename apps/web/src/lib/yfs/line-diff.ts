/**
 * Side-by-side line diffs for the review panels (History, Activity, Checkpoints): two texts in,
 * rows out, each row a line of the old text on the left and of the new text on the right. A run of
 * removed lines followed by added lines is paired row by row (a changed line reads across); the
 * rest of a longer side stands alone. Pure: no DOM, the panels render the rows as text.
 */
import { diffLines, parsePatch } from 'diff'

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

/** A row as shown: a diff row, or a run of unchanged lines folded away. */
export type ShownRow = DiffRow | { kind: 'fold'; count: number }

/** What a panel shows of a diff: its rows with unchanged runs folded, and the counts. */
export interface ShownDiff {
  rows: ShownRow[]
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

/** Fold runs of unchanged rows farther than `context` rows from any change. */
export function foldUnchanged({ rows, added, removed }: SideBySide, context = 3): ShownDiff {
  const keep = rows.map((row) => row.kind !== 'same')
  const near = rows.map((_, i) => {
    for (let d = -context; d <= context; d++) if (keep[i + d]) return true
    return false
  })
  const out: ShownRow[] = []
  let folded = 0
  rows.forEach((row, i) => {
    if (near[i]) {
      if (folded) out.push({ kind: 'fold', count: folded })
      folded = 0
      out.push(row)
    } else folded++
  })
  if (folded) out.push({ kind: 'fold', count: folded })
  return { rows: out, added, removed }
}

/**
 * Side-by-side rows of a unified patch (one file's, as core's `diffCheckpoint` gives): each hunk's
 * lines paired as `sideBySide` pairs them, the lines between hunks folded with their count. A
 * "\ No newline at end of file" marker is not a line of either text.
 */
export function sideBySideFromPatch(patch: string): ShownDiff {
  const rows: ShownRow[] = []
  let added = 0
  let removed = 0
  let l = 0
  let r = 0
  for (const file of parsePatch(patch)) {
    for (const hunk of file.hunks) {
      const gap = hunk.oldStart - 1 - l
      if (gap > 0) rows.push({ kind: 'fold', count: gap })
      l = hunk.oldStart - 1
      r = hunk.newStart - 1
      let pending: string[] = []
      const flushRemoved = () => {
        for (const text of pending) rows.push({ kind: 'removed', left: { n: ++l, text } })
        pending = []
      }
      let plus: string[] = []
      const flushAdded = () => {
        plus.forEach((text, i) => {
          const old = pending[i]
          if (old !== undefined)
            rows.push({ kind: 'changed', left: { n: ++l, text: old }, right: { n: ++r, text } })
          else rows.push({ kind: 'added', right: { n: ++r, text } })
        })
        pending = pending.slice(plus.length)
        plus = []
        flushRemoved()
      }
      for (const line of hunk.lines) {
        const text = line.slice(1)
        if (line.startsWith('\\')) continue
        if (line.startsWith('-')) {
          if (plus.length) flushAdded()
          pending.push(text)
          removed++
        } else if (line.startsWith('+')) {
          plus.push(text)
          added++
        } else {
          flushAdded()
          flushRemoved()
          rows.push({ kind: 'same', left: { n: ++l, text }, right: { n: ++r, text } })
        }
      }
      flushAdded()
      flushRemoved()
    }
  }
  return { rows, added, removed }
}
