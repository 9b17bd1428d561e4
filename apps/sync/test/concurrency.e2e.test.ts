/**
 * Disk and workspace edit one file at the same time (property): an editor
 * saves the whole file on disk while a client writes the whole file in the
 * workspace, each changing its own lines, in a random order, with pauses of
 * 0–150 ms between saves (mostly shorter than a change takes to reach the
 * other side, so saves cross changes in flight). Once both sides are quiet
 * they hold the same text, and every line holds the last edit its side made (the daemon merges disk saves against its
 * last synced text, and replaces a disk file only if it is still what it
 * read; the client's stale writes merge against what it read). The editor
 * runs in this process, so its saves land between any two steps of the
 * daemon's. With saves that close, a client's row update often loses the
 * row's last-writer-wins to the daemon's own write of that row (its content
 * edit is merged in the content doc all the same): the daemon looks at the
 * content of such a file (core's sync port reports it: `observeOutvoted`).
 *
 * Saves that close also land while the daemon reads the file it uploads or merges (its
 * editor is in the daemon's process): the daemon must read one version of the file, never the
 * new bytes cut at the old size (disk-read.ts). The cases the property found replay below, and
 * a save landing at a fixed step of the daemon's read.
 *
 * And one rename race: a file renamed on disk and in the workspace at once.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { waitFor } from './helpers.js'
import { syncedFolder } from './synced-folder.js'
import { bothSides, wsTree } from './two-sides.js'

// The daemon reads a file's bytes with openSync, then fstatSync for its size (disk-read.ts): a hook
// armed for a path runs right after that fstat (once), so an editor's save lands mid-read.
const afterSize = vi.hoisted(() => ({ path: '', fd: -1, run: undefined as (() => void) | undefined }))
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>()
  const openSync = ((...args: Parameters<typeof actual.openSync>) => {
    const fd = actual.openSync(...args)
    if (afterSize.run && String(args[0]) === afterSize.path) afterSize.fd = fd
    return fd
  }) as typeof actual.openSync
  const fstatSync = ((...args: Parameters<typeof actual.fstatSync>) => {
    const stats = actual.fstatSync(...args)
    if (afterSize.run && args[0] === afterSize.fd) {
      const run = afterSize.run
      afterSize.run = undefined
      afterSize.fd = -1
      run()
    }
    return stats
  }) as typeof actual.fstatSync
  return { ...actual, default: { ...actual, openSync, fstatSync }, openSync, fstatSync }
})

const t = syncedFolder('concurrency')

/** One save: which side, the line it changes (its own lines only), the pause after it (ms). */
interface Save {
  disk: boolean
  k: number
  pause: number
}

let run = 0

/**
 * A file of `n` lines, then `saves` in order: the editor saves the whole file on disk (the disk's
 * text with its own line changed), the client the whole file in the workspace. Once both sides
 * are quiet, both hold every line's last edit.
 */
async function saveRace(n: number, saves: Save[]): Promise<void> {
  const name = `f${run++}.txt`
  const lines = Array.from({ length: n }, (_, i) => `line ${i}`)
  const text = (ls: string[]) => `${ls.join('\n')}\n`
  await t.client.fs.writeFile(`/${name}`, text(lines))
  await waitFor(() => readDisk(name) === text(lines), `${name} on disk`)
  // Even lines belong to the disk editor, odd ones to the client.
  const expected = [...lines]
  for (const [s, save] of saves.entries()) {
    const own = save.disk ? 0 : 1
    const line = Math.min(own + 2 * save.k, n - 1 - ((n - 1 - own) % 2))
    const edit = `${save.disk ? 'disk' : 'client'} ${s} on ${line}`
    expected[line] = edit
    if (save.disk) {
      // The editor saves what it has on screen: the disk's text with its own line changed.
      const now = (readDisk(name) ?? text(lines)).split('\n').slice(0, n)
      now[line] = edit
      writeFileSync(join(t.dir, name), text(now))
    } else {
      const now = (await t.client.fs.readFile(`/${name}`)).split('\n').slice(0, n)
      now[line] = edit
      await t.client.fs.writeFile(`/${name}`, text(now))
    }
    if (save.pause > 0) await new Promise((r) => setTimeout(r, save.pause))
  }
  await bothAt(name, text(expected))
}

/** Wait until the disk and the workspace both hold `want` at `name`; the error shows both as last seen. */
async function bothAt(name: string, want: string): Promise<void> {
  let last = ''
  await waitFor(
    async () => {
      const disk = readDisk(name)
      const ws = await t.client.fs.readFile(`/${name}`)
      last = `disk ${JSON.stringify(disk)}, workspace ${JSON.stringify(ws)}`
      return disk === want && ws === want
    },
    `both sides of ${name} at ${JSON.stringify(want)}`,
    15_000,
  ).catch((error) => {
    // As the sides were when the wait gave up (not as the saves left them).
    throw new Error(`${String(error)} (${last})`)
  })
  await t.daemon.sync.idle()
  expect(readDisk(name)).toBe(want)
}

