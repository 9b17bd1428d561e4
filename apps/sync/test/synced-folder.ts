/** A test file's daemon fixture: a server, a workspace mirrored into a temp folder, a client of it. */
import type { WorkspaceConnection } from '@yfs/client'
import { afterAll, beforeAll } from 'vitest'
import type { SyncFolderOptions } from '../src/sync-folder.js'
import { type SyncTestEnv, startEnv, tempDir } from './helpers.js'

/** What `syncedFolder` sets up for a test file. */
export interface SyncedFolder {
  env: SyncTestEnv
  /** The folder the daemon mirrors. */
  dir: string
  /** A second client of the workspace (the "other side" of the daemon). */
  client: WorkspaceConnection
  daemon: Awaited<ReturnType<SyncTestEnv['startSync']>>
}

/**
 * For a test file: a server, a workspace `name` mirrored into a new temp folder by a daemon
 * (`syncFolder` with `options`), and a client of that workspace; set up before its tests and
 * closed after. The fields are filled in by `beforeAll`.
 */
export function syncedFolder(name: string, options?: Partial<SyncFolderOptions>): SyncedFolder {
  const fixture = {} as SyncedFolder
  beforeAll(async () => {
    fixture.env = await startEnv()
    const ws = await fixture.env.workspace(name)
    fixture.dir = tempDir()
    fixture.env.dirs.push(fixture.dir)
    fixture.daemon = await fixture.env.startSync(ws, fixture.dir, options)
    fixture.client = await fixture.env.connect(ws)
  })
  afterAll(async () => {
    await fixture.env?.close()
  })
  return fixture
}
