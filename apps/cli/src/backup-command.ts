/**
 * `yfs backup <file>` and `yfs restore <file>` (one argument; with two, `yfs restore` restores
 * a version of a file: file-commands.ts): a whole workspace to and from a backup file
 * (persistence/backup.ts), from a data folder or PostgreSQL store directly, or through a server
 * (`--server`, http/backup-api.ts).
 *
 * Backup reads every document of the workspace in one read transaction, so it is a consistent
 * point in time also while a server writes to the same store. The file is written beside its
 * target and renamed into place: an interrupted backup leaves no half file under the name.
 * Restore checks the whole file first and writes in one transaction, into a workspace that is
 * new or has no stored documents; on a SQLite data folder it needs the folder to itself (no
 * server running on it: restore through the server with --server instead).
 *
 * Exit codes: 0 done; 1 refused or failed, `<CODE>: <why>` on stderr (EINVAL not a valid backup,
 * EEXIST the workspace is not empty, EACCES the token may not, ENOENT no such file or workspace,
 * EBUSY the data folder or workspace is in use, EFBIG too large for the server); 2 the server or
 * store could not be reached.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  type Backup,
  BackupError,
  type BackupProgress,
  DataFolderBusy,
  decodeBackup,
  encodeBackup,
  lockDataFolder,
  StoreError,
  toBackupDocuments,
  toStoredDocuments,
} from '@yfs/server'
import { Command } from 'commander'
import { openStore } from './open-store.js'
import { withProgress } from './progress-bar.js'
import { type WorkspaceFlags, workspaceOptions } from './workspace-flags.js'

type Flags = WorkspaceFlags & { json?: boolean }

/** An error the server can't help: unreachable, or a store that won't open (exit 2). */
class Unreachable extends Error {}

const httpBase = (server: string) => String(server).replace(/^ws/, 'http').replace(/\/+$/, '')

function apiUrl(flags: Flags, what: 'backup' | 'restore'): string {
  if (!flags.token) throw new BackupError('EINVAL', '--server needs --token')
  return `${httpBase(flags.server!)}/api/workspaces/${encodeURIComponent(flags.workspace)}/${what}`
}

async function request(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init)
  } catch (error) {
    throw new Unreachable(`cannot reach ${new URL(url).origin}: ${(error as Error).message}`)
  }
}

/** The server's `{error, code}` as a BackupError. */
async function failure(response: Response): Promise<BackupError> {
  const body = (await response.json().catch(() => ({}))) as { error?: string; code?: string }
  const code = body.code ?? (response.status === 404 ? 'ENOENT' : 'EIO')
  const message = (body.error ?? `HTTP ${response.status}`).replace(/^[A-Z]+: /, '')
  return new BackupError(code, message)
}

/** Read a body, reporting bytes as they arrive. */
async function readBody(response: Response, progress: BackupProgress): Promise<Uint8Array> {
  const total = Number(response.headers.get('content-length') ?? 0)
  const chunks: Uint8Array[] = []
  let done = 0
  const reader = response.body?.getReader()
  for (let r = await reader?.read(); r && !r.done; r = await reader!.read()) {
    const chunk = r.value
    chunks.push(chunk)
    done += chunk.byteLength
    progress(done, Math.max(total, done))
  }
  return Buffer.concat(chunks)
}

/** The data folder's store file; ENOENT (nothing created) when there is none. */
function sqliteFile(flags: Flags): void {
  if (flags.postgres) return
  const file = join(flags.data ?? './.yfs', 'yfs.sqlite')
  if (!existsSync(file)) throw new BackupError('ENOENT', `no yfs data folder at ${flags.data ?? './.yfs'}`)
}

async function openStoreOr2(flags: Flags) {
  try {
    return await openStore(flags)
  } catch (error) {
    throw new Unreachable((error as Error).message)
  }
}

/** The backup file's bytes, from the server or the store. */
async function takeBackup(flags: Flags, json: boolean): Promise<Uint8Array> {
  if (flags.server) {
    const response = await request(apiUrl(flags, 'backup'), {
      headers: { authorization: `Bearer ${flags.token}` },
    })
    if (!response.ok) throw await failure(response)
    return withProgress('downloading', json, (p) => readBody(response, p))
  }
  sqliteFile(flags)
  const store = await openStoreOr2(flags)
  try {
    if (!(await store.hasWorkspace(flags.workspace))) {
      throw new BackupError('ENOENT', `no workspace '${flags.workspace}' in this store`)
    }
    const stored = await store.snapshotWorkspace(flags.workspace)
    return withProgress('backing up', json, (p) =>
      encodeBackup(
        { workspace: flags.workspace, store: store.kind },
        toBackupDocuments(flags.workspace, stored),
        p,
      ),
    )
  } finally {
    await store.close()
  }
}