describe('concurrent whole-file saves on disk and in the workspace', () => {
  it('keep every line of both sides (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 10 }),
        // Saves in order: which side saves, the line it changes (its own lines only), the pause after.
        fc.array(
          fc.record({ disk: fc.boolean(), k: fc.nat(4), pause: fc.constantFrom(0, 0, 5, 20, 60, 150) }),
          {
            minLength: 1,
            maxLength: 8,
          },
        ),
        (n, saves) => saveRace(n, saves),
      ),
      // YFS_SYNC_RUNS raises the count for a longer search (e.g. with the CPU loaded).
      { numRuns: Number(process.env.YFS_SYNC_RUNS ?? 20) },
    )
  }, 600_000)

  it('keep every line of both sides in the cases the property found (replayed)', async () => {
    const found: [number, Save[]][] = [
      // CI, 2026-11-26 (seed -1326590205, path 16): saves right after each other on disk.
      [
        3,
        [
          { disk: true, k: 3, pause: 0 },
          { disk: true, k: 2, pause: 60 },
          { disk: true, k: 1, pause: 20 },
          { disk: false, k: 3, pause: 0 },
          { disk: false, k: 3, pause: 5 },
          { disk: true, k: 0, pause: 0 },
          { disk: true, k: 2, pause: 0 },
        ],
      ],
      // Under an injected delay at each step of the daemon: a save landed while the daemon read
      // the file to merge it, which read the new save cut at the old size.
      [
        8,
        [
          { disk: false, k: 3, pause: 60 },
          { disk: true, k: 2, pause: 150 },
          { disk: false, k: 3, pause: 150 },
          { disk: true, k: 1, pause: 20 },
          { disk: true, k: 4, pause: 60 },
          { disk: true, k: 0, pause: 0 },
        ],
      ],
    ]
    // Timing decides what they meet: a few times each.
    for (let i = 0; i < 3; i++) for (const [n, saves] of found) await saveRace(n, saves)
  }, 120_000)

  it('keep every line of both sides when a disk save lands while the daemon reads the file', async () => {
    const name = 'mid-read.txt'
    const host = join(t.dir, name)
    const lines = ['line 0', 'line 1', 'line 2']
    const text = (ls: string[]) => `${ls.join('\n')}\n`
    await t.client.fs.writeFile(`/${name}`, text(lines))
    await waitFor(() => readDisk(name) === text(lines), `${name} on disk`)
    await t.daemon.sync.idle()
    // The editor's second save (a longer text) lands as the daemon reads its first: right after
    // the daemon took the file's size. Meanwhile the client changes its own line.
    let landed = false
    afterSize.path = host
    afterSize.run = () => {
      writeFileSync(host, text(['disk 0 on 0', 'line 1', 'disk 1 on 2, a longer line']))
      landed = true
    }
    writeFileSync(host, text(['disk 0 on 0', 'line 1', 'line 2']))
    await t.client.fs.writeFile(`/${name}`, text(['line 0', 'client 2 on 1', 'line 2']))
    await bothAt(name, text(['disk 0 on 0', 'client 2 on 1', 'disk 1 on 2, a longer line']))
    expect(landed).toBe(true)
  })

  it('a file renamed on disk and in the workspace at once ends as the same files on both sides', async () => {
    await t.client.fs.mkdir('/both-renamed')
    await t.client.fs.writeFile('/both-renamed/f2.txt', 'moved twice\n')
    await waitFor(() => readDisk('both-renamed/f2.txt') === 'moved twice\n', 'f2 on disk')
    await t.daemon.sync.idle()
    // The disk rename waits out the daemon's debounce; the workspace rename lands meanwhile.
    renameSync(join(t.dir, 'both-renamed/f2.txt'), join(t.dir, 'both-renamed/f0.txt'))
    await new Promise((r) => setTimeout(r, 20))
    // Refused (ENOENT) when the daemon moved the file in the workspace first: then only its name is left.
    const clientMoved = await t.client.fs.mv('/both-renamed/f2.txt', '/both-renamed/f1.txt').then(
      () => true,
      () => false,
    )
    await bothSides(t.dir, t.client.fs, 'both-renamed', { timeoutMs: 10_000 })
    // Nothing lost: one file (when one move reached the other side first, it is one row moved twice,
    // and the later name wins) or two (the workspace moved it first: the disk's new path is new).
    const files = await wsTree(t.client.fs, 'both-renamed')
    expect(Object.keys(files).length).toBeGreaterThan(0)
    for (const text of Object.values(files)) expect(text).toBe('moved twice\n')
    if (!clientMoved) expect(Object.keys(files)).toEqual(['both-renamed/f0.txt'])
  })
})

function readDisk(name: string): string | undefined {
  try {
    return readFileSync(join(t.dir, name), 'utf8')
  } catch {
    return undefined
  }
}
