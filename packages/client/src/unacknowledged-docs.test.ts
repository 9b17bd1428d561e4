import { afterEach, describe, expect, it, vi } from 'vitest'
import type { DocPersistence } from './persistence.js'
import { loadUnacknowledgedDocs, UNACKNOWLEDGED_DOCS_KEY } from './unacknowledged-docs.js'

/** A store's key–value part, recording every write. */
function metaStore(initial?: unknown, failWrites = false) {
  const values = new Map<string, unknown>(initial === undefined ? [] : [[UNACKNOWLEDGED_DOCS_KEY, initial]])
  const writes: unknown[] = []
  const store: DocPersistence = {
    whenLoaded: Promise.resolve(),
    destroy: () => undefined,
    get: async (key) => values.get(key),
    set: async (key, value) => {
      if (failWrites) throw new Error('quota exceeded')
      writes.push(value)
      values.set(key, value)
    },
  }
  return { store, values, writes }
}

describe('unacknowledged docs list', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  it('starts from what the store holds, ignoring anything that is not a list of ids', async () => {
    expect((await loadUnacknowledgedDocs(metaStore(['a', 'b']).store)).ids()).toEqual(['a', 'b'])
    expect((await loadUnacknowledgedDocs(metaStore(['a', 7, null]).store)).ids()).toEqual(['a'])
    expect((await loadUnacknowledgedDocs(metaStore('a,b').store)).ids()).toEqual([])
    expect((await loadUnacknowledgedDocs(undefined)).ids()).toEqual([])
  })

  it('writes an id at once when it is added, and once only', async () => {
    const { store, values, writes } = metaStore()
    const list = await loadUnacknowledgedDocs(store)
    list.add('a')
    list.add('a')
    list.add('b')
    await list.saved()
    expect(values.get(UNACKNOWLEDGED_DOCS_KEY)).toEqual(['a', 'b'])
    expect(writes).toHaveLength(2)
  })

  it('forgets an acknowledged id after a while, unless a new change comes first', async () => {
    vi.useFakeTimers()
    const { store, values, writes } = metaStore()
    const list = await loadUnacknowledgedDocs(store)
    list.add('typing')
    list.acknowledged('typing')
    await vi.advanceTimersByTimeAsync(500)
    list.add('typing') // the next keystroke: still listed, nothing written
    list.acknowledged('typing')
    await vi.advanceTimersByTimeAsync(999)
    expect(list.ids()).toEqual(['typing'])
    await vi.advanceTimersByTimeAsync(1)
    await list.saved()
    expect(list.ids()).toEqual([])
    expect(values.get(UNACKNOWLEDGED_DOCS_KEY)).toEqual([])
    expect(writes).toEqual([['typing'], []])
  })

  it('close writes pending removals; delete removes at once', async () => {
    const { store, values } = metaStore(['x', 'y'])
    const list = await loadUnacknowledgedDocs(store)
    list.acknowledged('x')
    list.delete('y')
    await list.close()
    expect(values.get(UNACKNOWLEDGED_DOCS_KEY)).toEqual([])
  })

  it('a store that cannot write keeps the list in memory and does not throw', async () => {
    const { store } = metaStore(undefined, true)
    const list = await loadUnacknowledgedDocs(store)
    list.add('a')
    await expect(list.saved()).resolves.toBeUndefined()
    expect(list.ids()).toEqual(['a'])
  })
})
