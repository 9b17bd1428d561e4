/**
 * The backup file format (`yfs backup`, `yfs restore <file>`, `GET|POST /api/workspaces/:id/…`):
 * JSON lines, UTF-8, one object per line, every line ending in `\n`.
 *
 *   1. header   {"format":"yfs-backup","version":1,"workspace":"team","createdAt":"<ISO time>",
 *                "store":"sqlite","documents":N}
 *   2. N lines  {"doc":"","state":"<base64>"}          the main doc (files, folders, history,
 *                                                         versions, checkpoints, trash)
 *               {"doc":"<fileId>","state":"<base64>"}  one file's content doc
 *   3. trailer  {"end":true,"documents":N,"bytes":<sum of state bytes>,"sha256":"<hex>"}
 *
 * `doc` is the document's name relative to its workspace, so a backup restores under any id.
 * `state` is the document's whole stored log merged into one Yjs update. `sha256` is the digest of
 * every byte before the trailer line: a truncated file has no trailer, a changed byte fails the
 * digest, and either is refused before anything is written. Tokens are not part of a backup.
 */
import { createHash } from 'node:crypto'
import { contentDocName, mainDocName, parseDocName } from '@yfs/protocol'
import { isValidUpdate } from '../protocol/sync-message.js'
import type { StoredDocument } from './document-store.js'

export const BACKUP_FORMAT = 'yfs-backup'
export const BACKUP_VERSION = 1

export interface BackupHeader {
  format: typeof BACKUP_FORMAT
  version: number
  workspace: string
  createdAt: string
  store: string
  documents: number
}

/** A document of a backup: `doc` is `''` for the main doc, else the content doc's file id. */
export interface BackupDocument {
  doc: string
  state: Uint8Array
}

export interface Backup {
  header: BackupHeader
  documents: BackupDocument[]
  /** Total bytes of the documents' states. */
  bytes: number
}

/** A backup or restore failure with a POSIX-like code (`EINVAL`: not a valid backup). */
export class BackupError extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(`${code}: ${message}`)
    this.name = 'BackupError'
    this.code = code
  }
}

/** Progress of a long step: `done` of `total`. */
export type BackupProgress = (done: number, total: number) => void

const noProgress: BackupProgress = () => undefined

/** A workspace's stored documents as backup documents (names relative to the workspace). */
export function toBackupDocuments(workspace: string, stored: readonly StoredDocument[]): BackupDocument[] {
  const main = mainDocName(workspace)
  const prefix = `${workspace}/`
  const out: BackupDocument[] = []
  for (const { name, state } of stored) {
    if (name === main) out.unshift({ doc: '', state })
    else if (name.startsWith(prefix)) out.push({ doc: name.slice(prefix.length), state })
  }
  return out
}

/** Backup documents as the stored documents of `workspace` (full names). */
export function toStoredDocuments(workspace: string, documents: readonly BackupDocument[]): StoredDocument[] {
  return documents.map(({ doc, state }) => ({
    name: doc === '' ? mainDocName(workspace) : contentDocName(workspace, doc),
    state,
  }))
}

/** The bytes of a backup file. */
export function encodeBackup(
  meta: { workspace: string; store: string; createdAt?: Date },
  documents: readonly BackupDocument[],
  progress: BackupProgress = noProgress,
): Buffer {
  const hash = createHash('sha256')
  const chunks: Buffer[] = []
  const line = (value: unknown) => {
    const bytes = Buffer.from(`${JSON.stringify(value)}\n`, 'utf8')
    hash.update(bytes)
    chunks.push(bytes)
  }
  const header: BackupHeader = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    workspace: meta.workspace,
    createdAt: (meta.createdAt ?? new Date()).toISOString(),
    store: meta.store,
    documents: documents.length,
  }
  line(header)
  let bytes = 0
  for (const [i, { doc, state }] of documents.entries()) {
    line({ doc, state: Buffer.from(state.buffer, state.byteOffset, state.byteLength).toString('base64') })
    bytes += state.byteLength
    progress(i + 1, documents.length)
  }
  const trailer = { end: true, documents: documents.length, bytes, sha256: hash.digest('hex') }
  chunks.push(Buffer.from(`${JSON.stringify(trailer)}\n`, 'utf8'))
  return Buffer.concat(chunks)
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/

