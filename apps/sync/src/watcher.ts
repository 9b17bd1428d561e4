/**
 * Disk events in: a chokidar 4 watcher over the root (native fs.watch, no
 * polling unless asked), reporting the virtual path of everything that
 * changed. It does not say *what* changed: the daemon looks at the disk
 * itself when it processes a path, so a lost or reordered event only costs
 * a look, never a wrong operation.
 *
 * Ignored paths (ignore rules, the daemon's temp files) are filtered before
 * chokidar descends into them, so `node_modules/` costs no watches.
 */
import { basename, join, sep } from 'node:path'
import { type FSWatcher, watch } from 'chokidar'
import { toVirtualPath } from './root-guard.js'

export interface WatchFolderOptions {
  /** True when the virtual path should not be watched. `isDir` is unknown before the first stat. */
  ignored(path: string, isDir: boolean | undefined): boolean
  /** A path (virtual) changed: created, written, deleted, or its mode changed. */
  onChange(path: string): void
  onError(error: unknown): void
  /** Poll instead of native events (network filesystems). Default false. */
  usePolling?: boolean
}

export interface FolderWatcher {
  /** Resolves once the initial scan of the watcher is done. */
  readonly ready: Promise<void>
  close(): Promise<void>
}

/** Watch `root` (host path, absolute). */
export function watchFolder(root: string, options: WatchFolderOptions): FolderWatcher {
  const watcher: FSWatcher = watch(root, {
    ignoreInitial: true,
    followSymlinks: false,
    usePolling: options.usePolling ?? false,
    ignored: (host, stats) => {
      if (host === root) return false
      return options.ignored(toVirtualPath(root, host), stats ? stats.isDirectory() : undefined)
    },
  })
  const report = (host: string) => options.onChange(toVirtualPath(root, host))
  for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const) watcher.on(event, report)
  // Native events chokidar drops: a chmod changes neither size nor mtime (chokidar compares times),
  // and a symlink whose target does not resolve is never reported. The raw events have them; the
  // daemon looks at the disk for each path anyway. A per-file watch reports the file's own name,
  // a folder's watch its entry's name (for a folder `a` holding `a`, both are looked at).
  watcher.on('raw', (_event, name, details) => {
    const watched = (details as { watchedPath?: unknown } | undefined)?.watchedPath
    if (!name || typeof watched !== 'string') return
    const hosts = basename(watched) === name ? [watched, join(watched, name)] : [join(watched, name)]
    for (const host of hosts) {
      if (host === root || !host.startsWith(`${root}${sep}`)) continue
      const path = toVirtualPath(root, host)
      if (!options.ignored(path, undefined)) options.onChange(path)
    }
  })
  watcher.on('error', options.onError)
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  return {
    ready,
    close: () => watcher.close(),
  }
}
