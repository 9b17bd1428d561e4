/**
 * DocumentStore: where the server keeps Yjs documents, workspaces and tokens.
 *
 * Documents are append-only logs of Yjs updates. `append` resolves only once
 * the update is durable (committed), so the server can acknowledge a client's
 * change after it and a crash never loses an acknowledged edit. `load` merges
 * the whole log (snapshot row + tail) into one update. `compact` folds a
 * document's log into a single row with `Y.mergeUpdates`; it deletes exactly
 * the rows it merged, so an update appended meanwhile (by this or another
 * process) is kept.
 *
 * Document keys are `(workspace, name)`, where `name` is the full document
 * name (`<workspace>` for the main doc, `<workspace>/<fileId>` for content).
 * Backends partition every document row by workspace; the PostgreSQL backend
 * enforces it with row-level security.
 *
 * Rules for implementations: no sync methods (a backend may be remote); bytes
 * in and out are `Uint8Array`; a method never returns a row of a workspace
 * other than the one asked for. Unknown workspaces are not an error for
 * document methods (the server checks workspaces before it touches documents).
 */

import type { Requirement } from '@yfs/core'
import { isValidWorkspaceId, workspaceIdProblem } from '@yfs/protocol'
import type { LogRepair } from './salvage.js'

/** What a token lets its holder do in its workspace. */
export type Role = 'read' | 'write'

export const ROLES: readonly Role[] = ['read', 'write']

/** One document's stored state as a single Yjs update. */
export interface StoredDocument {
  name: string
  state: Uint8Array
}

/** What a token resolves to. */
export interface TokenGrant {
  workspace: string
  role: Role
  /** The name the token was created with (who its holder is, for the activity log). */
  name?: string
}

/** Longest token name, in characters. */
export const MAX_TOKEN_NAME = 100

/** Why `name` can't name a token, or `undefined` when it can: 1–100 characters, no control characters. */
export function tokenNameProblem(name: string): string | undefined {
  if (name.length === 0 || name.length > MAX_TOKEN_NAME) return `must be 1 to ${MAX_TOKEN_NAME} characters`
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'must not hold control characters'
  return undefined
}

/** Throw RangeError when `name` is given and can't name a token (stores call it in `createToken`). */
export function checkTokenName(name: string | undefined): void {
  const problem = name === undefined ? undefined : tokenNameProblem(name)
  if (problem) throw new RangeError(`invalid token name ${JSON.stringify(name)}: ${problem}`)
}

/** A token row as a grant (a null name is a token made without one). */
export function grantOf(row: { workspace: string; role: Role; name: string | null }): TokenGrant {
  return { workspace: row.workspace, role: row.role, ...(row.name !== null ? { name: row.name } : {}) }
}

export interface CompactResult {
  /** Log rows merged into one (0 when there was nothing to do). */
  merged: number
  /** Bytes of the merged row. */
  bytes: number
}

export interface SalvageResult {
  /** Log rows read (and replaced). */
  rows: number
  /** Of them, rows moved to the quarantine. */
  quarantined: number
  /** Bytes of the row that replaced them (0: none, nothing could be read). */
  bytes: number
}

/** A row `salvage` set aside. */
export interface QuarantinedRow {
  /** The document it was in (full name). */
  doc: string
  data: Uint8Array
  /** Why it did not apply (Yjs's message). */
  reason: string
  /** When it was set aside (ms since the epoch). */
  at: number
}

export interface DocumentStore {
  /** `'sqlite'` or `'postgres'`; for logs and health checks. */
  readonly kind: string

  /** Append one Yjs update to the log of `name`. Resolves once it is durable. */
  append(workspace: string, name: string, update: Uint8Array): Promise<void>

  /**
   * Append one update to each of several documents of `workspace`, in one
   * transaction: resolves once all are durable; on failure none is stored.
   */
  appendMany(workspace: string, updates: readonly { name: string; update: Uint8Array }[]): Promise<void>

  /** The stored state of `name` as one update (all rows merged); `undefined` when nothing is stored. */
  load(workspace: string, name: string): Promise<Uint8Array | undefined>

  /** Number of log rows of `name` (1 after a compaction with no appends since). */
  logLength(workspace: string, name: string): Promise<number>

  /** Merge the log of `name` into one row. Safe against concurrent appends and compactions. */
  compact(workspace: string, name: string): Promise<CompactResult>

  /**
   * Replace the log of `name` by `repair`'s state of its rows and move the rows it names bad to
   * the quarantine (kept for inspection, never loaded): one transaction over the rows read in it,
   * so an update appended meanwhile is kept, as with `compact`. For a log that does not load
   * (salvage.ts); `repair` throwing changes nothing.
   */
  salvage(
    workspace: string,
    name: string,
    repair: (rows: readonly Uint8Array[]) => LogRepair,
  ): Promise<SalvageResult>

