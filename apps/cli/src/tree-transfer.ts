/**
 * Whole trees in and out of a workspace, for `yfs import` and `yfs export`:
 * a folder on disk or a tar file, as one list of entries (files with their
 * bytes, mode and modification time, folders, symlinks with their target).
 * Imports go through `fs.writeTree` (checked whole first, then stored in
 * batches), so a bad tree changes nothing. A tar is untrusted input: an
 * entry that would land outside the target (absolute, `..`) is refused, as
 * are devices, FIFOs and hard links; on disk nothing is written outside the
 * target folder, and symlinks are written as links, never followed.
 */
import { createReadStream, createWriteStream } from 'node:fs'
import { lstat, mkdir, readdir, readFile, readlink, symlink, utimes, writeFile } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { type BulkEntry, isLocalPath, type YjsFileSystem } from '@yfs/core'
import { extract, pack } from 'tar-stream'

export type TreeEntry =
  | { kind: 'file'; path: string; bytes: Uint8Array; mode: number; mtime: number }
  | { kind: 'folder'; path: string }
  | { kind: 'symlink'; path: string; target: string }

export interface TransferSummary {
  files: number
  folders: number
  symlinks: number
  bytes: number
}

/** Called as entries are read or written: done so far, and the total when known. */
export type Progress = (done: number, total: number) => void

export function summarize(entries: readonly TreeEntry[]): TransferSummary {
  const s: TransferSummary = { files: 0, folders: 0, symlinks: 0, bytes: 0 }
  for (const e of entries) {
    if (e.kind === 'file') {
      s.files++
      s.bytes += e.bytes.length
    } else if (e.kind === 'folder') s.folders++
    else s.symlinks++
  }
  return s
}

/** A relative path inside the tree (`a/b`), or an error for one that leaves it. */
function treePath(raw: string): string {
  const parts = raw
    .replace(/\\/g, '/')
    .split('/')
    .filter((p) => p !== '' && p !== '.')
  if (raw.startsWith('/') || parts.includes('..'))
    throw new Error(`EINVAL: entry '${raw}' would land outside the target (absolute or '..')`)
  return parts.join('/')
}

/** Every entry under a folder on disk, parents before children, in name order. */
export async function readDiskTree(root: string, progress?: Progress): Promise<TreeEntry[]> {
  const out: TreeEntry[] = []
  const walk = async (dir: string): Promise<void> => {
    for (const name of (await readdir(dir)).sort()) {
      const full = join(dir, name)
      const path = relative(root, full).split(sep).join('/')
      const st = await lstat(full)
      if (st.isSymbolicLink()) out.push({ kind: 'symlink', path, target: await readlink(full) })
      else if (st.isDirectory()) {
        out.push({ kind: 'folder', path })
        await walk(full)
      } else if (st.isFile())
        out.push({
          kind: 'file',
          path,
          bytes: new Uint8Array(await readFile(full)),
          mode: st.mode & 0o777,
          mtime: st.mtimeMs,
        })
      else throw new Error(`EINVAL: ${full} is not a file, folder or symlink`)
      progress?.(out.length, 0)
    }
  }
  await walk(root)
  return out
}

/** Every entry of a tar file (paths checked, see the module comment). */
export async function readTarTree(file: string, progress?: Progress): Promise<TreeEntry[]> {
  const out: TreeEntry[] = []
  const tar = extract()
  const reading = (async () => {
    for await (const entry of tar) {
      const { header } = entry
      const path = treePath(header.name)
      const chunks: Buffer[] = []
      for await (const chunk of entry) chunks.push(chunk as Buffer)
      if (path === '') continue
      if (header.type === 'directory') out.push({ kind: 'folder', path })
      else if (header.type === 'symlink') out.push({ kind: 'symlink', path, target: header.linkname ?? '' })
      else if (header.type === 'file' || header.type === 'contiguous-file')
        out.push({
          kind: 'file',
          path,
          bytes: new Uint8Array(Buffer.concat(chunks)),
          mode: (header.mode ?? 0o644) & 0o777,
          mtime: header.mtime ? header.mtime.getTime() : Date.now(),
        })
      else
        throw new Error(
          `EINVAL: tar entry '${header.name}' is a ${header.type}: only files, folders and symlinks`,
        )
      progress?.(out.length, 0)
    }
  })()
  await Promise.all([pipeline(createReadStream(file), tar), reading])
  return out
}

