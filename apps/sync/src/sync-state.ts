/**
 * Sync state: what the folder and the workspace last agreed on, per path,
 * persisted in `<root>/.yfs-sync/state.sqlite` (a folder the mirror ignores).
 *
 * Each entry records the file id (so a move keeps its identity), the hash,
 * size, mode and mtime of the bytes last written to or read from disk, the
 * workspace row stamp (`updatedAt:size`) last seen, and for text files the
 * text itself: the base of the three-way merge when both sides changed.
 *
 * Durability: SQLite in WAL mode. Every change is written before the daemon
 * acts on the next event, so after a SIGKILL the state describes the last
 * completed step; a step interrupted half-way is redone at the next start
 * (both sides are compared again, so redoing is harmless).
 *
 * The state is pinned to one workspace (`meta.workspace`): opening it for
 * another one is refused, so a folder is never merged into the wrong place.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { STATE_DIR } from './ignore-rules.js'

export type EntryKind = 'file' | 'folder' | 'symlink'

export interface SyncEntry {
  /** Virtual path, `/a/b.txt`. */
  path: string
  kind: EntryKind
  /** Workspace file id. */
  id: string
  /** sha256 (hex) of the bytes; `link:<target>` for symlinks; '' for folders. */
  hash: string
  size: number
  /** Disk mtime at the last sync (ms). */
  mtimeMs: number
  /** Permission bits on disk. */
  mode: number
  /** Workspace row stamp at the last sync: `updatedAt:size`. */
  stamp: string
  /** Text at the last sync (text files under the base limit): the merge base. */
  base?: string
}

export interface SyncState {
  get(path: string): SyncEntry | undefined
  /** The path an id was last synced at. */
  pathOfId(id: string): string | undefined
  entries(): IterableIterator<SyncEntry>
  readonly size: number
  put(entry: SyncEntry): void
  delete(path: string): void
  /** Rewrite every entry at or below `from` to live below `to` (a folder move). */
  move(from: string, to: string): void
  /** Run several changes in one SQLite transaction. */
  batch<T>(fn: () => T): T
  close(): void
}

/** Row shape in SQLite. */
interface Row {
  path: string
  kind: EntryKind
  id: string
  hash: string
  size: number
  mtime: number
  mode: number
  stamp: string
  base: string | null
}

/**
 * Open (or create) the state of the folder `root` for `workspace`. Throws
 * Error when the folder is already synced with another workspace.
 */
export function openSyncState(root: string, workspace: string): SyncState {
  const dir = join(root, STATE_DIR)
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'state.sqlite')
  const db = new Database(file)
  try {
    // 16 KiB pages, for a new state only (an existing one keeps its size: WAL mode fixes it). An
    // entry with its merge base of a few KiB filled a 4 KiB page alone, so each one written was a
    // page of its own in the WAL: recording 10,000 files of 2 KB took 2.5–3 times as long.
    db.pragma('page_size = 16384')
    db.pragma('journal_mode = WAL')
  } catch (error) {
    db.close()
    // Not a database (edited or truncated by hand): say which file, and how to start over.
    throw new Error(
      `the sync state ${file} is unreadable (${error instanceof Error ? error.message : String(error)}): ` +
        `move ${STATE_DIR}/ away to start over (the folder and the workspace are then compared as on a first run, nothing is deleted)`,
    )
  }
  db.pragma('synchronous = NORMAL')
  // Checkpoint every ~32 MB of WAL instead of every 4 MB: an initial pass records thousands of
  // merge bases (a page each), and each checkpoint copies and fsyncs on the daemon's only thread.
  // Durability is unchanged (a commit is in the WAL either way); the WAL file is trimmed back.
  db.pragma('wal_autocheckpoint = 8192')
  db.pragma('journal_size_limit = 8388608')
  db.exec(`
    CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS entries (
      path TEXT PRIMARY KEY, kind TEXT NOT NULL, id TEXT NOT NULL, hash TEXT NOT NULL,
      size INTEGER NOT NULL, mtime REAL NOT NULL, mode INTEGER NOT NULL, stamp TEXT NOT NULL, base TEXT
    );
  `)
  const known = db.prepare('SELECT value FROM meta WHERE key = ?').get('workspace') as
    | { value: string }
    | undefined
  if (known && known.value !== workspace) {
    db.close()
    throw new Error(`the folder is already synced with workspace '${known.value}' (state in ${STATE_DIR}/)`)
  }
  if (!known) db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run('workspace', workspace)

  const byPath = new Map<string, SyncEntry>()
  const byId = new Map<string, string>()
  for (const row of db.prepare('SELECT * FROM entries').all() as Row[]) {
    const entry: SyncEntry = {
      path: row.path,
      kind: row.kind,
      id: row.id,
      hash: row.hash,
      size: row.size,
      mtimeMs: row.mtime,
      mode: row.mode,
      stamp: row.stamp,
      ...(row.base === null ? {} : { base: row.base }),
    }
    byPath.set(entry.path, entry)
    byId.set(entry.id, entry.path)
  }
  const upsert = db.prepare(
    `INSERT OR REPLACE INTO entries (path, kind, id, hash, size, mtime, mode, stamp, base)
     VALUES (@path, @kind, @id, @hash, @size, @mtime, @mode, @stamp, @base)`,
  )
  const remove = db.prepare('DELETE FROM entries WHERE path = ?')

  const state: SyncState = {
    get: (path) => byPath.get(path),
    pathOfId: (id) => byId.get(id),
    entries: () => byPath.values(),
    get size() {
      return byPath.size
    },
    put(entry) {
      const old = byPath.get(entry.path)
      if (old && byId.get(old.id) === old.path) byId.delete(old.id)
      byPath.set(entry.path, entry)
      byId.set(entry.id, entry.path)
      upsert.run({
        path: entry.path,
        kind: entry.kind,
        id: entry.id,
        hash: entry.hash,
        size: entry.size,
        mtime: entry.mtimeMs,
        mode: entry.mode,
        stamp: entry.stamp,
        base: entry.base ?? null,
      })
    },
    delete(path) {
      const old = byPath.get(path)
      if (!old) return
      byPath.delete(path)
      if (byId.get(old.id) === path) byId.delete(old.id)
      remove.run(path)
    },
    move(from, to) {
      state.batch(() => {
        const moved = [...byPath.values()].filter((e) => e.path === from || e.path.startsWith(`${from}/`))
        for (const e of moved) state.delete(e.path)
        for (const e of moved) state.put({ ...e, path: to + e.path.slice(from.length) })
      })
    },
    batch: (fn) => db.transaction(fn)(),
    close: () => db.close(),
  }
  return state
}
