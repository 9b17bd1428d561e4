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
 * And one rename race: a file renamed on disk and in the workspace at once.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { waitFor } from './helpers.js'
import { syncedFolder } from './synced-folder.js'
import { bothSides, wsTree } from './two-sides.js'

const t = syncedFolder('concurrency')

describe('concurrent whole-file saves on disk and in the workspace', () => {
  it('keep every line of both sides (property)', async () => {
    let run = 0
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
        async (n, saves) => {
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
          await waitFor(
            async () =>
              readDisk(name) === text(expected) &&
              (await t.client.fs.readFile(`/${name}`)) === text(expected),
            `both sides of ${name} at ${JSON.stringify(expected)} (disk ${JSON.stringify(readDisk(name))}, client ${JSON.stringify(await t.client.fs.readFile(`/${name}`))})`,
            15_000,
          )
          await t.daemon.sync.idle()
          expect(readDisk(name)).toBe(text(expected))
        },
      ),
      // YFS_SYNC_RUNS raises the count for a longer search (e.g. with the CPU loaded).
      { numRuns: Number(process.env.YFS_SYNC_RUNS ?? 20) },
    )
  }, 600_000)

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
