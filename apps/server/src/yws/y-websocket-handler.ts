/**
 * y-websocket compatibility: plain `WebsocketProvider` clients (one document
 * per socket) on `/yws/<docName>?token=…`, served from the same in-memory
 * Hocuspocus documents and the same persistence, so both kinds of clients
 * see each other's edits live (and through Redis, across processes).
 *
 * Each socket holds its document through a Hocuspocus direct connection
 * (which keeps it loaded and unloads it with the last holder). Frames are
 * handled one at a time per socket: `[varUint type] …` with type 0 sync
 * (step 1 → reply step 2; step 2 / update → validate, store, then apply),
 * 1 awareness, 3 query awareness. Auth failures, malformed frames and
 * invalid updates close the socket with 4401 / 4400 and a reason (for an
 * update persistence refused, its problem: invalid rows, see
 * extensions/persistence.ts). Updates of read-only (read token) sockets are
 * dropped, as Hocuspocus does.
 *
 * The same bounds as on Hocuspocus sockets (protocol/limits.ts): the
 * document name and token lengths, frames and bytes that arrive before the
 * socket is authenticated and its document loaded (a new file's content doc
 * can wait seconds for its row, so one message of `maxMessageBytes` more is
 * allowed: the file's whole first content), and presence states (checked and
 * re-encoded; a socket may add at most `maxAwarenessClients` client ids).
 * Refusals are logged with lengths, never contents.
 */
import type { IncomingMessage } from 'node:http'
import type { Document, Hocuspocus } from '@hocuspocus/server'
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import type WebSocket from 'ws'
import * as awarenessProtocol from 'y-protocols/awareness'
import * as syncProtocol from 'y-protocols/sync'
import * as Y from 'yjs'
import { AuthError } from '../auth/auth-error.js'
import type { Authorizer, Grant } from '../auth/authorizer.js'
import { closeReason, type Persistence } from '../extensions/persistence.js'
import { requestUrl } from '../http/request-url.js'
import type { Logger } from '../logger.js'
import { encodeAwarenessEntries, ownEntries, readAwarenessUpdate } from '../protocol/awareness-guard.js'
import type { ServerLimits } from '../protocol/limits.js'
import { CLOSE_MALFORMED, CLOSE_TOO_LARGE, CLOSE_TOO_MANY, Refusal } from '../protocol/refusal.js'

/** URL prefix of the y-websocket path. */
export const YWS_PREFIX = '/yws/'
export const CLOSE_UNAUTHORIZED = 4401
export const CLOSE_INVALID = 4400

const MESSAGE_SYNC = 0
const MESSAGE_AWARENESS = 1
const MESSAGE_QUERY_AWARENESS = 3

interface YwsConnection {
  socket: WebSocket
  readOnly: boolean
  /** Awareness client ids this socket set (removed when it closes). */
  clients: Set<number>
  /** Awareness client ids this socket owns on the document (see `ownEntries`). */
  owned: Set<number>
}

interface DocState {
  connections: Set<YwsConnection>
  detach: () => void
}

export interface YwsHandlerOptions {
  hocuspocus: Hocuspocus
  authorizer: Authorizer
  persistence: Persistence
  logger: Logger
  limits: ServerLimits
  /** Largest WebSocket message (`maxMessageBytes`). */
  maxMessageBytes: number
}

export interface YwsHandler {
  /** Serve an upgraded socket whose request path starts with `/yws/`. */
  handle(socket: WebSocket, request: IncomingMessage): void
  readonly size: number
}

function tokenOf(request: IncomingMessage, url: URL): string | undefined {
  const fromQuery = url.searchParams.get('token')
  if (fromQuery) return fromQuery
  const match = /^Bearer\s+(.+)$/i.exec(request.headers.authorization ?? '')
  return match?.[1]?.trim()
}

