/**
 * The sync state's records of synced paths: what each pass writes into the
 * persisted state (sync-state.ts) after it made both sides equal at a path,
 * and the snapshots the initial pass compares.
 *
 * A record holds the row's stamp (`stampOf`) as the daemon saw it when it
 * wrote, so a peer's change arriving meanwhile still differs from the record
 * and is written out by the next remote pass; and for text files up to 1 MB
 * the text itself (the base of the next three-way merge).
 */
import { decodeTextOrBinary, type FileRow } from '@yfs/core'
import { sameBytes } from '../disk-read.js'
import { hashBytes } from '../disk-scan.js'
import type { StateNode, WorkspaceNode } from '../reconcile.js'
import { ignored, isSystemPath, rowAt, type SyncEngine } from './engine.js'
import { dropStaleCopy } from './local-deletes.js'
import { remoteChanged } from './scheduler.js'

/** Text files up to this size keep their last synced text in the state (the merge base). */
const MAX_BASE_BYTES = 1024 * 1024

/** A state stamp no row has: the workspace side of that path is still to be written to disk. */
export const UNSYNCED_STAMP = 'unsynced'

/** What of a row the disk mirrors (content time, size, mode, target): a change of it is a change to write out. */
export const stampOf = (row: FileRow): string =>
  `${row.updatedAt}:${row.size}:${row.mode ?? ''}:${row.target ?? ''}`

/** Record the folder at `path` as synced (`row`: the row it was made from; default the row there now). */
export function putFolder(engine: SyncEngine, path: string, mode = 0o755, row = rowAt(engine, path)): void {
  if (!row) return
  engine.state.put({
    path,
    kind: 'folder',
    id: row.id,
    hash: '',
    size: 0,
    mtimeMs: 0,
    mode,
    stamp: stampOf(row),
  })
}

/**
 * Record a synced file; `stamp` is the row stamp the written state came
 * from (default: the row now). `known` saves hashing and decoding again
 * when the caller has the bytes' hash and text (`text` undefined: binary).
 */
export function putFile(
  engine: SyncEngine,
  path: string,
  bytes: Uint8Array,
  mtimeMs: number,
  mode: number,
  stamp?: string,
  known?: { hash: string; text: string | undefined },
  row = rowAt(engine, path),
): void {
  if (!row) return
  const text = bytes.byteLength > MAX_BASE_BYTES ? undefined : known ? known.text : decodeTextOrBinary(bytes)
  const before = engine.state.pathOfId(row.id)
  if (before !== undefined && before !== path) dropStaleCopy(engine, before, row.id)
  engine.state.put({
    path,
    kind: 'file',
    id: row.id,
    hash: known?.hash ?? hashBytes(bytes),
    size: bytes.byteLength,
    mtimeMs,
    mode,
    stamp: stamp ?? stampOf(row),
    ...(text === undefined ? {} : { base: text }),
  })
}

/** Record the symlink at `path` (to `target`) as synced (`row`: as in putFolder). */
export function putSymlink(
  engine: SyncEngine,
  path: string,
  target: string,
  mtimeMs: number,
  row = rowAt(engine, path),
): void {
  if (!row) return
  engine.state.put({
    path,
    kind: 'symlink',
    id: row.id,
    hash: `link:${target}`,
    size: Buffer.byteLength(target),
    mtimeMs,
    mode: 0o777,
    stamp: stampOf(row),
  })
}

/**
 * Record `bytes` as synced after a write that took several awaits: the state's workspace stamp
 * is the row's now, which is only right if the workspace still holds `bytes`. A peer's change
 * that arrived meanwhile would otherwise be taken as synced and never reach the disk (the two
 * sides then stayed different); its stamp is left unmatched, so the remote pass writes it out.
 */
export async function putFileSynced(
  engine: SyncEngine,
  path: string,
  bytes: Uint8Array,
  mtimeMs: number,
  mode: number,
): Promise<void> {
  const now = await engine.fs.readFileBuffer(path).then(
    (b) => new Uint8Array(b),
    () => undefined,
  )
  const synced = now !== undefined && sameBytes(now, bytes)
  putFile(engine, path, bytes, mtimeMs, mode, synced ? undefined : UNSYNCED_STAMP)
  const row = synced ? undefined : rowAt(engine, path)
  if (row) remoteChanged(engine, row.id)
}

/** Take the row at `path` now as the synced one (its id and stamp), keeping the rest of the record. */
export function restamp(engine: SyncEngine, path: string): void {
  const e = engine.state.get(path)
  const row = rowAt(engine, path)
  if (e && row) engine.state.put({ ...e, id: row.id, stamp: stampOf(row) })
}

/** The synced hash of a file whose size and mtime are still what was synced (scans skip reading it). */
export function knownHash(
  engine: SyncEngine,
  path: string,
  size: number,
  mtimeMs: number,
): string | undefined {
  const e = engine.state.get(path)
  return e && e.kind === 'file' && e.size === size && e.mtimeMs === mtimeMs ? e.hash : undefined
}

/** The workspace as the initial pass compares it: every visible, synced-kind row by display path. */
export function workspaceSnapshot(engine: SyncEngine): Map<string, WorkspaceNode> {
  const out = new Map<string, WorkspaceNode>()
  engine.port.forEachVisible((row, path) => {
    if (isSystemPath(path)) return
    if (ignored(engine, path, row.type === 'folder')) return
    out.set(path, { kind: row.type, id: row.id, stamp: stampOf(row) })
  })
  return out
}

/** The sync state as the initial pass compares it. */
export function stateSnapshot(engine: SyncEngine): Map<string, StateNode> {
  const out = new Map<string, StateNode>()
  for (const e of engine.state.entries()) out.set(e.path, e)
  return out
}
