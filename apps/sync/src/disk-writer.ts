/**
 * Disk writer: every change the daemon makes to the folder.
 *
 * Files are written atomically: a temp file in the same folder (so the
 * rename never crosses a filesystem), written in full, fsynced, given its
 * mode and mtime, then renamed over the target. A crash at any point leaves
 * either the old file or the new one, plus at worst a stray temp file that
 * `removeStrayTemps` deletes at the next start. Symlinks are replaced the
 * same way (a temp link, then rename).
 *
 * Many files at once (`writeFilesAtomic`, the initial pass) write all their
 * temps first, fsync them together, then rename each: the same guarantee,
 * without one journal commit per file.
 *
 * Temp names start with TEMP_PREFIX, which the watcher ignores, so a write in
 * progress is never read back as a change.
 *
 * It does not check paths: callers pass host paths from root-guard.
 */
import { randomBytes } from 'node:crypto'
import {
  closeSync,
  fchmodSync,
  fstatSync,
  fsync,
  futimesSync,
  lstatSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import { lstat, mkdir, open, readdir, rename, rm, rmdir, symlink, unlink, utimes } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { isDenied } from './errno.js'
import { forEachLimited } from './limit.js'

/** Prefix of the daemon's temp files; ignored by the watcher and the scan. */
export const TEMP_PREFIX = '.yfs-sync-tmp-'

// Unique temp names: a random per-process prefix and a counter (one random draw per file cost more than the write).
const TEMP_RUN = randomBytes(4).toString('hex')
let tempCount = 0

/** The shape of the daemon's temp names: prefix, 8 hex digits of the run, a base-36 counter, '-'. */
const TEMP_NAME = /^\.yfs-sync-tmp-[0-9a-f]{8}[0-9a-z]+-/

/** True when `name` is one of the daemon's temp names (a person's `.yfs-sync-tmp-notes` is not). */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name)
}

function tempPath(host: string): string {
  tempCount = (tempCount + 1) % Number.MAX_SAFE_INTEGER
  return join(
    dirname(host),
    `${TEMP_PREFIX}${TEMP_RUN}${tempCount.toString(36)}-${basename(host).slice(0, 64)}`,
  )
}

export interface WriteOptions {
  /** Permission bits (e.g. 0o755); default 0o644. */
  mode?: number
  /** Modification time, ms since the epoch. */
  mtimeMs?: number
  /**
   * Replace the target only if it still is what the caller last saw: called with the target's
   * bytes (`undefined` when absent) right before the rename, after the fsync that takes most of a
   * write's time. False: nothing is written (an editor saved meanwhile; the caller looks again).
   */
  unchanged?: (current: Uint8Array | undefined) => boolean
}

/**
 * Write `bytes` to `host` atomically (temp + fsync + rename); creates missing parent folders.
 * False when `options.unchanged` refused the target (nothing written).
 */
export async function writeFileAtomic(
  host: string,
  bytes: Uint8Array,
  options: WriteOptions = {},
): Promise<boolean> {
  await mkdir(dirname(host), { recursive: true })
  const temp = tempPath(host)
  const mode = options.mode ?? 0o644
  const handle = await open(temp, 'wx', mode)
  try {
    try {
      await handle.writeFile(bytes)
      await handle.sync()
      // The umask may have dropped bits given to open(); chmod sets them exactly.
      await handle.chmod(mode)
    } finally {
      await handle.close()
    }
    if (options.mtimeMs !== undefined) {
      const t = new Date(options.mtimeMs)
      await utimes(temp, t, t)
    }
    if (options.unchanged) {
      // Check and rename in one synchronous step: with a read and a rename on the thread pool,
      // other work of this process (a save by an editor embedded in it, another pass) ran in
      // between, and a save landing there was replaced. What remains is the time of one read
      // and one rename, for writers in other processes.
      let current: Uint8Array | undefined
      try {
        current = readFileSync(host)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
      }
      if (!options.unchanged(current)) {
        await rm(temp, { force: true })
        return false
      }
      renameSync(temp, host)
      return true
    }
    await rename(temp, host)
    return true
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/** One file of a batched write. */
export interface BatchFile extends WriteOptions {
  host: string
  bytes: Uint8Array
}

/** What became of one file of a batched write. */
export type BatchOutcome =
  /** Written; `mtimeMs` as the disk reports it. */
  | { ok: true; mtimeMs: number }
  /** Not written: the target existed and `replace` was false, or writing failed (`error`). */
  | { ok: false; exists?: true; error?: Error }

export interface BatchOptions {
  /** Replace a file that exists at the target. Default true; false leaves it alone (outcome `exists`). */
  replace?: boolean
  /** Files in flight per phase. Default 16. */
  concurrency?: number
}

/**
 * Write many files atomically, with the fsyncs batched: every temp file is
 * written (with its mode and mtime) first, then all are fsynced together
 * (concurrent fsyncs share the filesystem's journal commits), then each is
 * renamed over its target. The crash guarantee is `writeFileAtomic`'s: a
 * file is renamed only once its bytes are on disk, so a kill at any point
 * leaves every target old or complete, plus stray temps that
 * `removeStrayTemps` deletes at the next start. Parent folders must exist.
 * One file failing does not stop the others; outcomes are in input order.
 *
 * The small steps (open, write, utimes, stat, close, rename) are
 * synchronous calls, in slices that yield to the event loop between them:
 * for many small files a promise and a thread-pool round trip per call cost
 * several times the call itself. Only the fsyncs, which wait for the disk,
 * go to the thread pool (`concurrency` at once).
 */
export async function writeFilesAtomic(
  files: readonly BatchFile[],
  options: BatchOptions = {},
): Promise<BatchOutcome[]> {
  const replace = options.replace ?? true
  const concurrency = options.concurrency ?? 16
  const outcomes: BatchOutcome[] = new Array(files.length)
  const temps: (string | undefined)[] = new Array(files.length)
  const fds: (number | undefined)[] = new Array(files.length)
  const fail = (k: number, error: unknown) => {
    outcomes[k] = { ok: false, error: error instanceof Error ? error : new Error(String(error)) }
    const fd = fds[k]
    fds[k] = undefined
    if (fd !== undefined) closeQuietly(fd)
    const temp = temps[k]
    temps[k] = undefined
    if (temp) rmSync(temp, { force: true })
  }
  // 1. Write every temp file (no fsync yet), keeping it open.
  await inSlices(files, (f, k) => {
    const temp = tempPath(f.host)
    const mode = f.mode ?? 0o644
    try {
      const fd = openSync(temp, 'wx', mode)
      temps[k] = temp
      fds[k] = fd
      writeAll(fd, f.bytes)
      // The umask may have dropped bits given to open(); chmod sets them exactly.
      fchmodSync(fd, mode)
      if (f.mtimeMs !== undefined) {
        const t = new Date(f.mtimeMs)
        futimesSync(fd, t, t)
      }
    } catch (error) {
      fail(k, error)
    }
    return f.bytes.byteLength
  })
  // 2. Flush them all (the only calls that wait for the disk), then note the mtime and close.
  const mtimes: number[] = new Array(files.length)
  await forEachLimited(files, concurrency, async (_f, k) => {
    const fd = fds[k]
    if (fd === undefined) return
    try {
      await new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())))
    } catch (error) {
      fail(k, error)
    }
  })
  // 3. Only now give each its final name.
  await inSlices(files, (f, k) => {
    const fd = fds[k]
    const temp = temps[k]
    if (fd === undefined || !temp) return 0
    try {
      mtimes[k] = fstatSync(fd).mtimeMs
      fds[k] = undefined
      closeSync(fd)
      if (!replace && existsNoFollow(f.host)) {
        outcomes[k] = { ok: false, exists: true }
        temps[k] = undefined
        rmSync(temp, { force: true })
        return 0
      }
      renameSync(temp, f.host)
      temps[k] = undefined
      outcomes[k] = { ok: true, mtimeMs: mtimes[k]! }
    } catch (error) {
      fail(k, error)
    }
    return 0
  })
  return outcomes
}

