/**
 * Change events: what happened to which path, after it was applied, for
 * local and remote changes alike. Derived from files-table changes, so a
 * change that never reached the table (a failed or rolled-back operation)
 * has no event. A folder move is one `rename` event for the folder, not one
 * per descendant (like inotify).
 */
import type { ConflictRegion } from '../content/three-way-merge.js'
import type { FileId } from '../ids.js'

/**
 * `merge`: a whole-file write from a stale instance merged changes it had not
 * seen; `conflict`: such a write overwrote part of them (the writer's version
 * of a region both changed won; `conflicts` says which lines, `versionId` which
 * history version keeps the replaced text). Both follow the `write` event of
 * the same write and are only seen by the writing instance.
 */
export type FsEventType = 'write' | 'delete' | 'rename' | 'mkdir' | 'restore' | 'merge' | 'conflict'

export interface FsEvent {
  type: FsEventType
  /** Path after the change (before it, for `delete`). */
  path: string
  /** Path before a `rename`. */
  oldPath?: string
  id: FileId
  size?: number
  origin: 'local' | 'remote'
  transactionId?: string
  /** `conflict`: line regions where the writer's version won (empty: the whole file was replaced). */
  conflicts?: ConflictRegion[]
  /** `conflict`: the history version holding the content the write replaced. */
  versionId?: string
}

export type FsEventHandler = (event: FsEvent) => void

export interface EventHub {
  readonly active: boolean
  subscribe(handler: FsEventHandler): () => void
  emit(event: FsEvent): void
}

export function createEventHub(): EventHub {
  const handlers = new Set<FsEventHandler>()
  return {
    get active() {
      return handlers.size > 0
    },
    subscribe(handler) {
      // Wrap so the same function can subscribe twice and unsubscribe each independently.
      const entry: FsEventHandler = (e) => handler(e)
      handlers.add(entry)
      return () => {
        handlers.delete(entry)
      }
    },
    emit(event) {
      for (const h of [...handlers]) {
        try {
          h(event)
        } catch (error) {
          // A failing subscriber must not break the write that triggered it or other subscribers.
          queueMicrotask(() => {
            throw error
          })
        }
      }
    },
  }
}
