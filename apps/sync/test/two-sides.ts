/** The files of a folder on disk and in the workspace, and a wait for the two to agree. */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { YjsFileSystem } from '@yfs/core'
import { waitFor } from './helpers.js'

/** Files under `rel` of the folder `dir` on disk (recursive, the daemon's `.yfs*` left out): path → text. */
export function diskTree(dir: string, rel: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const entry of readdirSync(join(dir, rel)).sort()) {
    if (entry.startsWith('.yfs')) continue
    const p = `${rel}/${entry}`
    const st = statSync(join(dir, p))
    if (st.isDirectory()) Object.assign(out, diskTree(dir, p))
    else out[p] = readFileSync(join(dir, p), 'utf8')
  }
  return out
}

/** Files under `/rel` of a workspace (recursive): path → text. */
export async function wsTree(fs: YjsFileSystem, rel: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const e of [...(await fs.readdirWithFileTypes(`/${rel}`))].sort((a, b) =>
    a.name < b.name ? -1 : 1,
  )) {
    const p = `${rel}/${e.name}`
    if (e.isDirectory) Object.assign(out, await wsTree(fs, p))
    else out[p] = await fs.readFile(`/${p}`)
  }
  return out
}

/**
 * Wait until `folder` holds the same files on disk (in `dir`) and in the workspace, and, with
 * `want`, exactly those; the error shows both sides as last seen. Returns the disk's files.
 */
export async function bothSides(
  dir: string,
  fs: YjsFileSystem,
  folder: string,
  { want, timeoutMs = 15_000 }: { want?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Record<string, string>> {
  let last = ''
  let files: Record<string, string> = {}
  await waitFor(
    async () => {
      const d = diskTree(dir, folder)
      const w = await wsTree(fs, folder)
      last = `disk ${JSON.stringify(d)} workspace ${JSON.stringify(w)}`
      files = d
      return (
        JSON.stringify(d) === JSON.stringify(w) &&
        (want === undefined || JSON.stringify(d) === JSON.stringify(want))
      )
    },
    `the same files on both sides of ${folder}`,
    timeoutMs,
  ).catch((error) => {
    throw new Error(`${String(error)}: ${last}`)
  })
  return files
}