/** Files per synchronous slice, and bytes written, before yielding to the event loop. */
const SLICE_FILES = 64
const SLICE_BYTES = 4 * 1024 * 1024

/** Run `fn` over `items` synchronously, yielding after SLICE_FILES items or SLICE_BYTES (what `fn` returns). */
async function inSlices<T>(items: readonly T[], fn: (item: T, index: number) => number): Promise<void> {
  let files = 0
  let bytes = 0
  for (let k = 0; k < items.length; k++) {
    bytes += fn(items[k]!, k)
    if (++files >= SLICE_FILES || bytes >= SLICE_BYTES) {
      files = 0
      bytes = 0
      await new Promise((resolve) => setImmediate(resolve))
    }
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0
  while (done < bytes.byteLength) done += writeSync(fd, bytes, done, bytes.byteLength - done)
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd)
  } catch {
    // Closing after a failed write: the error that matters was already recorded.
  }
}

function existsNoFollow(host: string): boolean {
  return lstatSync(host, { throwIfNoEntry: false }) !== undefined
}

/** Make `host` a symlink to `target`, replacing whatever file or link is there (not folders). */
export async function writeSymlinkAtomic(host: string, target: string): Promise<void> {
  await mkdir(dirname(host), { recursive: true })
  const temp = tempPath(host)
  await symlink(target, temp)
  try {
    await rename(temp, host)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}

/** Remove a file or symlink; a missing one is fine. */
export async function removeFile(host: string): Promise<void> {
  try {
    await unlink(host)
  } catch (error) {
    // Already gone: the goal of the call is reached.
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

/**
 * Remove a folder if it is empty. Returns false when it still holds entries
 * (ignored files the daemon must not delete), true when it is gone.
 */
export async function removeEmptyFolder(host: string): Promise<boolean> {
  try {
    await rmdir(host)
    return true
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    // ENOENT: already gone. ENOTEMPTY/EEXIST: untracked or ignored entries remain, which we keep.
    if (code === 'ENOENT') return true
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false
    throw error
  }
}

/** Create a folder (and missing parents). */
export async function makeFolder(host: string, mode?: number): Promise<void> {
  await mkdir(host, { recursive: true, mode })
}

/** Move a file or folder within the root; creates the destination's parents. */
export async function moveEntry(fromHost: string, toHost: string): Promise<void> {
  await mkdir(dirname(toHost), { recursive: true })
  await rename(fromHost, toHost)
}

/** Delete temp files left by a crash (anywhere below `root`, skipping `skip` folder names; see isTempName). */
export async function removeStrayTemps(root: string, skip: ReadonlySet<string>): Promise<number> {
  let removed = 0
  const walk = async (dir: string): Promise<void> => {
    let entries: import('node:fs').Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch (error) {
      // A folder removed while we walk has no temps left to remove; one we may not read has none of ours.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT' || isDenied(error)) return
      throw error
    }
    for (const entry of entries) {
      const full = join(dir, entry.name)
      // Only names of the daemon's shape: a person's file that merely starts with the prefix stays.
      if (isTempName(entry.name)) {
        const st = await lstat(full)
        if (!st.isDirectory()) {
          await removeFile(full)
          removed++
        }
      } else if (entry.isDirectory() && !skip.has(entry.name)) await walk(full)
    }
  }
  await walk(root)
  return removed
}
