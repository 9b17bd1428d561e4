/**
 * Disk and workspace edit one file at the same time (property): an editor
 * saves the whole file on disk while a client writes the whole file in the
 * workspace, each changing its own lines, in a random order, with pauses of
 * 0–150 ms between saves, so that saves cross the other side's changes in
 * flight. Once both sides are quiet they hold the same text, and every line
 * holds the last edit its side made (the daemon merges disk saves against its
 * last synced text, and replaces a disk file only if it is still what it
 * read; the client's stale writes merge against what it read). The editor
 * runs in this process, so its saves land between any two steps of the
 * daemon's.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { WorkspaceConnection } from '@yfs/client'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SyncTestEnv, startEnv, tempDir, waitFor } from './helpers.js'

let env: SyncTestEnv
let dir: string
let client: WorkspaceConnection
let daemon: Awaited<ReturnType<SyncTestEnv['startSync']>>

beforeAll(async () => {
  env = await startEnv()
  const ws = await env.workspace('concurrency')
  dir = tempDir()
  env.dirs.push(dir)
  daemon = await env.startSync(ws, dir)
  client = await env.connect(ws)
})
afterAll(async () => {
  await env?.close()
})

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
          await client.fs.writeFile(`/${name}`, text(lines))
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
              writeFileSync(join(dir, name), text(now))
            } else {
              const now = (await client.fs.readFile(`/${name}`)).split('\n').slice(0, n)
              now[line] = edit
              await client.fs.writeFile(`/${name}`, text(now))
            }
            if (save.pause > 0) await new Promise((r) => setTimeout(r, save.pause))
          }
          await waitFor(
            async () =>
              readDisk(name) === text(expected) && (await client.fs.readFile(`/${name}`)) === text(expected),
            `both sides of ${name} at ${JSON.stringify(expected)} (disk ${JSON.stringify(readDisk(name))}, client ${JSON.stringify(await client.fs.readFile(`/${name}`))})`,
            15_000,
          )
          await daemon.sync.idle()
          expect(readDisk(name)).toBe(text(expected))
        },
      ),
      { numRuns: 40 },
    )
  }, 180_000)
})

function readDisk(name: string): string | undefined {
  try {
    return readFileSync(join(dir, name), 'utf8')
  } catch {
    return undefined
  }
}
