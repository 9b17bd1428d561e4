/**
 * Disk events in: a chokidar 4 watcher over the root (native fs.watch, no
 * polling unless asked), reporting the virtual path of everything that
 * changed. It does not say *what* changed: the daemon looks at the disk
 * itself when it processes a path, so a lost or reordered event only costs
 * a look, never a wrong operation.
 *
 * Ignored paths (ignore rules, the daemon's temp files) are filtered before
 * chokidar descends into them, so `node_modules/` costs no watches.
 *
 * On native events only folders are watched (one fs.watch, i.e. one inotify
 * watch, per folder): a folder's watch reports each change of an entry —
 * created, written, chmod, deleted, renamed — as a raw event naming it, so
 * files are reported through their folder's raw events, not chokidar's
 * add/change/unlink (which need a watch and a second lstat per file). With
 * polling there are no raw events, and chokidar polls each file as before.
 */
import { sep } from 'node:path'
import { type FSWatcher, watch } from 'chokidar'
import { onRawEntry, whenWatching } from './internals/chokidar.js'
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
  const polling = options.usePolling ?? false
  const watcher: FSWatcher = watch(root, {
    ignoreInitial: true,
    followSymlinks: false,
    usePolling: polling,
    ignored: (host, stats) => {
      if (host === root) return false
      // Native events watch folders only: a folder's watch reports every change of its entries
      // (create, write, chmod, delete, rename) as a raw event naming the entry, which is all the
      // daemon needs. A watch and a second lstat per file (chokidar's way) cost ~0.1 ms each at
      // start-up, for 10,000 files most of the watcher's start. Polling has no raw events: it
      // keeps chokidar's per-file watches.
      if (!polling && stats && !stats.isDirectory()) return true
      return options.ignored(toVirtualPath(root, host), stats ? stats.isDirectory() : undefined)
    },
  })
  const report = (host: string) => options.onChange(toVirtualPath(root, host))
  for (const event of ['add', 'change', 'unlink', 'addDir', 'unlinkDir'] as const) watcher.on(event, report)
  // Native events chokidar drops: a chmod changes neither size nor mtime (chokidar compares times),
  // and a symlink whose target does not resolve is never reported. The raw events have them; the
  // daemon looks at the disk for each path anyway. A per-file watch reports the file's own name,
  // a folder's watch its entry's name (internals/chokidar.ts).
  onRawEntry(watcher, (host) => {
    if (host === root || !host.startsWith(`${root}${sep}`)) return
    const path = toVirtualPath(root, host)
    if (!options.ignored(path, undefined)) options.onChange(path)
  })
  // A new folder: chokidar reads it and only then watches it, and reports none of the files it
  // read (files are ignored, above), so a file created in it before its watch was never reported
  // (a file saved into a folder the daemon had just created stayed off the workspace for good).
  // Once the folder's watch is there (nothing public says when: internals/chokidar.ts), it is
  // reported again: the daemon looks at its entries.
  if (!polling)
    watcher.on('addDir', (host) => {
      void whenWatching(watcher, host).then(() => {
        if (!watcher.closed) report(host)
      })
    })
  watcher.on('error', options.onError)
  const ready = new Promise<void>((resolve) => watcher.once('ready', () => resolve()))
  return {
    ready,
    close: () => watcher.close(),
  }
}
