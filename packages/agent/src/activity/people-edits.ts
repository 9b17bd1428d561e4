/**
 * People's edits for the activity timeline, at version granularity: the
 * history versions of the files some entries changed that were recorded for
 * edits made outside the tools — `edit` versions (an editor's edits, in its
 * author's name) and `save` versions (pending edits recorded on demand, e.g.
 * by the activity recorder just before an agent changed the file, in the
 * names of whoever typed them). Agent writes are `write` versions and stay out.
 *
 * What it deliberately doesn't do: scan the whole workspace (only the files
 * the given entries name), or store anything (history is the record).
 */
import { type ActivityEntry, asFileId, isFsError, type YjsFileSystem } from '@yfs/core'

export interface PersonEdit {
  time: number
  who: string
  /** The file's current path. */
  path: string
  /** History version holding the file after the edits. */
  version: string
  reason: 'edit' | 'save'
}

/** Edits of people to the files `entries` changed, at or after `since`, newest first. */
export async function peopleEdits(
  fs: YjsFileSystem,
  entries: readonly ActivityEntry[],
  since = 0,
): Promise<PersonEdit[]> {
  const ids = new Set(entries.flatMap((e) => e.files.filter((f) => f.type === 'file').map((f) => f.id)))
  const out: PersonEdit[] = []
  for (const id of ids) {
    const path = fs.index.pathOf(asFileId(id))
    if (path === undefined) continue
    let versions: Awaited<ReturnType<YjsFileSystem['history']>>
    try {
      versions = await fs.history(path)
    } catch (error) {
      // A codec this instance lacks, or gone meanwhile: no versions to show.
      if (isFsError(error)) continue
      throw error
    }
    for (const v of versions)
      if ((v.reason === 'edit' || v.reason === 'save') && v.ts >= since)
        out.push({ time: v.ts, who: v.author, path, version: v.id, reason: v.reason })
  }
  return out.sort((a, b) => b.time - a.time)
}
