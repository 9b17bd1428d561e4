/**
 * Disk scan: what the folder holds, as virtual path → node, with refusals.
 *
 * Files are hashed (sha256) unless the caller already knows the hash for
 * the same size and mtime (the sync state), so a restart over an unchanged
 * 10,000-file tree reads no file contents. Ignored paths are not entered.
 * Entries the workspace could not hold are returned as `skipped` with a
 * reason: invalid names, symlinks leaving the root, files over the size limit.
 * With `keepBytes`, the bytes read for hashing are kept (up to that many in
 * all), so the initial ingest uploads them without reading each file again.
 */
import { createHash } from 'node:crypto'
import type { Stats } from 'node:fs'
import { lstat, readdir, readFile, readlink } from 'node:fs/promises'
import { join } from 'node:path'
import { TEMP_PREFIX } from './disk-writer.js'
import type { IgnoreRules } from './ignore-rules.js'
import { forEachLimited } from './limit.js'
import type { DiskNode } from './reconcile.js'
import { invalidNameReason, symlinkEscapeReason } from './root-guard.js'

/** A disk node with what the state needs to remember. */
export interface ScannedNode extends DiskNode {
  size: number
  mtimeMs: number
}

export interface Skipped {
  path: string
  code: 'EINVAL' | 'EACCES' | 'EFBIG'
  reason: string
}

export interface ScanResult {
  nodes: Map<string, ScannedNode>
  skipped: Skipped[]
  /** Bytes read while hashing, by path (only with `keepBytes`); they match the node's hash. */
  bytes: Map<string, Uint8Array>
}

/** sha256 hex of bytes. */
export function hashBytes(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

export interface ScanOptions {
  rules: IgnoreRules
  maxFileSize: number
  /** A known hash for `path` when its size and mtime are unchanged. */
  knownHash?(path: string, size: number, mtimeMs: number): string | undefined
  /** Keep the bytes of hashed files, up to this many bytes in all (scanDisk only). Default 0. */
  keepBytes?: number
}

/**
 * Look at one host path: the node, a refusal, or undefined when it is
 * missing or not something we mirror (sockets, devices).
 */
export async function inspect(
  root: string,
  host: string,
  path: string,
  options: ScanOptions,
  knownStats?: Stats,
): Promise<{ node?: ScannedNode; skipped?: Skipped; bytes?: Uint8Array }> {
  let st: Stats
  try {
    st = knownStats ?? (await lstat(host))
  } catch (error) {
    // Gone since it was listed or reported: nothing to mirror.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw error
  }
  const mode = st.mode & 0o777
  if (st.isDirectory()) return { node: { kind: 'folder', hash: '', mode, size: 0, mtimeMs: st.mtimeMs } }
  if (st.isSymbolicLink()) {
    const target = await readlink(host)
    const reason = symlinkEscapeReason(root, host, target)
    if (reason) return { skipped: { path, code: 'EACCES', reason } }
    return { node: { kind: 'symlink', hash: `link:${target}`, mode, size: st.size, mtimeMs: st.mtimeMs } }
  }
  if (!st.isFile()) return {}
  if (st.size > options.maxFileSize)
    return {
      skipped: {
        path,
        code: 'EFBIG',
        reason: `file larger than the workspace limit (${options.maxFileSize} bytes)`,
      },
    }
  const known = options.knownHash?.(path, st.size, st.mtimeMs)
  if (known) return { node: { kind: 'file', hash: known, mode, size: st.size, mtimeMs: st.mtimeMs } }
  let bytes: Uint8Array
  try {
    const buffer = await readFile(host)
    // A plain Uint8Array view: yjs stores binary only when `constructor === Uint8Array` (not Buffer).
    bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {}
    throw error
  }
  return {
    node: { kind: 'file', hash: hashBytes(bytes), mode, size: bytes.byteLength, mtimeMs: st.mtimeMs },
    bytes,
  }
}

/** Scan the folder `root` (host path), or only the subtree at virtual `under`. */
export async function scanDisk(root: string, options: ScanOptions, under = '/'): Promise<ScanResult> {
  const nodes = new Map<string, ScannedNode>()
  const skipped: Skipped[] = []
  const bytes = new Map<string, Uint8Array>()
  let keepBudget = options.keepBytes ?? 0
  const walk = async (dir: string, vdir: string): Promise<void> => {
    let entries: import('node:fs').Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (error) {
      // Removed while we scan: the watcher reports it.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    const subdirs: [string, string][] = []
    await forEachLimited(entries, 32, async (entry) => {
      if (entry.name.startsWith(TEMP_PREFIX)) return
      const path = vdir === '/' ? `/${entry.name}` : `${vdir}/${entry.name}`
      if (options.rules.ignores(path, entry.isDirectory())) return
      const invalid = invalidNameReason(entry.name)
      if (invalid) {
        skipped.push({ path, code: 'EINVAL', reason: invalid })
        return
      }
      const host = join(dir, entry.name)
      const seen = await inspect(root, host, path, options)
      if (seen.skipped) skipped.push(seen.skipped)
      if (!seen.node) return
      nodes.set(path, seen.node)
      if (seen.bytes && seen.bytes.byteLength <= keepBudget) {
        keepBudget -= seen.bytes.byteLength
        bytes.set(path, seen.bytes)
      }
      if (seen.node.kind === 'folder') subdirs.push([host, path])
    })
    for (const [host, path] of subdirs) {
      // A folder's .gitignore applies to everything below it: read it before looking inside.
      await options.rules.reload(path)
      await walk(host, path)
    }
  }
  const start = under === '/' ? root : join(root, ...under.split('/').filter(Boolean))
  await walk(start, under)
  return { nodes, skipped, bytes }
}
