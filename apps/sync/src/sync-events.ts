/**
 * What the daemon reports: one event per change it made, per path it
 * refused or skipped, per error, plus progress of the initial pass. The CLI
 * prints them (`--verbose` lines, `--json` lines, a progress bar); the
 * in-process API hands them to `onEvent`. Paths are always virtual.
 */

/** `to-workspace`: disk → workspace; `to-disk`: workspace → disk. */
export type SyncDirection = 'to-workspace' | 'to-disk'

export type SyncAction = 'create' | 'update' | 'delete' | 'move' | 'mkdir' | 'merge' | 'conflict' | 'mode'

export type SyncEvent =
  | {
      type: 'change'
      direction: SyncDirection
      action: SyncAction
      path: string
      from?: string
      kind?: string
    }
  | { type: 'skip'; path: string; code: string; reason: string }
  | { type: 'error'; path?: string; message: string }
  | { type: 'progress'; phase: 'scan' | 'initial'; done: number; total: number }
  | {
      type: 'ready'
      /** Entries in sync (files, folders, symlinks). */
      entries: number
      toWorkspace: number
      toDisk: number
      ms: number
    }
  | { type: 'stopped' }

export type SyncEventHandler = (event: SyncEvent) => void