/** Write `bytes` to `file` through a temporary file beside it. */
function writeAtomically(file: string, bytes: Uint8Array): void {
  const temporary = `${file}.${process.pid}.partial`
  try {
    writeFileSync(temporary, bytes, { mode: 0o600 })
    renameSync(temporary, file)
  } catch (error) {
    rmSync(temporary, { force: true })
    throw error
  }
}

async function putBackup(flags: Flags, file: Uint8Array, backup: Backup): Promise<void> {
  if (flags.server) {
    const response = await request(apiUrl(flags, 'restore'), {
      method: 'POST',
      headers: { authorization: `Bearer ${flags.token}`, 'content-type': 'application/x-ndjson' },
      body: new Uint8Array(file),
    })
    if (!response.ok) throw await failure(response)
    return
  }
  const lock = flags.postgres
    ? undefined
    : lockDataFolder(flags.data ?? './.yfs', {
        mode: 'exclusive',
        holder: 'yfs restore',
        advice: 'restore through the server instead (yfs restore <file> --server URL --token T)',
      })
  try {
    const store = await openStoreOr2(flags)
    try {
      await store.restoreWorkspace(flags.workspace, toStoredDocuments(flags.workspace, backup.documents))
    } finally {
      await store.close()
    }
  } finally {
    lock?.release()
  }
}

/** Print the error with its code; the exit code (1 refused or failed, 2 unreachable). */
function fail(verb: string, error: unknown): number {
  let message = (error as Error).message
  if (error instanceof DataFolderBusy) message = `EBUSY: ${message}`
  else if (error instanceof StoreError && error.code === 'EEXIST') {
    message = `${message}: restore into a new workspace (another --workspace)`
  } else if (error instanceof Error && 'code' in error && !message.startsWith(`${error.code}`)) {
    message = `${(error as NodeJS.ErrnoException).code}: ${message}`
  }
  process.stderr.write(`yfs ${verb}: ${message}\n`)
  return error instanceof Unreachable ? 2 : 1
}

/** `yfs restore <file>`: the action of the one-argument form. */
export async function restoreBackup(file: string, flags: Flags): Promise<void> {
  const json = flags.json === true
  try {
    let bytes: Buffer
    try {
      bytes = readFileSync(file)
    } catch (error) {
      throw new BackupError((error as NodeJS.ErrnoException).code ?? 'EIO', `cannot read ${file}`)
    }
    const backup = await withProgress('checking', json, (p) => decodeBackup(bytes, p))
    await putBackup(flags, bytes, backup)
    const summary = {
      file,
      workspace: flags.workspace,
      from: backup.header.workspace,
      createdAt: backup.header.createdAt,
      documents: backup.documents.length,
      bytes: backup.bytes,
    }
    process.stdout.write(
      json
        ? `${JSON.stringify(summary)}\n`
        : `restored ${summary.documents} documents (${summary.bytes} bytes) into workspace ${summary.workspace}\n`,
    )
  } catch (error) {
    process.exitCode = fail('restore', error)
  }
}

/** Help lines of `yfs restore` for the one-argument form. */
export const RESTORE_BACKUP_HELP = [
  '# a whole workspace from a yfs backup file, into a new or empty workspace (EEXIST otherwise):',
  'yfs restore team.yfsbackup --data ./fresh --workspace team',
  '# through a server: a write token of the workspace, or the admin token (may name a new one):',
  'yfs restore team.yfsbackup --server ws://127.0.0.1:4321 --token "$ADMIN" --workspace team-copy',
]

export function createBackupCommand(): Command {
  return workspaceOptions(
    new Command('backup')
      .description('save a consistent snapshot of a whole workspace to a file (also while a server runs)')
      .argument('<file>', 'the backup file to write (replaced if it exists)'),
  )
    .addHelpText(
      'after',
      `
The file holds every document of the workspace (files, folders, modes, history, versions,
checkpoints, trash), not its tokens. Restore it with: yfs restore <file> --workspace <id> ...
Through a server, any token of the workspace (read or write) or the admin token may back up.
Exit codes: 0 done, 1 refused or failed (its code on stderr), 2 the server or store could not be reached.

Examples:
  yfs backup team.yfsbackup --data ./.yfs --workspace team
  yfs backup team.yfsbackup --server ws://127.0.0.1:4321 --token "$T" --workspace team --json`,
    )
    .action(async (file: string, flags: Flags) => {
      const json = flags.json === true
      try {
        const bytes = await takeBackup(flags, json)
        // Checks what the server sent, and counts it for the summary.
        const backup = decodeBackup(bytes)
        writeAtomically(file, bytes)
        const summary = {
          file,
          workspace: flags.workspace,
          createdAt: backup.header.createdAt,
          documents: backup.documents.length,
          bytes: backup.bytes,
          fileBytes: bytes.byteLength,
        }
        process.stdout.write(
          json
            ? `${JSON.stringify(summary)}\n`
            : `backed up ${summary.documents} documents (${summary.bytes} bytes) of workspace ${summary.workspace} to ${file}\n`,
        )
      } catch (error) {
        process.exitCode = fail('backup', error)
      }
    })
}
