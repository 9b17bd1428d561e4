/**
 * A disk file that goes away while the daemon is about to merge it, through a real `yfs serve`.
 *
 * The case (found by the tree property in `tree-concurrency.e2e.test.ts` under heavy CPU load): a
 * client creates `c.txt` while an editor creates `c.txt` on disk and renames it to `a.txt` right
 * after. The daemon, writing the workspace's `c.txt` to disk, finds the new disk file there and
 * merges the two; the rename lands between its look at the disk and its read for the merge. The
 * workspace's `c.txt` must still reach the disk (and the disk's file becomes `a.txt`).
 *
 * The editor's rename is real; only its moment is fixed: it runs when the daemon reads that file
 * (a pass-through `openSync`, the daemon's read of a file's bytes, that renames first, once, when
 * armed).
 */
import { existsSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { nextMillisecond, waitFor } from './helpers.js'
import { syncedFolder } from './synced-folder.js'
import { bothSides } from './two-sides.js'

// The daemon reads a file's bytes in one synchronous step (disk-read.ts), opened with `openSync`:
// a hook armed for a path runs right before it (once).
const beforeRead = vi.hoisted(() => new Map<string, () => void>())
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>()
  const openSync = ((...args: Parameters<typeof actual.openSync>) => {
    const hook = beforeRead.get(String(args[0]))
    beforeRead.delete(String(args[0]))
    hook?.()
    return actual.openSync(...args)
  }) as typeof actual.openSync
  return { ...actual, default: { ...actual, openSync }, openSync }
})
// The daemon's upload of a disk file starts with an lstat of it (to-workspace.ts): an async hook
// armed for a path runs before it (once), while the daemon waits.
const beforeUpload = vi.hoisted(() => new Map<string, () => Promise<void>>())
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>()
  const lstat = ((path: Parameters<typeof actual.lstat>[0], ...rest: []) => {
    const hook = beforeUpload.get(String(path))
    if (!hook) return actual.lstat(path, ...rest)
    beforeUpload.delete(String(path))
    return hook().then(() => actual.lstat(path, ...rest))
  }) as typeof actual.lstat
  return { ...actual, default: { ...actual, lstat }, lstat }
})

// A long debounce: the daemon takes the workspace's file (a remote pass) before it looks at the
// disk's events, the order the property found.
const t = syncedFolder('vanished', { debounceMs: 1_000 })

describe('a new disk file renamed while the daemon merges it with a new workspace file of its name', () => {
  it('still writes the workspace file to disk', async () => {
    await t.client.fs.mkdir('/v1')
    await waitFor(() => existsSync(join(t.dir, 'v1')), 'v1 on disk')
    const host = join(t.dir, 'v1/c.txt')
    let renamed = false
    beforeRead.set(host, () => {
      renameSync(host, join(t.dir, 'v1/a.txt'))
      renamed = true
    })
    writeFileSync(host, 'from disk\n')
    await t.client.fs.writeFile('/v1/c.txt', 'from the workspace\n')
    const want = { 'v1/a.txt': 'from disk\n', 'v1/c.txt': 'from the workspace\n' }
    await bothSides(t.dir, t.client.fs, 'v1', { want, timeoutMs: 10_000 })
    // The rename landed where the property found it: as the daemon read the file to merge it.
    expect(renamed).toBe(true)
  })
})

describe('a disk file renamed after a namesake created on the other side took its name', () => {
  it('moves its own row, not the namesake (which stays and reaches the disk)', async () => {
    await t.client.fs.mkdir('/v2')
    await waitFor(() => existsSync(join(t.dir, 'v2')), 'v2 on disk')
    t.client.socket.disconnect()
    // Created first (offline), so once both meet core shows it as `c.txt` and the disk's as `c (1).txt`.
    await t.client.fs.writeFile('/v2/c.txt', 'from the workspace\n')
    await nextMillisecond()
    writeFileSync(join(t.dir, 'v2/c.txt'), 'from disk\n')
    await waitFor(() => t.daemon.connection.fs.index.lookup('/v2/c.txt') !== undefined, 'the upload', 15_000)
    await t.daemon.connection.flush(10_000)
    // The editor renames `c.txt` to `a.txt`; the daemon's pass over that rename starts with an
    // unrelated new file (shallower, so first), and while it uploads that file the client comes back:
    // the daemon's workspace shows the client's file as `c.txt` before the daemon looks at the rename.
    let met = false
    beforeUpload.set(join(t.dir, 'v2-first.txt'), async () => {
      await t.client.socket.connect()
      await t.client.flush(10_000)
      await waitFor(() => t.daemon.connection.fs.index.lookup('/v2/c (1).txt') !== undefined, 'both rows')
      met = true
    })
    writeFileSync(join(t.dir, 'v2-first.txt'), 'first\n')
    renameSync(join(t.dir, 'v2/c.txt'), join(t.dir, 'v2/a.txt'))
    const want = { 'v2/a.txt': 'from disk\n', 'v2/c.txt': 'from the workspace\n' }
    await bothSides(t.dir, t.client.fs, 'v2', { want, timeoutMs: 10_000 })
    expect(met).toBe(true)
  })
})
