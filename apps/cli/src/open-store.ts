/**
 * The store a command's flags name: PostgreSQL with `--postgres`, else SQLite
 * under `--data` (default ./.yfs). Shared by `serve` and the commands that
 * work on a store directly.
 */
import { join } from 'node:path'
import { createPostgresStore, createSqliteStore, type DocumentStore } from '@yfs/server'

export interface StoreFlags {
  data?: string
  postgres?: string
  pgSchema?: string
}

/** Open the store the flags name: PostgreSQL with `--postgres`, else SQLite under `--data` (default ./.yfs). */
export async function openStore(flags: StoreFlags): Promise<DocumentStore> {
  if (flags.postgres) return createPostgresStore({ url: flags.postgres, schema: flags.pgSchema })
  return createSqliteStore({ file: join(flags.data ?? './.yfs', 'yfs.sqlite') })
}
