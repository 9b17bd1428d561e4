/**
 * An agent's activity entries are appended after its call returns (batched, off the call's path:
 * core's `enqueue`). A connection that closes, or flushes, right after the call still takes them
 * to the server: `flush()` and `close()` append what is queued before they wait for the server.
 */
import { createToolRegistry } from '@yfs/agent'
import { connectWorkspace } from '@yfs/client'
import { attachActivityLog } from '@yfs/core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers.js'

describe('queued activity entries and a connection that ends', () => {
  let t: TestServer
  let token: string
  beforeAll(async () => {
    t = await startTestServer()
    token = (await t.workspace('queue')).write
  })
  afterAll(() => t.close())

  const connect = () => connectWorkspace({ url: t.url, workspace: 'queue', token })
  /** The entries of `session` as a fresh connection reads them from the server. */
  const stored = async (session: string) => {
    const reader = await connect()
    try {
      return attachActivityLog(reader.fs.doc)
        .list({ session })
        .map((e) => [e.tool, e.files.map((f) => f.path)])
    } finally {
      await reader.close()
    }
  }

  // A read changes no document, so nothing else keeps the connection waiting for the server: the
  // entry is the only change, and it is still queued when the call returns.
  it('close() right after a call stores its entry', async () => {
    const ws = await connect()
    await ws.fs.writeFile('/a.txt', 'a\n')
    await ws.flush()
    const tools = createToolRegistry(ws.fs, { activity: { session: 'closing' } })
    const r = await tools.execute('read_file', { path: 'vfs:///a.txt' })
    expect(r.isError).toBeFalsy()
    await ws.close()
    expect(await stored('closing')).toEqual([['read_file', []]])
  })

  it('flush() right after calls stores their entries, in order', async () => {
    const ws = await connect()
    const tools = createToolRegistry(ws.fs, { activity: { session: 'flushing' } })
    await tools.execute('write_file', { path: 'vfs:///b.txt', content: 'b\n' })
    await ws.flush()
    await tools.execute('read_file', { path: 'vfs:///b.txt' })
    await ws.flush()
    // close(0) waits for nothing: only what flush() took to the server is there.
    await ws.close(0)
    expect(await stored('flushing')).toEqual([
      ['read_file', []],
      ['write_file', ['/b.txt']],
    ])
  })
})