  /** The quarantined rows of `workspace` (of document `name` only, when given), oldest first: what `salvage` set aside, and why. */
  quarantined(workspace: string, name?: string): Promise<QuarantinedRow[]>

  /**
   * Every stored document of `workspace` (full names), each as one update, read in one
   * statement: a consistent point in time even while others append (backup.ts).
   */
  snapshotWorkspace(workspace: string): Promise<StoredDocument[]>

  /**
   * Store `documents` (full names) as the whole content of `workspace`, in one transaction:
   * creates the workspace when missing; throws `StoreError` EEXIST, with nothing written,
   * when it already has stored documents (restore never merges into or overwrites one).
   */
  restoreWorkspace(workspace: string, documents: readonly StoredDocument[]): Promise<void>

  /** Create a workspace; resolves `false` when it already exists. Throws RangeError for an invalid id. */
  createWorkspace(workspace: string): Promise<boolean>

  hasWorkspace(workspace: string): Promise<boolean>

  listWorkspaces(): Promise<string[]>

  /**
   * Create a token for `workspace` with `role` (and a `name` saying whose it is: agents using it
   * are logged under it) and return it. Only a hash is stored: the token cannot be read back.
   * Throws `StoreError` ENOENT when the workspace does not exist, RangeError for a bad role or name.
   */
  createToken(workspace: string, role: Role, name?: string): Promise<string>

  /** The grant of `token`; `undefined` for an unknown or revoked token. */
  resolveToken(token: string): Promise<TokenGrant | undefined>

  /** Revoke `token`; resolves `false` when it was unknown. */
  revokeToken(token: string): Promise<boolean>

  /**
   * Heads of stored logs: clients that hold a doc's state at a head skip loading it again while
   * the head stays (bulk-content.ts). Every backend has them (optional for a store of tests).
   */
  readonly heads?: LogHeads

  /**
   * The plaintext search index (`search/plaintext-index.ts`), when this backend has one
   * (PostgreSQL with `pg_trgm`); SQLite deployments search in process on the client.
   */
  readonly plaintext?: PlaintextIndex

  /** Release connections and file handles. Further calls reject. */
  close(): Promise<void>
}

/**
 * A document's head names its stored log as it stands: the number of its last row, as text. A
 * log's rows are numbered in the order they were committed (SQLite: one writer at a time;
 * PostgreSQL: a workspace's appends take their numbers and commit one after another,
 * postgres-store.ts), any change to the log (an append, a salvage) gives it another, a compaction
 * keeps it (its merged row takes the last number: the same state), so the state stored at a
 * head never changes.
 */
export interface LogHeads {
  /** The head of each of `names` (`undefined`: nothing stored). */
  of(workspace: string, names: readonly string[]): Promise<(string | undefined)[]>
  /** `load`, with the head of the state loaded (read together). */
  load(workspace: string, name: string): Promise<{ state: Uint8Array; head: string } | undefined>
  /**
   * `appendMany`, resolving with each update's document head just before it was appended and the
   * head it made (its row), in order.
   */
  appendMany(
    workspace: string,
    updates: readonly { name: string; update: Uint8Array }[],
  ): Promise<{ before: string | undefined; after: string }[]>
}

/** A file's indexed text as stored: `text` undefined for binary or unreadable files. */
export interface PlaintextRow {
  file: string
  /** The file row's version the text was read at (core `rowVersion`). */
  version: string
  text: string | undefined
}

/**
 * Each file's current plaintext, by workspace, with a trigram index for `candidates`. Scoped
 * like documents: a method never touches another workspace's rows (row-level security).
 */
export interface PlaintextIndex {
  /** The version each indexed file of `workspace` was read at. */
  versions(workspace: string): Promise<Map<string, string>>
  /** Store (replace) these files' texts. */
  put(workspace: string, rows: readonly PlaintextRow[]): Promise<void>
  /** Forget these files. */
  remove(workspace: string, files: readonly string[]): Promise<void>
  /**
   * Files of `workspace` with text whose folded form (core `foldText`) satisfies `requirement`
   * (`true`: every file), with their text.
   */
  candidates(workspace: string, requirement: Requirement): Promise<{ file: string; text: string }[]>
}

/** A store-level error with a code (`ENOENT`: no such workspace). */
export class StoreError extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(`${code}: ${message}`)
    this.name = 'StoreError'
    this.code = code
  }
}

// Workspace ids are part of the wire (a main doc's name is its workspace id): @yfs/protocol owns their shape.
export { isValidWorkspaceId, workspaceIdProblem }

/** Throws RangeError (`invalid workspace id: <why>`) unless `id` is a valid workspace id. */
export function assertWorkspaceId(id: string): void {
  const problem = workspaceIdProblem(id)
  if (problem !== undefined) throw new RangeError(`invalid workspace id: ${problem}`)
}
