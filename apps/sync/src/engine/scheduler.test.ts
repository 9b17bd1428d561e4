/**
 * The scheduler's `idle()`: a promise resolved by the events that drain the
 * engine (a task finishing, a metadata write), not a poll; it waits for the
 * serial queue, the dirty sets and their timers, and the batched metadata,
 * and rejects after its timeout when something stays pending.
 */
import type { FileId, SyncPort, YjsFileSystem } from '@yfs/core'
import { describe, expect, it } from 'vitest'
import type { IgnoreRules } from '../ignore-rules.js'
import type { SyncState } from '../sync-state.js'
import { createEngine, type LivePasses, type SyncEngine } from './engine.js'
import { diskChanged, enqueue, idle, remoteChanged, setMeta } from './scheduler.js'

function testEngine(passes: Partial<LivePasses> = {}) {
  const written: Map<FileId, unknown>[] = []
  const port = {
    setMetadata: (patches: Map<FileId, unknown>) => written.push(patches),
  } as unknown as SyncPort
  const engine: SyncEngine = createEngine({
    dir: '/nowhere',
    fs: {} as YjsFileSystem,
    port,
    state: {} as SyncState,
    rules: {} as IgnoreRules,
    onEvent: undefined,
    debounceMs: 20,
    moveWindowMs: 50,
    concurrency: 1,
    usePolling: false,
    passes: {
      disk: async () => engine.diskDirty.clear(),
      remote: async () => engine.wsDirty.clear(),
      deletes: async () => engine.pendingDeletes.clear(),
      ...passes,
    },
    close: async () => undefined,
  })
  engine.live = true
  return { engine, written }
}

const order = (log: string[], what: string) => () => {
  log.push(what)
}

describe('idle()', () => {
  it('resolves at once when nothing is pending', async () => {
    const { engine } = testEngine()
    await expect(idle(engine, 10)).resolves.toBeUndefined()
  })

  it('resolves when the queue drains, after the last task', async () => {
    const { engine } = testEngine()
    const log: string[] = []
    let release = () => {}
    void enqueue(engine, () => new Promise<void>((r) => (release = r)).then(order(log, 'first')))
    void enqueue(engine, async () => order(log, 'second')())
    const waiting = idle(engine, 5000).then(order(log, 'idle'))
    await new Promise((r) => setTimeout(r, 30))
    expect(log).toEqual([])
    release()
    await waiting
    expect(log).toEqual(['first', 'second', 'idle'])
  })

  it('waits for dirty paths and ids through their timers and passes', async () => {
    const log: string[] = []
    const { engine } = testEngine({
      disk: async () => {
        log.push('disk pass')
        engine.diskDirty.clear()
      },
      remote: async () => {
        log.push('remote pass')
        engine.wsDirty.clear()
      },
    })
    diskChanged(engine, '/a.txt')
    remoteChanged(engine, 'id1' as FileId)
    await idle(engine, 5000)
    expect(log.sort()).toEqual(['disk pass', 'remote pass'])
  })

  it('waits for batched metadata to be written', async () => {
    const { engine, written } = testEngine()
    void setMeta(engine, 'id1' as FileId, { updatedAt: 1 })
    void setMeta(engine, 'id2' as FileId, { mode: 0o755 })
    await idle(engine, 5000)
    expect(written).toEqual([
      new Map([
        ['id1', { updatedAt: 1 }],
        ['id2', { mode: 0o755 }],
      ]),
    ])
  })

  it('rejects after its timeout while something stays pending', async () => {
    const { engine } = testEngine()
    void enqueue(engine, () => new Promise<void>(() => {}))
    await expect(idle(engine, 50)).rejects.toThrow('sync did not become idle in time')
  })
})
