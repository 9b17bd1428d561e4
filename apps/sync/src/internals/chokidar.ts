/**
 * chokidar internals the daemon relies on, in one place (watcher.ts uses
 * chokidar's public API for the rest: `watch`, `ignored`, the `ready`,
 * `add`/`change`/`unlink`, `addDir`/`unlinkDir` and `error` events, `closed`,
 * `close()`).
 *
 * - When a new folder is watched: `addDir` is emitted before chokidar reads
 *   the folder and sets its fs.watch, and nothing public tells when the watch
 *   is there. The private `_closers` map (path → closers) gets the folder's
 *   path right after its fs.watch is set (`isWatching`).
 * - The `raw` event (documented as internal): the fs.watch event's file name
 *   and `{ watchedPath }`, the path whose watch reported it (`onRawEntry`).
 *
 * The learning test beside this module (chokidar.test.ts) names both and
 * fails when chokidar changes them; package.json pins the version.
 */
import { basename, join } from 'node:path'
import type { FSWatcher } from 'chokidar'

/** The chokidar version these internals were learned on (pinned in package.json; the learning test checks it). */
export const CHOKIDAR_VERSION = '4.0.3'

/** True once chokidar watches the folder `host` itself: its private `_closers` has the folder's path. */
export function isWatching(watcher: FSWatcher, host: string): boolean {
  return watcher._closers.has(host)
}

/**
 * Resolves once chokidar watches the folder `host` (`isWatching`), the watcher closed, or
 * `timeoutMs` passed, whichever is first. chokidar has no event for it: checked every 5 ms,
 * for the few ms between a folder's `addDir` and its watch.
 */
export function whenWatching(watcher: FSWatcher, host: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  return new Promise((resolve) => {
    const check = () => {
      if (watcher.closed || isWatching(watcher, host) || Date.now() > deadline) resolve()
      else setTimeout(check, 5)
    }
    check()
  })
}

/**
 * Calls `fn` with the host path of the entry each raw event names. A folder's watch names an
 * entry of the folder; a file's own watch (with polling) names the file itself, so for a folder
 * `a` holding `a` both are given.
 */
export function onRawEntry(watcher: FSWatcher, fn: (host: string) => void): void {
  watcher.on('raw', (_event, name, details) => {
    const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath
    if (!name || typeof watched !== 'string') return
    if (basename(watched) === name) fn(watched)
    fn(join(watched, name))
  })
}