export function createYwsHandler(options: YwsHandlerOptions): YwsHandler {
  const { hocuspocus, authorizer, persistence, logger, limits } = options
  // A new file's whole first content comes as one update while the server waits for its row
  // (core writes content first): room for one message of the largest size, plus the usual budget.
  const earlyBudget = options.maxMessageBytes + limits.maxEarlyBytes
  const docs = new Map<Document, DocState>()
  let sockets = 0

  function send(conn: YwsConnection, message: Uint8Array): void {
    if (conn.socket.readyState !== conn.socket.OPEN) return
    conn.socket.send(message, (error) => {
      if (error) conn.socket.terminate()
    })
  }

  function attach(document: Document, conn: YwsConnection): void {
    let state = docs.get(document)
    if (!state) {
      const connections = new Set<YwsConnection>()
      const onUpdate = (update: Uint8Array, origin: unknown) => {
        const encoder = encoding.createEncoder()
        encoding.writeVarUint(encoder, MESSAGE_SYNC)
        syncProtocol.writeUpdate(encoder, update)
        const message = encoding.toUint8Array(encoder)
        for (const c of connections) if (c !== origin) send(c, message)
      }
      const onAwareness = (
        { added, updated, removed }: { added: number[]; updated: number[]; removed: number[] },
        origin: unknown,
      ) => {
        const changed = added.concat(updated, removed)
        const owner = [...connections].find((c) => c === origin)
        if (owner) {
          for (const id of added) owner.clients.add(id)
          for (const id of removed) owner.clients.delete(id)
        }
        const encoder = encoding.createEncoder()
        encoding.writeVarUint(encoder, MESSAGE_AWARENESS)
        encoding.writeVarUint8Array(
          encoder,
          awarenessProtocol.encodeAwarenessUpdate(document.awareness, changed),
        )
        const message = encoding.toUint8Array(encoder)
        for (const c of connections) send(c, message)
      }
      document.on('update', onUpdate)
      document.awareness.on('update', onAwareness)
      state = {
        connections,
        detach: () => {
          document.off('update', onUpdate)
          document.awareness.off('update', onAwareness)
        },
      }
      docs.set(document, state)
    }
    state.connections.add(conn)
  }

  function detach(document: Document, conn: YwsConnection): void {
    const state = docs.get(document)
    if (!state) return
    state.connections.delete(conn)
    if (conn.clients.size > 0)
      awarenessProtocol.removeAwarenessStates(document.awareness, [...conn.clients], null)
    if (state.connections.size === 0) {
      state.detach()
      docs.delete(document)
    }
  }

  /** Handle one frame; resolves with why its update was refused (persistence logged it), if it was. */
  async function handleFrame(
    document: Document,
    conn: YwsConnection,
    data: Uint8Array,
  ): Promise<string | undefined> {
    const decoder = decoding.createDecoder(data)
    const type = decoding.readVarUint(decoder)
    if (type === MESSAGE_SYNC) {
      const syncType = decoding.readVarUint(decoder)
      if (syncType === syncProtocol.messageYjsSyncStep1) {
        const encoder = encoding.createEncoder()
        encoding.writeVarUint(encoder, MESSAGE_SYNC)
        syncProtocol.writeSyncStep2(encoder, document, decoding.readVarUint8Array(decoder))
        send(conn, encoding.toUint8Array(encoder))
        return
      }
      if (syncType !== syncProtocol.messageYjsSyncStep2 && syncType !== syncProtocol.messageYjsUpdate) {
        throw new Error('unknown sync message')
      }
      const update = decoding.readVarUint8Array(decoder)
      if (conn.readOnly) return
      const refusal = await persistence.storeUpdate(document.name, update, { document })
      if (refusal !== undefined) return refusal
      Y.applyUpdate(document, update, conn)
      return
    }
    if (type === MESSAGE_AWARENESS) {
      const entries = readAwarenessUpdate(decoding.readVarUint8Array(decoder), limits)
      const states = document.awareness.getStates()
      const own = ownEntries(entries, conn.owned, (id) => states.has(id), limits.maxAwarenessClients)
      if (own.length > 0)
        awarenessProtocol.applyAwarenessUpdate(document.awareness, encodeAwarenessEntries(own), conn)
      return
    }
    if (type === MESSAGE_QUERY_AWARENESS) {
      const encoder = encoding.createEncoder()
      encoding.writeVarUint(encoder, MESSAGE_AWARENESS)
      const ids = [...document.awareness.getStates().keys()]
      encoding.writeVarUint8Array(encoder, awarenessProtocol.encodeAwarenessUpdate(document.awareness, ids))
      send(conn, encoding.toUint8Array(encoder))
      return
    }
    throw new Error('unknown message type')
  }

  function refuse(socket: WebSocket, refusal: Refusal): void {
    logger.warn('socket refused', { path: 'yws', code: refusal.code, reason: refusal.reason })
    socket.close(refusal.code, refusal.reason)
  }

  async function serve(socket: WebSocket, request: IncomingMessage): Promise<void> {
    const url = requestUrl(request)
    const rawName = url.pathname.slice(YWS_PREFIX.length)
    let docName: string
    try {
      docName = decodeURIComponent(rawName)
    } catch {
      return refuse(socket, new Refusal(CLOSE_MALFORMED, 'invalid document name'))
    }
    if (Buffer.byteLength(docName) > limits.maxDocNameBytes)
      return refuse(socket, new Refusal(CLOSE_TOO_LARGE, 'document name too long'))
    const token = tokenOf(request, url)
    if (token !== undefined && Buffer.byteLength(token) > limits.maxTokenBytes)
      return refuse(socket, new Refusal(CLOSE_TOO_LARGE, 'token too long'))
    // Frames that arrive while we authenticate and load are kept in order, within a budget.
    const early: Uint8Array[] = []
    let earlyBytes = 0
    const buffer = (data: Buffer) => {
      earlyBytes += data.byteLength
      if (early.length >= limits.maxEarlyFrames || earlyBytes > earlyBudget) {
        socket.off('message', buffer)
        early.length = 0
        refuse(socket, new Refusal(CLOSE_TOO_MANY, 'too many messages before sync'))
      } else early.push(new Uint8Array(data))
    }
    socket.on('message', buffer)

    let grant: Grant
    try {
      grant = await authorizer.authorize(token, docName)
    } catch (error) {
      const reason = error instanceof AuthError ? error.reason : 'internal error'
      logger.warn('auth refused', { path: 'yws', docNameBytes: docName.length, reason })
      socket.close(CLOSE_UNAUTHORIZED, reason)
      return
    }
    if (socket.readyState !== socket.OPEN) {
      authorizer.release(grant)
      return
    }

    const direct = await hocuspocus.openDirectConnection(docName, { grant })
    const document = direct.document!
    const conn: YwsConnection = {
      socket,
      readOnly: grant.role === 'read',
      clients: new Set(),
      owned: new Set(),
    }
    attach(document, conn)
    logger.debug('yws connected', { doc: docName, role: grant.role })

    let chain = Promise.resolve()
    let failed = false
    const onFrame = (data: Uint8Array) => {
      chain = chain.then(async () => {
        if (failed) return
        try {
          const refusal = await handleFrame(document, conn, data)
          if (refusal !== undefined) {
            failed = true
            socket.close(CLOSE_INVALID, closeReason(refusal))
          }
        } catch (error) {
          failed = true
          refuse(socket, error instanceof Refusal ? error : new Refusal(CLOSE_MALFORMED, 'invalid message'))
        }
      })
    }
    socket.off('message', buffer)
    socket.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) {
        failed = true
        socket.close(CLOSE_INVALID, 'invalid message')
        return
      }
      onFrame(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
    })

    const closed = new Promise<void>((resolve) => {
      if (socket.readyState === socket.CLOSED) resolve()
      else socket.once('close', () => resolve())
    })

    // Greet like y-websocket's server: our state vector, then the awareness states.
    const encoder = encoding.createEncoder()
    encoding.writeVarUint(encoder, MESSAGE_SYNC)
    syncProtocol.writeSyncStep1(encoder, document)
    send(conn, encoding.toUint8Array(encoder))
    if (document.awareness.getStates().size > 0) {
      const aw = encoding.createEncoder()
      encoding.writeVarUint(aw, MESSAGE_AWARENESS)
      const ids = [...document.awareness.getStates().keys()]
      encoding.writeVarUint8Array(aw, awarenessProtocol.encodeAwarenessUpdate(document.awareness, ids))
      send(conn, encoding.toUint8Array(aw))
    }
    for (const data of early) onFrame(data)

    await closed
    await chain
    detach(document, conn)
    authorizer.release(grant)
    await direct.disconnect()
    logger.debug('yws disconnected', { doc: docName })
  }

  return {
    handle(socket, request) {
      sockets++
      serve(socket, request)
        .catch((error) => {
          logger.error('yws connection failed', { error })
          socket.close(1011, 'internal error')
        })
        .finally(() => {
          sockets--
        })
    },
    get size() {
      return sockets
    },
  }
}
