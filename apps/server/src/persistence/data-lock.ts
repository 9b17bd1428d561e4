/**
 * A process-wide lock on a data folder. `yfs mcp` takes it exclusively: two
 * processes holding the documents in memory, neither seeing the other's edits,
 * must not work on one folder. `yfs serve` and `yfs start` take it shared:
 * several servers may share one SQLite file (sqlite-store.ts), but not with a
 * `yfs mcp`, which should connect to the server (`--server`) instead.
 *
 * The lock is SQLite's own, on a small file beside the store (`yfs.lock`): an
 * EXCLUSIVE transaction, or a read transaction (a SHARED lock), held for the
 * process's life. The operating system drops it when the process ends however
 * it ends (a crash, SIGKILL), so there is never a stale lock to clean up,
 * unlike a pid file. The last holder's pid and command are written to
 * `yfs.lock.pid` only to name it in the error.
 *
 * What it deliberately doesn't do: lock out the admin commands (`yfs workspace
 * create`, `yfs token create`), which only add rows.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import Database from 'better-sqlite3'

/** The lock file's name inside the data folder. */
export const LOCK_FILE = 'yfs.lock'
const HOLDER_FILE = 'yfs.lock.pid'

/** `exclusive`: no other holder at all (`yfs mcp`); `shared`: only other shared holders (servers). */
export type LockMode = 'exclusive' | 'shared'

export interface LockOptions {
  mode: LockMode
  /** Who holds it, for the error another process gets (`yfs mcp`). */
  holder: string
  /** What the refused process should do, appended to its error. */
  advice: string
}

/** Thrown when another process holds the folder; `folder` is the absolute path. */
export class DataFolderBusy extends Error {
  readonly folder: string
  constructor(folder: string, heldBy: string | undefined, advice: string) {
    super(`data folder '${folder}' is in use by ${heldBy ?? 'another yfs process'}: ${advice}`)
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

/** Lock `dir` (created if needed) for this process. Throws `DataFolderBusy` when a conflicting holder has it. */
export function lockDataFolder(dir: string, options: LockOptions): DataLock {
  const folder = resolve(dir)
  mkdirSync(folder, { recursive: true })
  // timeout 0: a held lock answers SQLITE_BUSY at once instead of waiting.
  const db = new Database(join(folder, LOCK_FILE), { timeout: 0 })
  try {
    // Journal in memory: nothing is ever written, and a journal file would outlive a crash.
    db.pragma('journal_mode = MEMORY')
    if (options.mode === 'exclusive') {
      db.pragma('locking_mode = EXCLUSIVE')
      db.exec('BEGIN EXCLUSIVE')
    } else {
      // A read inside an open transaction holds SHARED until the transaction ends: never.
      db.exec('BEGIN')
      db.prepare('SELECT count(*) FROM sqlite_master').get()
    }
  } catch (error) {
    db.close()
    if ((error as { code?: string }).code === 'SQLITE_BUSY')
      throw new DataFolderBusy(folder, heldBy(folder), options.advice)
    throw error
  }
  writeFileSync(join(folder, HOLDER_FILE), `${process.pid} ${options.holder}\n`)
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

/** `yfs mcp (pid 1234)` from the holder file, when there is one. */
function heldBy(folder: string): string | undefined {
  let text: string
  try {
    text = readFileSync(join(folder, HOLDER_FILE), 'utf8').trim()
  } catch (error) {
    // The holder may not have written it yet: the error just names no one.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const match = /^(\d+) (.+)$/.exec(text)
  return match ? `${match[2]} (pid ${match[1]})` : undefined
}
