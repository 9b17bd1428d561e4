import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { asFileId } from '../ids.js'
import { ContentDocPool } from './doc-pool.js'

const id = asFileId('f1')

describe('ContentDocPool', () => {
  it('shares one doc per id, counts references, and opens docs with guid = id and gc off', async () => {
    const pool = new ContentDocPool()
    const a = await pool.acquire(id)
    const b = await pool.acquire(id)
    expect(a.doc).toBe(b.doc)
    expect(a.doc.guid).toBe('f1')
    expect(a.doc.gc).toBe(false)
    expect(pool.refCount(id)).toBe(2)
    a.release()
    a.release() // twice is a no-op
    expect(pool.refCount(id)).toBe(1)
    b.release()
    expect(pool.refCount(id)).toBe(0)
    expect(pool.peek(id)).toBe(a.doc) // idle but warm
  })

  it('evicts idle docs and, without a provider, keeps their content', async () => {
    const pool = new ContentDocPool({ idleMs: 0 })
    {
      using h = await pool.acquire(id)
      h.doc.getText('text').insert(0, 'kept')
    }
    expect(pool.peek(id)).toBeUndefined()
    const again = await pool.acquire(id)
    expect(again.doc.getText('text').toString()).toBe('kept')
    again.release()
  })

  it('keeps at most maxIdle idle docs', async () => {
    const pool = new ContentDocPool({ maxIdle: 2 })
    for (const n of ['a', 'b', 'c']) (await pool.acquire(asFileId(n))).release()
    expect([...pool.loaded()]).toEqual(['b', 'c'])
  })

  it('keeps released docs warm unless maxIdle or idleMs is 0 (keepsIdle)', async () => {
    expect(new ContentDocPool().keepsIdle).toBe(true)
    expect(new ContentDocPool({ maxIdle: 0 }).keepsIdle).toBe(false)
    expect(new ContentDocPool({ idleMs: 0 }).keepsIdle).toBe(false)
    const pool = new ContentDocPool({ maxIdle: 0 })
    const id = asFileId('nowarm')
    ;(await pool.acquire(id)).release()
    expect(pool.peek(id)).toBeUndefined()
  })

  it('calls connect for every doc it opens and waits for whenSynced before handing it out', async () => {
    const server = new Y.Doc()
    server.getText('text').insert(0, 'from server')
    const opened: string[] = []
    let destroyed = 0
    const pool = new ContentDocPool({
      idleMs: 0,
      connect(doc) {
        opened.push(doc.guid)
        return {
          whenSynced: new Promise((resolve) =>
            setTimeout(() => {
              Y.applyUpdate(doc, Y.encodeStateAsUpdate(server))
              resolve(true)
            }, 5),
          ),
          destroy: () => destroyed++,
        }
      },
    })
    const h = await pool.acquire(id)
    expect(h.doc.getText('text').toString()).toBe('from server')
    h.release()
    expect(destroyed).toBe(1)
    expect(opened).toEqual(['f1'])
  })

  it('a failing connection rejects acquire and leaves no reference behind', async () => {
    const pool = new ContentDocPool({
      connect: () => ({ whenSynced: Promise.reject(new Error('offline')), destroy() {} }),
    })
    await expect(pool.acquire(id)).rejects.toThrow('offline')
    expect(pool.refCount(id)).toBe(0)
  })

  it('an empty doc that failed to open is dropped, so the next acquire connects again', async () => {
    const outcomes = [Promise.reject(new Error('offline')), Promise.resolve()]
    let destroyed = 0
    const pool = new ContentDocPool({
      connect: () => ({ whenSynced: outcomes.shift(), destroy: () => destroyed++ }),
    })
    const [first, second] = await Promise.allSettled([pool.acquire(id), pool.acquire(id)])
    expect(first.status).toBe('rejected')
    expect(second.status).toBe('rejected')
    expect(destroyed).toBe(1)
    expect(pool.peek(id)).toBeUndefined()
    const h = await pool.acquire(id)
    expect(h.doc.isDestroyed).toBe(false)
    h.release()
  })

  it('a doc that failed to open but holds state (a taken-over copy) is kept, not dropped', async () => {
    const pool = new ContentDocPool({
      connect: (doc) => {
        doc.getText('text').insert(0, 'unacknowledged')
        return { whenSynced: Promise.reject(new Error('timeout')), destroy() {} }
      },
    })
    await expect(pool.acquire(id)).rejects.toThrow('timeout')
    expect(pool.peek(id)?.getText('text').toString()).toBe('unacknowledged')
  })

  it('builds a seeded doc once, on first open, peek or encode, and forgets seeds', async () => {
    let builds = 0
    const build = {
      build(doc: Y.Doc) {
        builds++
        doc.getText('text').insert(0, 'seeded')
      },
      text: 'seeded',
    }
    const pool = new ContentDocPool({ idleMs: 0 })
    pool.seed(id, build)
    expect(pool.isSeeded(id)).toBe(true)
    expect(pool.seedOf(id)?.text).toBe('seeded')
    expect(() => pool.seed(id, build)).toThrow(TypeError)
    expect(builds).toBe(0)
    const h = await pool.acquire(id)
    expect(h.doc.getText('text').toString()).toBe('seeded')
    expect(pool.seedOf(id)).toBeUndefined() // built: the doc is the source now
    h.release()
    ;(await pool.acquire(id)).release() // evicted and reopened from its dormant state
    expect(builds).toBe(1)

    const other = asFileId('f2')
    pool.seed(other, build)
    const state = pool.encodeState(other)!
    expect(pool.encodeState(other)).toEqual(state)
    const copy = new Y.Doc()
    Y.applyUpdate(copy, state)
    expect(copy.getText('text').toString()).toBe('seeded')
    expect(builds).toBe(2)

    const third = asFileId('f3')
    pool.seed(third, build)
    expect(pool.peek(third)?.getText('text').toString()).toBe('seeded')
    pool.forget(third)
    expect(pool.peek(third)).toBeUndefined()

    const remote = new ContentDocPool({ connect: () => ({ destroy() {} }) })
    expect(() => remote.seed(id, build)).toThrow(TypeError)
  })
  it('keeps a doc evicted before its first sync connected until that sync settles, and a re-open takes its state', async () => {
    // A provider that acknowledges nothing (y-websocket): its first sync waits for the server,
    // which waits for the file's row.
    // Each connection's first sync, in the order they were made, by doc.
    const syncs = new Map<string, (() => void)[]>()
    const destroyed: Y.Doc[] = []
    const pool = new ContentDocPool({
      idleMs: 0,
      maxIdle: 0,
      connect(doc) {
        return {
          whenSynced: new Promise<void>((synced) =>
            syncs.set(doc.guid, [...(syncs.get(doc.guid) ?? []), synced]),
          ),
          destroy: () => destroyed.push(doc),
        }
      },
    })
    const first = await pool.acquire(id, { fresh: true })
    first.doc.getText('text').insert(0, 'only here')
    first.release()
    // Evicted, but still connected: its content has reached no one yet.
    expect(pool.peek(id)).toBeUndefined()
    expect(destroyed).toEqual([])
    expect(first.doc.isDestroyed).toBe(false)

    // Opened again before that sync: handed out at once, with the evicted copy's content; the
    // new doc's connection takes over (one connection per doc).
    const second = await pool.acquire(id)
    expect(second.doc).not.toBe(first.doc)
    expect(second.doc.getText('text').toString()).toBe('only here')
    expect(destroyed).toEqual([first.doc])
    expect(first.doc.isDestroyed).toBe(true)
    second.release()
    // Its sync settling later changes nothing.
    syncs.get('f1')![0]!()
    await Promise.resolve()
    await Promise.resolve()
    expect(destroyed).toEqual([first.doc])

    // The second copy, evicted before its own sync, goes once that sync settles.
    expect(second.doc.isDestroyed).toBe(false)
    syncs.get('f1')![1]!()
    await Promise.resolve()
    await Promise.resolve()
    expect(second.doc.isDestroyed).toBe(true)
    expect(destroyed).toEqual([first.doc, second.doc])

    // A doc whose first sync settled goes at once when evicted.
    const other = asFileId('f2')
    const synced = pool.acquire(other)
    syncs.get('f2')![0]!()
    const handle = await synced
    handle.release()
    expect(destroyed).toContain(handle.doc)

    // A file forgotten for good (emptied from the trash) leaves no copy waiting for a row.
    const gone = asFileId('f4')
    const forgotten = await pool.acquire(gone, { fresh: true })
    forgotten.release()
    expect(forgotten.doc.isDestroyed).toBe(false)
    pool.forget(gone)
    expect(forgotten.doc.isDestroyed).toBe(true)

    // Destroying the pool ends the copies still waiting.
    const waiting = await pool.acquire(asFileId('f3'), { fresh: true })
    waiting.release()
    expect(waiting.doc.isDestroyed).toBe(false)
    pool.destroy()
    expect(waiting.doc.isDestroyed).toBe(true)
    expect(destroyed).toContain(waiting.doc)
  })
  it('ends at eviction a connection that keeps its unacknowledged changes itself', async () => {
    const destroyed: string[] = []
    const pool = new ContentDocPool({
      idleMs: 0,
      maxIdle: 0,
      connect: (doc) => ({
        whenSynced: new Promise(() => undefined),
        keepsChanges: true,
        destroy: () => destroyed.push(doc.guid),
      }),
    })
    const handle = await pool.acquire(id, { fresh: true })
    handle.release()
    expect(destroyed).toEqual(['f1'])
    expect(handle.doc.isDestroyed).toBe(true)
  })
})
