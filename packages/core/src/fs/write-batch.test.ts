import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { MAX_STATE_PARTS } from './content-state.js'
import { createFileSystem } from './yjs-file-system.js'

/**
 * A server in this process: content docs' states by id, reached through each doc's `connect`
 * and through the bulk hooks; `gate` holds the next loads until it is opened.
 */
function serverInProcess() {
  const states = new Map<string, Uint8Array>()
  const merge = (id: string, update: Uint8Array) => {
    const before = states.get(id)
    states.set(id, before ? Y.mergeUpdates([before, update]) : update)
  }
  let gate: Promise<void> | undefined
  let open = () => {}
  return {
    states,
    merge,
    hold() {
      gate = new Promise((resolve) => {
        open = () => {
          gate = undefined
          resolve()
        }
      })
    },
    release: () => open(),
    async load(ids: string[]) {
      if (gate) await gate
      return ids.map((id) => states.get(id))
    },
  }
}

describe('bulk updates of a batch', () => {
  it('an overwrite whose fetch was still out when an earlier bulk update was refused goes through its doc, not in bulk again', async () => {
    const server = serverInProcess()
    let updateCalls = 0
    const fs = createFileSystem({
      connect: (doc: Y.Doc) => {
        const saved = server.states.get(doc.guid)
        if (saved) Y.applyUpdate(doc, saved)
        const send = (update: Uint8Array, origin: unknown) => {
          if (origin !== 'server') server.merge(doc.guid, update)
        }
        doc.on('update', send)
        return { whenSynced: Promise.resolve(), destroy: () => doc.off('update', send) }
      },
      storeContent: async (docs) => {
        for (const { id, update } of docs) server.merge(id, update)
      },
      loadContent: (ids) => server.load(ids),
      updateContent: async () => {
        updateCalls++
        throw new Error('refused')
      },
    })
    await fs.writeTree([
      { path: '/a.txt', content: 'a\n' },
      { path: '/b/b.txt', content: 'b\n' },
    ])
    await fs.storePending()
    fs.pool.evictIdle(true)
    await fs.batch(async () => {
      await fs.writeFile('/a.txt', 'A\n')
      // b's state is being fetched while a's update is sent and refused.
      server.hold()
      const writingB = fs.writeFile('/b/b.txt', 'B\n')
      await fs.storePending()
      expect(updateCalls).toBe(1)
      server.release()
      await writingB
    })
    await fs.storePending()
    // Paused after the refusal: b's update went through its doc, as a's did after the refusal.
    expect(updateCalls).toBe(1)
    const textOf = (path: string) => {
      const doc = new Y.Doc()
      Y.applyUpdate(doc, server.states.get(fs.index.lookup(path)!)!)
      return doc.getText('text').toString()
    }
    expect(textOf('/a.txt')).toBe('A\n')
    expect(textOf('/b/b.txt')).toBe('B\n')
    fs.destroy()
  })

  it('calls over the same files in bulk build on the states the last calls left, decoded again from their chains of changes (each encoded whole again within MAX_STATE_PARTS parts)', async () => {
    // A server with heads: a doc's head is its log's length; a state asked for since its head
    // comes back without its state, so each call builds on the state the call before left.
    const logs = new Map<string, Uint8Array[]>()
    const headOf = (id: string) => String(logs.get(id)?.length ?? 0)
    const append = (id: string, update: Uint8Array) => logs.set(id, [...(logs.get(id) ?? []), update])
    const stateOf = (id: string) => {
      const log = logs.get(id)
      return log && Y.mergeUpdates(log)
    }
    let statesSent = 0
    const connect = (doc: Y.Doc) => {
      const saved = stateOf(doc.guid)
      if (saved) Y.applyUpdate(doc, saved, 'server')
      const send = (update: Uint8Array, origin: unknown) => {
        if (origin !== 'server') append(doc.guid, update)
      }
      doc.on('update', send)
      return { whenSynced: Promise.resolve(), destroy: () => doc.off('update', send) }
    }
    const server = {
      connect,
      storeContent: async (docs: { id: string; update: Uint8Array }[]) =>
        docs.map(({ id, update }) => {
          append(id, update)
          return headOf(id)
        }),
      updateContent: async (docs: { id: string; update: Uint8Array; base?: string }[]) =>
        docs.map(({ id, update, base }) => {
          const onBase = base !== undefined && base === headOf(id)
          append(id, update)
          return onBase ? headOf(id) : undefined
        }),
      loadContent: async (ids: string[], since?: readonly (string | undefined)[]) =>
        ids.map((id, k) => {
          if (!logs.has(id)) return undefined
          if (since?.[k] === headOf(id)) return { state: undefined, head: headOf(id) }
          statesSent++
          return { state: stateOf(id), head: headOf(id) }
        }),
    }
    // The states a call decoded are dropped as soon as it ends: each call decodes the state the
    // last one left (a chain of changes until merged) instead of taking its doc.
    const fs = createFileSystem({ ...server, keepDecodedMs: 0 })
    const paths = Array.from({ length: 8 }, (_, i) => `/d/f${i}.txt`)
    await fs.writeTree(paths.map((path) => ({ path, content: 'line 0\n' })))
    await fs.storePending()
    const calls = MAX_STATE_PARTS + 8
    // Each call rewrites every file twice (the second write builds on the first's pending state),
    // lines changed and removed as well as added.
    const contentAt = (call: number, path: string) =>
      Array.from({ length: 1 + (call % 5) }, (_, line) => `${path} call ${call} line ${line}`).join('\n')
    for (let call = 1; call <= calls; call++) {
      await fs.batch(async () => {
        for (const path of paths) await fs.writeFile(path, `draft ${call}`)
        for (const path of paths) await fs.writeFile(path, contentAt(call, path))
      })
      await fs.storePending()
      if (call === 1) statesSent = 0
    }
    // After the first call every state was the one the call before left, at its head.
    expect(statesSent).toBe(0)
    for (const path of paths) expect(await fs.readFile(path)).toBe(contentAt(calls, path))
    // What the server stored reads back the same, and every write made a version.
    for (const path of paths) {
      const id = fs.index.lookup(path)!
      const doc = new Y.Doc()
      Y.applyUpdate(doc, stateOf(id)!)
      expect(doc.getText('text').toString()).toBe(contentAt(calls, path))
      doc.destroy()
      expect((await fs.history(path)).length).toBe(1 + 2 * calls)
    }
    fs.destroy()
  })
})
