// Learning test for the one place yfs stands in for a library's object: Hocuspocus is handed a
// GuardedSocket instead of a `ws` WebSocket. It must only use members GuardedSocket has. A full
// session (auth, sync, presence, stateless, a refused document, close) runs through a proxy that
// records every member Hocuspocus touches; a new one (say `terminate` or `bufferedAmount` after a
// Hocuspocus upgrade) fails here, naming it, before it fails in production.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider'
import { Hocuspocus } from '@hocuspocus/server'
import { waitFor } from '@yfs/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import * as Y from 'yjs'
import { silentLogger } from '../logger.js'
import { GuardedSocket } from './guarded-socket.js'
import { DEFAULT_LIMITS } from './limits.js'

describe('GuardedSocket stands in for ws under Hocuspocus 3.4', () => {
  const touched = new Set<string>()
  const guards: GuardedSocket[] = []
  let url: string
  let close: () => Promise<void>

  beforeAll(async () => {
    const hocuspocus = new Hocuspocus({
      quiet: true,
      // Pings every 100 ms, so the session sees them.
      timeout: 100,
      extensions: [
        {
          async onAuthenticate({ token }) {
            if (token !== 'ok') throw new Error('no')
          },
          async onStateless({ connection, payload }) {
            connection.sendStateless(`echo ${payload}`)
          },
        },
      ],
    })
    const http = createServer()
    const wss = new WebSocketServer({ server: http })
    wss.on('connection', (ws, request) => {
      const guard = new GuardedSocket(ws, { limits: DEFAULT_LIMITS, maxDocs: 10, logger: silentLogger })
      guards.push(guard)
      const recorded = new Proxy(guard, {
        get(target, property) {
          if (typeof property === 'string') touched.add(property)
          const value = Reflect.get(target, property, target)
          return typeof value === 'function' ? value.bind(target) : value
        },
        set(target, property, value) {
          if (typeof property === 'string') touched.add(property)
          return Reflect.set(target, property, value, target)
        },
      })
      hocuspocus.handleConnection(recorded as unknown as WebSocket, request)
    })
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`
    close = async () => {
      wss.close()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  })
  afterAll(() => close())

  it('uses only members GuardedSocket has', async () => {
    const socket = new HocuspocusProviderWebsocket({ url, WebSocketPolyfill: WebSocket })
    const doc = new Y.Doc()
    const provider = new HocuspocusProvider({
      websocketProvider: socket,
      name: 'd',
      document: doc,
      token: 'ok',
    })
    provider.attach()
    const refused = new HocuspocusProvider({ websocketProvider: socket, name: 'e', token: 'no' })
    refused.attach()
    let echoed = ''
    provider.on('stateless', ({ payload }: { payload: string }) => {
      echoed = payload
    })
    await waitFor(() => provider.isSynced, 'sync')
    doc.getText('t').insert(0, 'hello')
    provider.setAwarenessField('user', { name: 'a' })
    provider.sendStateless('ping')
    await waitFor(() => echoed === 'echo ping' && provider.unsyncedChanges === 0, 'the echo and the ack')
    await waitFor(() => touched.has('ping'), 'a ping')
    provider.destroy()
    refused.destroy()
    socket.destroy()
    await waitFor(() => guards.every((g) => g.readyState === WebSocket.CLOSED), 'the close')

    const guard = guards[0]!
    const missing = [...touched].filter((name) => !(name in guard))
    expect(missing).toEqual([])
    // What Hocuspocus 3.4 uses today (besides EventEmitter's own fields): the surface GuardedSocket implements.
    for (const name of ['on', 'once', 'removeListener', 'emit', 'send', 'ping', 'readyState', 'binaryType'])
      expect(touched).toContain(name)
  })
})
