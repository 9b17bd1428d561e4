/**
 * Test harness: a real server on port 0 with a SQLite store in a temp dir,
 * real Hocuspocus providers over real sockets, and bounded waits.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider'
import type { WorkspaceConnection } from '@yfs/client'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import type { ServerConfig } from '../src/config.js'
import { type LogFields, type Logger, silentLogger } from '../src/logger.js'
import type { DocumentStore } from '../src/persistence/document-store.js'
import { createSqliteStore } from '../src/persistence/sqlite-store.js'
import { createServer, type YfsServer } from '../src/server.js'

export const ADMIN_TOKEN = 'test-admin-token'

import { waitFor } from '@yfs/core/testing'

export { waitFor }

export interface TestServer {
  server: YfsServer
  store: DocumentStore
  url: string
  port: number
  /** Create a workspace and a write and a read token for it. */
  workspace(id: string): Promise<{ write: string; read: string }>
  close(): Promise<void>
}

export async function startTestServer(
  config: Partial<ServerConfig> & { store?: DocumentStore } = {},
): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-server-'))
  const store = config.store ?? createSqliteStore({ file: join(dir, 'yfs.sqlite') })
  const server = createServer({
    logger: silentLogger,
    adminToken: ADMIN_TOKEN,
    fileWaitMs: 2000,
    ...config,
    store,
  })
  const address = await server.listen(0)
  return {
    server,
    store,
    port: address.port,
    url: `ws://127.0.0.1:${address.port}`,
    async workspace(id) {
      await store.createWorkspace(id)
      return { write: await store.createToken(id, 'write'), read: await store.createToken(id, 'read') }
    },
    async close() {
      await server.close()
      if (!config.store) await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** One client socket multiplexing many documents. */
export interface TestClient {
  socket: HocuspocusProviderWebsocket
  open(name: string, doc?: Y.Doc, token?: string): HocuspocusProvider
  destroy(): void
}

export function createTestClient(url: string, token: string): TestClient {
  const socket = new HocuspocusProviderWebsocket({
    url,
    WebSocketPolyfill: WebSocket,
    delay: 50,
    minDelay: 50,
    maxDelay: 500,
  })
  const providers: HocuspocusProvider[] = []
  return {
    socket,
    open(name, doc = new Y.Doc(), tok = token) {
      const provider = new HocuspocusProvider({ websocketProvider: socket, name, document: doc, token: tok })
      provider.attach()
      providers.push(provider)
      return provider
    },
    destroy() {
      for (const p of providers) p.destroy()
      socket.destroy()
    },
  }
}

/** Resolves once the provider has synced and the server acknowledged every local change. */
export function synced(provider: HocuspocusProvider, timeoutMs = 10_000): Promise<unknown> {
  return waitFor(
    () => provider.isSynced && provider.unsyncedChanges === 0,
    `sync of ${provider.configuration.name}`,
    timeoutMs,
  )
}

/** Resolves with the reason of the provider's authentication failure. */
export function authFailure(provider: HocuspocusProvider, timeoutMs = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no authenticationFailed event')), timeoutMs)
    provider.on('authenticationFailed', ({ reason }: { reason: string }) => {
      clearTimeout(timer)
      resolve(reason)
    })
  })
}

/** True when two docs hold the same state (equal state vectors): a barrier for "synced". */
export function sameState(a: Y.Doc, b: Y.Doc): boolean {
  return Buffer.from(Y.encodeStateVector(a)).equals(Buffer.from(Y.encodeStateVector(b)))
}

/**
 * The update that inserts `text` at `index` of a content doc's text, built on the doc's `state`
 * (a change a peer would send, for tests that send it themselves).
 */
export function textInsertOn(state: Uint8Array, index: number, text: string): Uint8Array {
  const doc = new Y.Doc({ gc: false })
  Y.applyUpdate(doc, state)
  const sv = Y.encodeStateVector(doc)
  doc.getText('text').insert(index, text)
  return Y.encodeStateAsUpdate(doc, sv)
}

/** The text of a content doc's `state`. */
export function contentText(state: Uint8Array | undefined): string {
  const doc = new Y.Doc()
  if (state) Y.applyUpdate(doc, state)
  return doc.getText('text').toString()
}

/** Lines as a file's text, each ended by a newline. */
export const linesText = (lines: string[]) => lines.map((l) => `${l}\n`).join('')

/** A person typing in an editor: line `line` of `doc`'s text replaced by `edit`, in the open doc. */
export function replaceLine(doc: Y.Doc, line: number, edit: string): void {
  const ytext = doc.getText('text')
  const now = ytext.toString()
  let start = 0
  for (let i = 0; i < line; i++) start = now.indexOf('\n', start) + 1
  const end = now.indexOf('\n', start)
  doc.transact(() => {
    ytext.delete(start, end - start)
    ytext.insert(start, edit)
  })
}

/** An agent's whole-file write of `path`: what it reads (`n` lines), line `line` made `edit`. */
export async function writeLine(c: WorkspaceConnection, path: string, n: number, line: number, edit: string) {
  const now = (await c.fs.readFile(path)).split('\n').slice(0, n)
  now[line] = edit
  await c.fs.writeFile(path, linesText(now))
}

/** A logger that keeps what it is given. */
export function captureLogger(): Logger & { records: { level: string; event: string; fields: LogFields }[] } {
  const records: { level: string; event: string; fields: LogFields }[] = []
  const at =
    (level: string) =>
    (event: string, fields: LogFields = {}) => {
      records.push({ level, event, fields })
    }
  return { records, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') }
}
