/**
 * A peer on the design's own wiring (issue 25): `createFileSystem` with one plain y-websocket
 * `WebsocketProvider` per doc (main doc `<workspace>`, content docs `<workspace>/<fileId>`)
 * against the server's `/yws` path, nothing of @yfs/client.
 */
import { type ContentCodec, createFileSystem, type YjsFileSystem } from '@yfs/core'
import { WebSocket } from 'ws'
import { WebsocketProvider } from 'y-websocket'
import * as Y from 'yjs'
import type { TestServer } from './helpers.js'

/** The workspace of the y-websocket e2e tests (default of `plainPeer`). */
export const WS = 'plain'

/** A YjsFileSystem wired to the server with one WebsocketProvider per doc, as the design describes. */
export async function plainPeer(
  t: TestServer,
  token: string,
  options: { maxIdle?: number; workspace?: string; codecs?: ContentCodec[] } = {},
): Promise<{ fs: YjsFileSystem; close(): void }> {
  const { workspace = WS, ...fsOptions } = options
  const providers: WebsocketProvider[] = []
  const provide = (room: string, doc: Y.Doc) => {
    const p = new WebsocketProvider(`${t.url}/yws`, room, doc, {
      WebSocketPolyfill: WebSocket as unknown as typeof globalThis.WebSocket,
      params: { token },
      disableBc: true,
    })
    providers.push(p)
    return p
  }
  const doc = new Y.Doc()
  const main = provide(workspace, doc)
  await new Promise<void>((resolve) => main.once('sync', () => resolve()))
  const fs = createFileSystem({
    doc,
    ...fsOptions,
    connect(content) {
      const p = provide(`${workspace}/${content.guid}`, content)
      return {
        whenSynced: new Promise<void>((resolve) => (p.synced ? resolve() : p.once('sync', () => resolve()))),
        destroy: () => p.destroy(),
      }
    },
  })
  return {
    fs,
    close() {
      fs.destroy()
      for (const p of providers) p.destroy()
    },
  }
}