/** Put the entries under `to` in the workspace: files and folders in batches, then symlinks. */
export async function importTree(
  fs: YjsFileSystem,
  entries: readonly TreeEntry[],
  to: string,
  progress?: Progress,
): Promise<TransferSummary> {
  const base = to === '/' ? '' : to.replace(/\/$/, '')
  const at = (path: string) => `${base}/${path}`
  const batch = 2_000
  const bulk: BulkEntry[] = entries.flatMap((e): BulkEntry[] =>
    e.kind === 'file'
      ? [{ path: at(e.path), content: e.bytes, mode: e.mode, mtime: e.mtime }]
      : e.kind === 'folder'
        ? [{ path: at(e.path), folder: true }]
        : [],
  )
  if (base !== '') await fs.mkdir(base, { recursive: true })
  let done = 0
  for (let i = 0; i < bulk.length; i += batch) {
    await fs.writeTree(bulk.slice(i, i + batch))
    done += Math.min(batch, bulk.length - i)
    progress?.(done, entries.length)
  }
  for (const e of entries)
    if (e.kind === 'symlink') {
      if (await fs.exists(at(e.path)).catch(() => false)) await fs.rm(at(e.path))
      await fs.symlink(e.target, at(e.path))
      progress?.(++done, entries.length)
    }
  return summarize(entries)
}

/** Every entry under `from` in the workspace (file bytes, modes, times, link targets), local folders apart. */
export async function readWorkspaceTree(
  fs: YjsFileSystem,
  from: string,
  progress?: Progress,
): Promise<TreeEntry[]> {
  const out: TreeEntry[] = []
  const root = from === '/' ? '' : from.replace(/\/$/, '')
  if (root !== '' && !(await fs.lstat(root)).isDirectory) throw new Error(`ENOTDIR: ${root} is not a folder`)
  const walk = async (dir: string, rel: string): Promise<void> => {
    for (const d of (await fs.readdirWithFileTypes(dir || '/')).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const full = `${dir}/${d.name}`
      const path = rel ? `${rel}/${d.name}` : d.name
      // /tmp and the shell's system folders are each instance's own, not the workspace's.
      if (isLocalPath(full)) continue
      if (d.isSymbolicLink) out.push({ kind: 'symlink', path, target: await fs.readlink(full) })
      else if (d.isDirectory) {
        out.push({ kind: 'folder', path })
        await walk(full, path)
      } else {
        const st = await fs.lstat(full)
        out.push({
          kind: 'file',
          path,
          bytes: await fs.readFileBuffer(full),
          mode: st.mode & 0o777,
          mtime: st.mtime.getTime(),
        })
      }
      progress?.(out.length, 0)
    }
  }
  await walk(root, '')
  return out
}

/** Write the entries into a folder on disk (created if needed; existing files replaced). */
export async function writeDiskTree(
  root: string,
  entries: readonly TreeEntry[],
  progress?: Progress,
): Promise<void> {
  const top = resolve(root)
  await mkdir(top, { recursive: true })
  // Into a new or empty folder only: an export never mixes with, or replaces, files already there.
  if ((await readdir(top)).length > 0) throw new Error(`ENOTEMPTY: ${top} is not empty`)
  let done = 0
  for (const e of entries) {
    const full = resolve(top, treePath(e.path))
    if (!full.startsWith(top + sep)) throw new Error(`EINVAL: ${e.path} would land outside ${top}`)
    if (e.kind === 'folder') await mkdir(full, { recursive: true })
    else if (e.kind === 'symlink') await symlink(e.target, full)
    else {
      await writeFile(full, e.bytes, { mode: e.mode })
      const when = new Date(e.mtime)
      await utimes(full, when, when)
    }
    progress?.(++done, entries.length)
  }
}

/** Write the entries as a tar file (ustar/pax, as `tar` reads them). */
export async function writeTarTree(
  file: string,
  entries: readonly TreeEntry[],
  progress?: Progress,
): Promise<void> {
  const tar = pack()
  const writing = pipeline(tar, createWriteStream(file))
  let done = 0
  for (const e of entries) {
    if (e.kind === 'folder') tar.entry({ name: `${e.path}/`, type: 'directory', mode: 0o755 })
    else if (e.kind === 'symlink') tar.entry({ name: e.path, type: 'symlink', linkname: e.target })
    else
      await new Promise<void>((ok, fail) =>
        tar.entry(
          { name: e.path, mode: e.mode, mtime: new Date(e.mtime), size: e.bytes.length },
          Buffer.from(e.bytes),
          (err) => (err ? fail(err) : ok()),
        ),
      )
    progress?.(++done, entries.length)
  }
  tar.finalize()
  await writing
}
