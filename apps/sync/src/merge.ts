/**
 * Text merges and conflict names.
 *
 * `mergeText(base, disk, workspace)` is a line-based three-way merge
 * (core's `mergeText`, as for every whole-file write in the workspace).
 * Changes to different lines combine, also when the lines touch; where both
 * sides changed the same lines, both are kept between git-style markers
 * (node-diff3's regions), so neither is ever silently lost. An empty base (first run, both sides had the file) makes any
 * difference a conflict region holding both versions.
 *
 * `conflictName('a/b.png')` → `a/b (conflict).png`, with a counter when taken.
 */
import { mergeText as mergeLines } from '@yfs/core'
import { diff3Merge } from 'node-diff3'

export interface MergeResult {
  text: string
  /** True when markers were inserted. */
  conflict: boolean
}

/** Split into lines, each keeping its `\n`, so joining gives the text back exactly. */
function lines(text: string): string[] {
  const out = text.split(/(?<=\n)/)
  return out.length === 1 && out[0] === '' ? [] : out
}

function withNewline(block: string[]): string {
  const text = block.join('')
  return text === '' || text.endsWith('\n') ? text : `${text}\n`
}

/** Three-way merge of `disk` and `workspace` against `base`. */
export function mergeText(base: string, disk: string, workspace: string): MergeResult {
  if (disk === workspace) return { text: disk, conflict: false }
  if (disk === base) return { text: workspace, conflict: false }
  if (workspace === base) return { text: disk, conflict: false }
  // Core's line merge first, the one every whole-file write in the workspace uses: edits of
  // different lines combine also when the lines touch (diff3 would call that a conflict).
  // Only where both sides changed the same lines are both kept between markers.
  if (base !== '') {
    const merged = mergeLines(base, disk, workspace)
    if (merged.conflicts.length === 0) return { text: merged.text, conflict: false }
  }
  const regions = diff3Merge(lines(disk), lines(base), lines(workspace), { excludeFalseConflicts: true })
  let text = ''
  let conflict = false
  for (const region of regions) {
    if (region.ok) text += region.ok.join('')
    else if (region.conflict) {
      conflict = true
      text += `<<<<<<< disk\n${withNewline(region.conflict.a)}=======\n${withNewline(region.conflict.b)}>>>>>>> workspace\n`
    }
  }
  return { text, conflict }
}

/** `dir/name (conflict).ext`, then `(conflict 2)` … until `taken` says no. */
export function conflictName(path: string, taken: (candidate: string) => boolean): string {
  const slash = path.lastIndexOf('/')
  const dir = path.slice(0, slash + 1)
  const name = path.slice(slash + 1)
  const dot = name.lastIndexOf('.')
  const stem = dot > 0 ? name.slice(0, dot) : name
  const ext = dot > 0 ? name.slice(dot) : ''
  for (let n = 1; ; n++) {
    const candidate = `${dir}${stem} (conflict${n === 1 ? '' : ` ${n}`})${ext}`
    if (!taken(candidate)) return candidate
  }
}
