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
import { lstatSync, readFileSync, readlinkSync } from 'node:fs'
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { TEMP_PREFIX } from './disk-writer.js'
import { isDenied } from './errno.js'
import type { IgnoreRules } from './ignore-rules.js'
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
): Promise<{ node?: ScannedNode; skipped?: Skipped; bytes?: Uint8Array }> {
  return inspectNow(root, host, path, options)
}

/**
 * `inspect` with synchronous calls: an lstat (and a read for a file whose
 * hash is not known) costs a few microseconds, while the promise and the
 * thread-pool round trip around each cost several times that, which over a
 * 10,000-file scan was most of its time.
 */
function inspectNow(
  root: string,
  host: string,
  path: string,
  options: ScanOptions,
): { node?: ScannedNode; skipped?: Skipped; bytes?: Uint8Array } {
  let st: ReturnType<typeof lstatSync>
  try {
    st = lstatSync(host, { throwIfNoEntry: false })
  } catch (error) {
    // ENOTDIR: a parent folder was replaced by a file, so this path is gone too.
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return {}
    throw error
  }
  // Gone since it was listed or reported: nothing to mirror.
  if (!st) return {}
  const mode = st.mode & 0o777
  if (st.isDirectory()) return { node: { kind: 'folder', hash: '', mode, size: 0, mtimeMs: st.mtimeMs } }
  if (st.isSymbolicLink()) {
    let target: string
    try {
      target = readlinkSync(host)
    } catch (error) {
      if (
        (error as NodeJS.ErrnoException).code === 'ENOENT' ||
        (error as NodeJS.ErrnoException).code === 'EINVAL'
      )
        return {}
      throw error
    }
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
    const buffer = readFileSync(host)
    // A plain Uint8Array view: yjs stores binary only when `constructor === Uint8Array` (not Buffer).
    bytes = new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength)
  } catch (error) {
    // Gone (or replaced by a folder) since the lstat.
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return {}
    if (isDenied(error))
      return { skipped: { path, code: 'EACCES', reason: 'file cannot be read (permissions)' } }
    throw error
  }
  return {
    node: { kind: 'file', hash: hashBytes(bytes), mode, size: bytes.byteLength, mtimeMs: st.mtimeMs },
    bytes,
  }
}

/** Entries, and bytes read, per synchronous stretch of a scan before it yields to the event loop. */
const SLICE_ENTRIES = 128
const SLICE_BYTES = 8 * 1024 * 1024

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
      // Unreadable: refused (the caller leaves what is below it alone on both sides).
      if (isDenied(error)) {
        skipped.push({ path: vdir, code: 'EACCES', reason: 'folder cannot be read (permissions)' })
        return
      }
      throw error
    }
    const subdirs: [string, string][] = []
    let entriesInSlice = 0
    let bytesInSlice = 0
    for (const entry of entries) {
      if (entry.name.startsWith(TEMP_PREFIX)) continue
      const path = vdir === '/' ? `/${entry.name}` : `${vdir}/${entry.name}`
      if (options.rules.ignores(path, entry.isDirectory())) continue
      const invalid = invalidNameReason(entry.name)
      if (invalid) {
        skipped.push({ path, code: 'EINVAL', reason: invalid })
        continue
      }
      const host = join(dir, entry.name)
      const seen = inspectNow(root, host, path, options)
      if (seen.skipped) skipped.push(seen.skipped)
      if (++entriesInSlice >= SLICE_ENTRIES || bytesInSlice >= SLICE_BYTES) {
        entriesInSlice = 0
        bytesInSlice = 0
        await new Promise((resolve) => setImmediate(resolve))
      }
      if (!seen.node) continue
      bytesInSlice += seen.bytes?.byteLength ?? 0
      nodes.set(path, seen.node)
      if (seen.bytes && seen.bytes.byteLength <= keepBudget) {
        keepBudget -= seen.bytes.byteLength
        bytes.set(path, seen.bytes)
      }
      if (seen.node.kind === 'folder') subdirs.push([host, path])
    }
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
