import { AsyncLocalStorage } from 'node:async_hooks'
import { Bash } from 'just-bash'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createFileSystem } from './fs/yjs-file-system.js'
import { captureHostContext } from './host-context.js'

describe('captureHostContext', () => {
  it('runs functions in the async context it was captured in', () => {
    const als = new AsyncLocalStorage<string>()
    const host = als.run('host', () => captureHostContext())
    expect(als.run('script', () => host(() => als.getStore()))).toBe('host')
    expect(als.run('script', () => als.getStore())).toBe('script')
  })
})

// A provider reads the timer globals when it is made (y-websocket's connection check, an
// Awareness's renewal): just-bash's defence in depth blocks that in a script's context.
describe("the filesystem's transport hooks under just-bash's defence in depth", () => {
  it("a connect hook that starts a timer runs when a script's write opens the file's doc", async () => {
    // A provider of the docs' states in this process, with a timer as a real one has.
    const states = new Map<string, Uint8Array>()
    const timers = new Set<ReturnType<typeof setInterval>>()
    let connected = 0
    let destroyed = 0
    const fs = createFileSystem({
      idleMs: 0,
      maxIdle: 0,
      connect: (doc: Y.Doc) => {
        connected++
        const timer = setInterval(() => undefined, 60_000)
        timers.add(timer)
        const saved = states.get(doc.guid)
        if (saved) Y.applyUpdate(doc, saved)
        const keep = () => states.set(doc.guid, Y.encodeStateAsUpdate(doc))
        doc.on('update', keep)
        return {
          whenSynced: new Promise((synced) => setTimeout(synced, 1)),
          destroy: () => {
            destroyed++
            doc.off('update', keep)
            clearInterval(timer)
            timers.delete(timer)
          },
        }
      },
    })
    const bash = new Bash({ fs, cwd: '/' })
    const result = await bash.exec(
      'echo one > /a.txt; echo two >> /a.txt; cat /a.txt; sed -i s/one/ONE/ /a.txt; cat /a.txt',
    )
    expect(result.stderr).toBe('')
    expect(result.stdout).toBe('one\ntwo\nONE\ntwo\n')
    expect(result.exitCode).toBe(0)
    // Each doc was opened and closed again (no idle docs kept) from inside the script.
    expect(connected).toBeGreaterThan(1)
    expect(destroyed).toBeGreaterThan(0)
    for (const timer of timers) clearInterval(timer)
    fs.destroy()
  })

  it('the bulk hooks (store, load, update) may start timers too', async () => {
    const stored = new Map<string, Uint8Array>()
    let loaded = 0
    let updated = 0
    const later = <T>(value: T) => new Promise<T>((resolve) => setTimeout(() => resolve(value), 1))
    const fs = createFileSystem({
      connect: () => ({ whenSynced: Promise.resolve(), destroy() {} }),
      storeContent: (docs) => {
        for (const { id, update } of docs) stored.set(id, update)
        return later(undefined)
      },
      loadContent: (ids) => {
        loaded++
        return later(ids.map((id) => stored.get(id)))
      },
      updateContent: (docs) => {
        updated++
        for (const { id, update } of docs) {
          const before = stored.get(id)
          stored.set(id, before ? Y.mergeUpdates([before, update]) : update)
        }
        return later(undefined)
      },
    })
    const bash = new Bash({ fs, cwd: '/' })
    // In batches, as the agent's bash tool runs each command: new files go to the bulk store;
    // a later command's overwrites build on states loaded in bulk.
    const made = await fs.batch(() =>
      bash.exec('mkdir /d; for i in 1 2 3; do echo "line $i" > /d/f$i.txt; done; cat /d/f2.txt'),
    )
    expect(made.stderr).toBe('')
    expect(made.stdout).toBe('line 2\n')
    await fs.storePending()
    const result = await fs.batch(() => bash.exec('sed -i s/line/LINE/ /d/*.txt; cat /d/f3.txt'))
    expect(result.stderr).toBe('')
    expect(result.stdout).toBe('LINE 3\n')
    expect(stored.size).toBe(3)
    expect(loaded).toBeGreaterThan(0)
    expect(updated).toBeGreaterThan(0)
    fs.destroy()
  })
})
