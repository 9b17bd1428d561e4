// Learning test for the members of @hocuspocus/provider that @yfs/client uses beyond its public API
// (internals/hocuspocus-provider.ts): `boundDocumentUpdateHandler` (taken off the document, and
// called to send a held update), `startSync` and
// `configuration.providerMap`. Against a real Hocuspocus server on a real socket, each is checked to
// do what the adapter relies on, so a Hocuspocus release that changes one fails here, by name.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider'
import { Hocuspocus } from '@hocuspocus/server'
import { waitFor } from '@yfs/core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket, WebSocketServer } from 'ws'
import * as Y from 'yjs'
import {
  deferStartSync,
  forgetProvider,
  resumeForwardingUpdates,
  sendDocumentUpdate,
  stopForwardingUpdates,
} from './hocuspocus-provider.js'

describe('@hocuspocus/provider members @yfs/client relies on', () => {
  // Messages the server got per document (sync steps, updates, awareness): what a provider sent.
  const received = new Map<string, number>()
  // Stateless payloads the server got, as `<document>:<payload>`: a barrier's arrival.
  const stateless = new Set<string>()
  const hocuspocus = new Hocuspocus({
    quiet: true,
    extensions: [
      {
        async beforeHandleMessage({ documentName }) {
          received.set(documentName, (received.get(documentName) ?? 0) + 1)
        },
        async onStateless({ document, payload }) {
          stateless.add(`${document.name}:${payload}`)
        },
      },
    ],
  })
  let url: string
  let close: () => Promise<void>

  beforeAll(async () => {
    const http = createServer()
    const wss = new WebSocketServer({ server: http })
    wss.on('connection', (ws, request) => hocuspocus.handleConnection(ws, request))
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
    url = `ws://127.0.0.1:${(http.address() as AddressInfo).port}`
    close = async () => {
      wss.close()
      await new Promise<void>((resolve) => http.close(() => resolve()))
    }
  })
  afterAll(() => close())

  const open = (socket: HocuspocusProviderWebsocket, name: string, doc = new Y.Doc()) => {
    const provider = new HocuspocusProvider({ websocketProvider: socket, name, document: doc })
    provider.attach()
    return provider
  }
  const serverText = (name: string) => hocuspocus.documents.get(name)?.getText('t').toString()

  it('boundDocumentUpdateHandler: off, local changes are not sent; on again, they are', async () => {
    const socket = new HocuspocusProviderWebsocket({ url, WebSocketPolyfill: WebSocket })
    const provider = open(socket, 'forwarding')
    try {
      await waitFor(() => provider.isSynced, 'sync')
      // Barrier: the server got what the provider sent after its sync (one socket keeps the order).
      provider.sendStateless('settled')
      await waitFor(() => stateless.has('forwarding:settled'), 'the barrier at the server')
      expect(typeof provider.boundDocumentUpdateHandler).toBe('function')
      const before = received.get('forwarding') ?? 0
      stopForwardingUpdates(provider)
      provider.document.getText('t').insert(0, 'held ')
      await new Promise((r) => setTimeout(r, 200))
      expect(received.get('forwarding') ?? 0).toBe(before)
      resumeForwardingUpdates(provider)
      provider.document.getText('t').insert(5, 'sent')
      await waitFor(() => (received.get('forwarding') ?? 0) > before, 'an update message')
      // The held change is not in it (updates are deltas): a sync step brings it, as held-sync does.
      provider.startSync()
      await waitFor(() => serverText('forwarding') === 'held sent', 'both changes after a sync step')
    } finally {
      provider.destroy()
      socket.destroy()
    }
  })

  it('boundDocumentUpdateHandler called with an update sends it as a local change, counted until acknowledged', async () => {
    const socket = new HocuspocusProviderWebsocket({ url, WebSocketPolyfill: WebSocket })
    const provider = open(socket, 'sent-later')
    try {
      // Synced, and the handshake's own messages acknowledged.
      await waitFor(() => provider.isSynced && provider.unsyncedChanges === 0, 'sync')
      stopForwardingUpdates(provider)
      const updates: Uint8Array[] = []
      provider.document.on('update', (u: Uint8Array) => updates.push(u))
      provider.document.getText('t').insert(0, 'one ')
      provider.document.getText('t').insert(4, 'two')
      expect(updates).toHaveLength(2)
      sendDocumentUpdate(provider, Y.mergeUpdates(updates))
      expect(provider.unsyncedChanges).toBe(1)
      await waitFor(() => provider.unsyncedChanges === 0, 'the acknowledgement')
      expect(serverText('sent-later')).toBe('one two')
    } finally {
      provider.destroy()
      socket.destroy()
    }
  })

  it('startSync: the provider calls it when its socket opens; shadowed, nothing syncs until it runs', async () => {
    const socket = new HocuspocusProviderWebsocket({ url, WebSocketPolyfill: WebSocket, autoConnect: false })
    const provider = new HocuspocusProvider({
      websocketProvider: socket,
      name: 'deferred',
      document: new Y.Doc(),
    })
    const restore = deferStartSync(provider)
    provider.attach()
    try {
      socket.connect()
      await new Promise((r) => setTimeout(r, 300))
      expect(provider.isSynced).toBe(false)
      restore(true)
      await waitFor(() => provider.isSynced, 'the deferred sync')
    } finally {
      provider.destroy()
      socket.destroy()
    }
  })

  it('configuration.providerMap: lists attached providers by name; forgetProvider takes one off', async () => {
    const socket = new HocuspocusProviderWebsocket({ url, WebSocketPolyfill: WebSocket })
    const provider = open(socket, 'listed')
    try {
      await waitFor(() => provider.isSynced, 'sync')
      expect(socket.configuration.providerMap.get('listed')).toBe(provider)
      forgetProvider(socket, provider)
      expect(socket.configuration.providerMap.has('listed')).toBe(false)
    } finally {
      provider.destroy()
      socket.destroy()
    }
  })
})