const invalid = (why: string): BackupError => new BackupError('EINVAL', `not a valid yfs backup: ${why}`)

function parseLine(bytes: Buffer, n: number): Record<string, unknown> {
  let value: unknown
  try {
    value = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw invalid(`line ${n} is not JSON`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(`line ${n} is not a JSON object`)
  }
  return value as Record<string, unknown>
}

/**
 * Parse and check a whole backup file: header, trailer, digest, every document's name and Yjs
 * state. Throws `BackupError` EINVAL naming the first problem; nothing is ever half-read.
 */
export function decodeBackup(file: Uint8Array, progress: BackupProgress = noProgress): Backup {
  const data = Buffer.from(file.buffer, file.byteOffset, file.byteLength)
  if (data.byteLength === 0) throw invalid('the file is empty')
  if (data[data.byteLength - 1] !== 0x0a) throw invalid('the file is truncated (no final newline)')
  const lastStart = data.lastIndexOf(0x0a, data.byteLength - 2) + 1
  const trailer = parseLine(data.subarray(lastStart, data.byteLength - 1), -1)
  if (trailer.end !== true) throw invalid('the file is truncated (no end line)')
  const digest = createHash('sha256').update(data.subarray(0, lastStart)).digest('hex')
  if (trailer.sha256 !== digest) throw invalid('checksum mismatch: the file is corrupted')

  const lines: Buffer[] = []
  for (let start = 0; start < lastStart; ) {
    const nl = data.indexOf(0x0a, start)
    lines.push(data.subarray(start, nl))
    start = nl + 1
  }
  if (lines.length === 0) throw invalid('no header line')
  const header = parseLine(lines[0]!, 1)
  if (header.format !== BACKUP_FORMAT) throw invalid(`unknown format ${JSON.stringify(header.format)}`)
  if (header.version !== BACKUP_VERSION) {
    throw invalid(`format version ${JSON.stringify(header.version)} (this yfs reads ${BACKUP_VERSION})`)
  }
  if (typeof header.workspace !== 'string' || typeof header.createdAt !== 'string') {
    throw invalid('header without workspace or createdAt')
  }
  const count = lines.length - 1
  if (header.documents !== count || trailer.documents !== count) {
    throw invalid(`${count} documents, header says ${header.documents}, end line ${trailer.documents}`)
  }

  const documents: BackupDocument[] = []
  const seen = new Set<string>()
  let bytes = 0
  for (let i = 1; i < lines.length; i++) {
    const entry = parseLine(lines[i]!, i + 1)
    const { doc, state } = entry
    if (typeof doc !== 'string' || typeof state !== 'string' || !BASE64.test(state)) {
      throw invalid(`line ${i + 1} is not a document`)
    }
    const name = doc === '' ? mainDocName('w') : contentDocName('w', doc)
    if (parseDocName(name) === undefined) throw invalid(`line ${i + 1}: bad document name`)
    if (seen.has(doc)) throw invalid(`line ${i + 1}: document ${JSON.stringify(doc)} twice`)
    seen.add(doc)
    const update = new Uint8Array(Buffer.from(state, 'base64'))
    if (!isValidUpdate(update)) throw invalid(`line ${i + 1}: not a Yjs update`)
    bytes += update.byteLength
    documents.push({ doc, state: update })
    progress(i, count)
  }
  if (trailer.bytes !== bytes) throw invalid(`${bytes} bytes of documents, end line says ${trailer.bytes}`)
  return {
    header: header as unknown as BackupHeader,
    documents,
    bytes,
  }
}
