/**
 * The workspace's activity log as Svelte state: every entry (newest first, core's order), re-read
 * at most once per frame after the log changes on any replica. Components read `entries` and the
 * distinct `people` and `sessions` for filters; they never touch the Y.Array.
 */
import { ACTIVITY_KEY, type ActivityEntry, attachActivityLog, type YjsFileSystem } from '@yfs/core'

export interface ActivityFilters {
  who?: string
  session?: string
  /** Entries that changed something at or below this path. */
  path?: string
}

export class ActivityFeed {
  entries = $state.raw<ActivityEntry[]>([])
  readonly log
  #frame = 0
  #stop: () => void

  constructor(readonly fs: YjsFileSystem) {
    this.log = attachActivityLog(fs.doc)
    const array = fs.doc.getArray(ACTIVITY_KEY)
    const changed = () => {
      if (this.#frame) return
      this.#frame = requestAnimationFrame(() => {
        this.#frame = 0
        this.refresh()
      })
    }
    array.observe(changed)
    this.#stop = () => array.unobserve(changed)
    this.refresh()
  }

  refresh(): void {
    this.entries = this.log.list()
  }

  /** Entries matching `filters`, newest first. */
  filtered(filters: ActivityFilters): ActivityEntry[] {
    const path = filters.path?.trim()
    const prefix = path ? (path.startsWith('/') ? path : `/${path}`) : undefined
    const byPath = prefix ? new Set(this.log.list({ pathPrefix: prefix }).map((e) => e.id)) : undefined
    return this.entries.filter(
      (e) =>
        (!filters.who || e.who === filters.who) &&
        (!filters.session || e.session === filters.session) &&
        (!byPath || byPath.has(e.id)),
    )
  }

  destroy(): void {
    if (this.#frame) cancelAnimationFrame(this.#frame)
    this.#stop()
  }
}
