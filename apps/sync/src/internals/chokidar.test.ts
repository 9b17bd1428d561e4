/**
 * Learning test of the chokidar internals the daemon relies on
 * (internals/chokidar.ts); it fails when chokidar changes them:
 *
 * - the version is the one they were learned on (4.0.3, pinned);
 * - `FSWatcher._closers` (private): `addDir` of a new folder comes before
 *   its watch, and `_closers` gets the folder's path once it is watched;
 *   from then on a file written in it is reported;
 * - the `raw` event (internal): a folder's fs.watch names the changed entry,
 *   with `{ watchedPath }`, also for files `ignored` keeps chokidar from
 *   watching, and for a chmod alone.
 *
 * The watcher is set up as the daemon's (watcher.ts): native events, files
 * ignored (folders only are watched).
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { type FSWatcher, watch } from 'chokidar'
import { afterEach, describe, expect, it } from 'vitest'
import { CHOKIDAR_VERSION, isWatching, onRawEntry, whenWatching } from './chokidar.js'

let watcher: FSWatcher | undefined
let root = ''
afterEach(async () => {
  await watcher?.close()
  watcher = undefined
  if (root) rmSync(root, { recursive: true, force: true })
})

/** A watcher of a new temp folder as the daemon's: native events, folders only. */
async function watchRoot(): Promise<FSWatcher> {
  root = mkdtempSync(join(tmpdir(), 'yfs-chokidar-'))
  const w = watch(root, {
    ignoreInitial: true,
    followSymlinks: false,
    ignored: (host, stats) => host !== root && stats !== undefined && !stats.isDirectory(),
  })
  watcher = w
  await new Promise<void>((resolve) => w.once('ready', () => resolve()))
  return w
}

/** Resolves with the first raw entry for which `match` holds (rejects after 5 s). */
function rawEntry(w: FSWatcher, match: (host: string) => boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no raw event')), 5000)
    onRawEntry(w, (host) => {
      if (!match(host)) return
      clearTimeout(timer)
      resolve(host)
    })
  })
}

describe('chokidar internals (learning test)', () => {
  it(`is chokidar ${CHOKIDAR_VERSION}`, () => {
    const entry = createRequire(import.meta.url).resolve('chokidar')
    const pkg = JSON.parse(readFileSync(join(dirname(entry), 'package.json'), 'utf8')) as { version: string }
    expect(pkg.version).toBe(CHOKIDAR_VERSION)
  })

  it('reports a new folder (addDir) before watching it; FSWatcher._closers has its path once it is watched', async () => {
    const w = await watchRoot()
    // The private field, by name: a Map of watched path → closers.
    expect(w._closers).toBeInstanceOf(Map)
    const folder = join(root, 'new')
    const watchedAtAddDir = new Promise<boolean>((resolve) =>
      w.on('addDir', (host) => {
        if (host === folder) resolve(isWatching(w, folder))
      }),
    )
    mkdirSync(folder)
    expect(await watchedAtAddDir).toBe(false)
    await whenWatching(w, folder)
    expect(w._closers.has(folder)).toBe(true)
    expect(isWatching(w, folder)).toBe(true)
    // From then on, a file written in it is reported by the folder's watch.
    const file = join(folder, 'f.txt')
    const seen = rawEntry(w, (host) => host === file)
    writeFileSync(file, 'x')
    expect(await seen).toBe(file)
  })

  it('names the entry of a folder’s raw event ({ watchedPath }), for an ignored file and a chmod alone', async () => {
    const w = await watchRoot()
    const file = join(root, 'run.sh')
    const created = rawEntry(w, (host) => host === file)
    writeFileSync(file, '#!/bin/sh\n')
    expect(await created).toBe(file)
    // Let the create's events pass, then a chmod alone (chokidar's own events drop it).
    await new Promise((r) => setTimeout(r, 100))
    const changedMode = rawEntry(w, (host) => host === file)
    chmodSync(file, 0o755)
    expect(await changedMode).toBe(file)
  })

  it('resolves whenWatching when the watcher closes first', async () => {
    const w = await watchRoot()
    const waiting = whenWatching(w, join(root, 'never'))
    await w.close()
    await expect(waiting).resolves.toBeUndefined()
  })
})
