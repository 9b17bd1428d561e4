import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
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
})
