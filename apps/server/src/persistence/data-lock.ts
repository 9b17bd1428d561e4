/**
 * A process-wide lock on a data folder, so two `yfs mcp` processes never work
 * on one folder at once: each would hold its own copy of the documents in
 * memory and neither would see the other's edits.
 *
 * The lock is SQLite's own: an EXCLUSIVE transaction, held for the process's
 * life, on a small file beside the store (`mcp.lock`). The operating system
 * drops it when the process ends however it ends (a crash, SIGKILL), so there
 * is never a stale lock to clean up, unlike a pid file. The holder's pid is
 * written to `mcp.pid` only to name it in the error.
 *
 * What it deliberately doesn't do: lock out `yfs serve` or the admin commands
 * (several servers may share one SQLite file; see sqlite-store.ts).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'

/** The lock file's name inside the data folder. */
export const LOCK_FILE = 'mcp.lock'
const PID_FILE = 'mcp.pid'

/** Thrown when another process holds the folder; `folder` is the absolute path. */
export class DataFolderBusy extends Error {
  readonly folder: string
  constructor(folder: string, pid: string | undefined) {
    super(
      `data folder '${folder}' is in use by another yfs mcp${pid ? ` (pid ${pid})` : ''}: stop it, or pass another --data folder (or --memory)`,
    )
    this.name = 'DataFolderBusy'
    this.folder = folder
  }
}

export interface DataLock {
  /** The locked folder (absolute). */
  readonly folder: string
  /** Give the folder back; safe to call twice. */
  release(): void
}

/** Lock `dir` (created if needed) for this process. Throws `DataFolderBusy` when another holds it. */
export function lockDataFolder(dir: string): DataLock {
  const folder = resolve(dir)
  mkdirSync(folder, { recursive: true })
  // timeout 0: a held lock answers SQLITE_BUSY at once instead of waiting.
  const db = new Database(join(folder, LOCK_FILE), { timeout: 0 })
  try {
    // Journal in memory: nothing is ever written, and a journal file would outlive a crash.
    db.pragma('journal_mode = MEMORY')
    db.pragma('locking_mode = EXCLUSIVE')
    db.exec('BEGIN EXCLUSIVE')
  } catch (error) {
    db.close()
    if ((error as { code?: string }).code === 'SQLITE_BUSY')
      throw new DataFolderBusy(folder, holderPid(folder))
    throw error
  }
  writeFileSync(join(folder, PID_FILE), `${process.pid}\n`)
  let held = true
  return {
    folder,
    release() {
      if (!held) return
      held = false
      db.close()
    },
  }
}

function holderPid(folder: string): string | undefined {
  try {
    return readFileSync(join(folder, PID_FILE), 'utf8').trim() || undefined
  } catch (error) {
    // The holder may not have written it yet: the error just names no pid.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}
