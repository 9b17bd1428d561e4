/**
 * The guard between a client's WebSocket and Hocuspocus: Hocuspocus is
 * handed a `GuardedSocket` instead of the socket, and sees only the frames
 * the guard lets through. Nothing of either library is patched: the guard
 * listens to the socket like any listener, and Hocuspocus talks to the
 * guarded socket through the few members it uses (see the learning test
 * `guarded-socket.test.ts`, which fails when Hocuspocus starts using more).
 *
 * Every frame is bounded before it costs anything (limits.ts):
 * - binary frames only, whose `varString(docName) varUint(type)` header
 *   decodes, with a document name of at most `maxDocNameBytes` that is not
 *   a property of `Object.prototype` (other names that are not ours are
 *   refused by authentication, with a reason, like unknown documents);
 * - known message types; broadcast stateless messages (type 6) are refused:
 *   Hocuspocus would relay them to every connection of the document,
 *   read-only ones included, so any reader could speak for the server;
 * - at most `maxDocs` documents per socket;
 * - auth frames with a token of at most `maxTokenBytes`;
 * - every body decodes completely as Hocuspocus will read it (Hocuspocus
 *   would close the connection with a stack trace on stderr otherwise):
 *   sync updates are valid Yjs updates and step 1 a valid state vector,
 *   stateless payloads a whole string;
 * - presence (awareness) updates checked and re-encoded (awareness-guard.ts),
 *   keeping only the entries of client ids this socket owns on the document
 *   (clients relay everyone's states; a relay is a no-op, a newer clock
 *   would replace someone else's presence); a socket may own at most
 *   `maxAwarenessClients` ids per document and hold at most
 *   `maxAwarenessClients × maxAwarenessStateBytes` of states in all;
 * - frames for documents not authenticated yet, which Hocuspocus queues:
 *   `maxEarlyFrames` / `maxEarlyBytes` per socket, counting those still
 *   waiting (a document's early frames stop counting once Hocuspocus has
 *   authenticated or refused it: a long-lived connection opens documents
 *   without end); a socket with no
 *   authenticated document `authTimeoutMs` after it opened is closed;
 * - frames for a document whose authentication was refused are dropped
 *   (Hocuspocus would queue them for as long as the socket lives), and a
 *   socket refused `maxRefusedDocs` times is closed.
 *
 * The guard learns each document's state from what Hocuspocus sends back
 * through it: `Authenticated` (with its read-only scope), `PermissionDenied`,
 * and `Close` (the document connection ended; it may authenticate again).
 *
 * A refusal closes only this socket, with a code and a fixed reason
 * (refusal.ts), and is logged once with lengths, never contents.
 * Oversized frames never get here: `ws` closes those with 1009
 * (`maxPayload`).
 */
import { isUtf8 } from 'node:buffer'
import { EventEmitter } from 'node:events'
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import type WebSocket from 'ws'
import * as Y from 'yjs'
import type { Logger } from '../logger.js'
import {
  type AwarenessEntry,
  encodeAwarenessEntries,
  ownEntries,
  readAwarenessUpdate,
} from './awareness-guard.js'
import type { ServerLimits } from './limits.js'
import { createOwnUpdates } from './own-updates.js'
import {
  CLOSE_FORBIDDEN,
  CLOSE_MALFORMED,
  CLOSE_TOO_LARGE,
  CLOSE_TOO_MANY,
  CLOSE_UNAUTHENTICATED,
  Refusal,
} from './refusal.js'
import { isValidUpdate } from './sync-message.js'

/** Hocuspocus message types (@hocuspocus/server `MessageType`). */
const SYNC = 0
const AWARENESS = 1
const AUTH = 2
const QUERY_AWARENESS = 3
const SYNC_REPLY = 4
const STATELESS = 5
const BROADCAST_STATELESS = 6
const CLOSE = 7
/** Sync sub-types (y-protocols/sync). */
const SYNC_STEP1 = 0
const SYNC_STEP2 = 1
const SYNC_UPDATE = 2
/** Auth sub-types (@hocuspocus/common `AuthMessageType`). */
const AUTH_TOKEN = 0
const AUTH_PERMISSION_DENIED = 1
const AUTH_AUTHENTICATED = 2

const CLIENT_TYPES: ReadonlySet<number> = new Set([
  SYNC,
  AWARENESS,
  AUTH,
  QUERY_AWARENESS,
  SYNC_REPLY,
  STATELESS,
  CLOSE,
])

export interface SocketGuardOptions {
  limits: ServerLimits
  /** Most documents one socket may open. */
  maxDocs: number
  logger: Logger
  /** Client ids with a presence state on a loaded document (y-protocols `awareness.getStates()`). */
  presenceOf?: (docName: string) => ReadonlyMap<number, unknown> | undefined
}

interface DocState {
  phase: 'early' | 'open' | 'refused'
  /** Frames and bytes received while `early` (Hocuspocus queues them until it authenticates). */
  earlyFrames: number
  earlyBytes: number
  /** Presence client ids this socket owns on the document. */
  clients: Set<number>
}

/** WebSocket ready states (the `ws` constants). */
const OPEN = 1

/**
 * What Hocuspocus gets instead of the client's socket: a WebSocket-shaped
 * emitter that forwards the frames the guard accepts and passes sends,
 * pings and closes through to the real socket.
 */
export class GuardedSocket extends EventEmitter {
  readonly #socket: WebSocket
  readonly #options: SocketGuardOptions
  readonly #docs = new Map<string, DocState>()
  /** Every document name this socket has used (the `maxDocs` budget). */
  readonly #names = new Set<string>()
  /** Latest presence state size per `docName \0 clientID`. */
  readonly #presence = new Map<string, number>()
  #presenceBytes = 0
  #earlyFrames = 0
  #earlyBytes = 0
  #refusedDocs = 0
  #authenticated = false
  #closed = false
  #authTimer: NodeJS.Timeout | undefined
  /** The client's updates, so that Hocuspocus's copy of each back to it is dropped (own-updates.ts). */
  readonly #own = createOwnUpdates()

  constructor(socket: WebSocket, options: SocketGuardOptions) {
    super()
    this.#socket = socket
    this.#options = options
    socket.on('message', (data: Buffer, isBinary: boolean) => this.#receive(data, isBinary))
    socket.on('pong', () => this.emit('pong'))
    socket.once('close', (code: number, reason: Buffer) => {
      this.#closed = true
      clearTimeout(this.#authTimer)
      if (this.#refusedDocs > 1)
        options.logger.warn('auth refused', { documents: this.#refusedDocs, note: 'on one socket' })
      this.emit('close', code, reason)
    })
    this.#authTimer = setTimeout(() => {
      if (!this.#authenticated) this.#refuse(new Refusal(CLOSE_UNAUTHENTICATED, 'not authenticated in time'))
    }, options.limits.authTimeoutMs)
    this.#authTimer.unref?.()
  }

  // --- the members Hocuspocus uses (see guarded-socket.test.ts) ---

  get readyState(): number {
    return this.#socket.readyState
  }

  /** Hocuspocus sets `'nodebuffer'`, which is what `ws` delivers already. */
  binaryType = 'nodebuffer'

  send(data: Uint8Array, callback?: (error?: Error) => void): void {
    const decoder = decoding.createDecoder(data)
    let docName: string | undefined
    let type: number | undefined
    try {
      docName = decoding.readVarString(decoder)
      type = decoding.readVarUint(decoder)
    } catch {
      // Not a frame the guard follows: sent as it is.
    }
    if (docName !== undefined && type !== undefined) {
      if (type === SYNC && this.#isEcho(docName, decoder)) {
        // As `ws` would, after the write: no error.
        if (callback) queueMicrotask(() => callback())
        return
      }
      this.#observe(docName, type, decoder)
    }
    this.#socket.send(data, callback)
  }

  ping(): void {
    this.#socket.ping()
  }

  close(code?: number, reason?: string): void {
    this.#socket.close(code, reason)
  }

  // --- the guard ---

  #receive(data: Buffer, isBinary: boolean): void {
    if (this.#closed) return
    try {
      if (!isBinary) throw new Refusal(CLOSE_MALFORMED, 'text frames are not accepted')
      const frame = this.#inspect(new Uint8Array(data.buffer, data.byteOffset, data.byteLength))
      if (frame) this.emit('message', frame)
    } catch (error) {
      this.#refuse(error instanceof Refusal ? error : new Refusal(CLOSE_MALFORMED, 'malformed message'))
    }
  }

  /** The frame to hand to Hocuspocus (possibly re-encoded), `undefined` to drop it; throws `Refusal`. */
  #inspect(data: Uint8Array): Uint8Array | undefined {
    const { limits, maxDocs } = this.#options
    const decoder = decoding.createDecoder(data)
    // Bound the name by its declared length before decoding it.
    if (decoding.peekVarUint(decoder) > limits.maxDocNameBytes)
      throw new Refusal(CLOSE_TOO_LARGE, 'document name too long')
    const docName = decoding.readVarString(decoder)
    const type = decoding.readVarUint(decoder)
    if (type === BROADCAST_STATELESS)
      throw new Refusal(CLOSE_FORBIDDEN, 'broadcast messages are not accepted')
    if (!CLIENT_TYPES.has(type)) throw new Refusal(CLOSE_MALFORMED, 'unknown message type')
    // Hocuspocus keeps its per-document state in plain objects: these names would reach Object.prototype.
    if (docName in Object.prototype) throw new Refusal(CLOSE_MALFORMED, 'invalid document name')

    let doc = this.#docs.get(docName)
    if (!doc) {
      if (!this.#names.has(docName)) {
        if (this.#names.size >= maxDocs) throw new Refusal(CLOSE_TOO_MANY, 'too many documents')
        this.#names.add(docName)
      }
      doc = { phase: 'early', clients: new Set(), earlyFrames: 0, earlyBytes: 0 }
      this.#docs.set(docName, doc)
    }
    // Hocuspocus would queue these for the life of the socket.
    if (doc.phase === 'refused') return undefined
    if (doc.phase === 'early') {
      doc.earlyFrames++
      doc.earlyBytes += data.byteLength
      this.#earlyFrames++
      this.#earlyBytes += data.byteLength
      if (this.#earlyFrames > limits.maxEarlyFrames || this.#earlyBytes > limits.maxEarlyBytes)
        throw new Refusal(CLOSE_TOO_MANY, 'too many messages before authentication')
    }

    // The document's connection starts again or ends: what comes back after is not an echo.
    if (type === AUTH || type === CLOSE) this.#own.forget(docName)
    switch (type) {
      case AUTH: {
        if (decoding.readVarUint(decoder) !== AUTH_TOKEN)
          throw new Refusal(CLOSE_MALFORMED, 'invalid auth message')
        if (decoding.peekVarUint(decoder) > limits.maxTokenBytes)
          throw new Refusal(CLOSE_TOO_LARGE, 'token too long')
        decoding.readVarString(decoder)
        return data
      }
      case SYNC:
      case SYNC_REPLY: {
        const syncType = decoding.readVarUint(decoder)
        const payload = decoding.readVarUint8Array(decoder)
        if (syncType === SYNC_STEP1) {
          // A state vector; Hocuspocus would throw (and log a stack) on a bad one.
          Y.decodeStateVector(payload)
          return data
        }
        if (syncType !== SYNC_STEP2 && syncType !== SYNC_UPDATE)
          throw new Refusal(CLOSE_MALFORMED, 'unknown sync message')
        if (!isValidUpdate(payload)) throw new Refusal(CLOSE_MALFORMED, 'invalid update')
        if (syncType === SYNC_UPDATE) this.#own.sent(docName, payload)
        return data
      }
      case STATELESS: {
        // A whole string of valid UTF-8, as Hocuspocus reads it (lib0's decoder is fatal), checked
        // without decoding it: a bulk message is megabytes at times, and decoding it here as well
        // cost as much as Hocuspocus's own decode (~6 ms a 1.4 MB message).
        const payload = decoding.readVarUint8Array(decoder)
        if (decoder.pos > data.byteLength || !isUtf8(payload))
          throw new Refusal(CLOSE_MALFORMED, 'malformed message')
        return data
      }
      case AWARENESS: {
        const entries = readAwarenessUpdate(decoding.readVarUint8Array(decoder), limits)
        const states = this.#options.presenceOf?.(docName)
        const own = ownEntries(
          entries,
          doc.clients,
          (id) => states?.has(id) ?? false,
          limits.maxAwarenessClients,
        )
        this.#countPresence(docName, own)
        if (own.length === 0) return undefined
        const frame = encoding.createEncoder()
        encoding.writeVarString(frame, docName)
        encoding.writeVarUint(frame, AWARENESS)
        encoding.writeVarUint8Array(frame, encodeAwarenessEntries(own))
        return encoding.toUint8Array(frame)
      }
      default:
        // Query awareness and close carry nothing Hocuspocus reads.
        return data
    }
  }

  /** Keep this socket's presence states, across its documents, within its budget. */
  #countPresence(docName: string, entries: readonly AwarenessEntry[]): void {
    const { maxAwarenessClients, maxAwarenessStateBytes } = this.#options.limits
    for (const { clientID, json } of entries) {
      const key = `${docName}\0${clientID}`
      this.#presenceBytes += json.length - (this.#presence.get(key) ?? 0)
      this.#presence.set(key, json.length)
    }
    if (this.#presenceBytes > maxAwarenessClients * maxAwarenessStateBytes)
      throw new Refusal(CLOSE_TOO_MANY, 'too much presence state')
  }

  /**
   * A sync frame (read past its header) that is a sync update carrying exactly an update this
   * socket's client sent on `docName`.
   */
  #isEcho(docName: string, decoder: decoding.Decoder): boolean {
    try {
      if (decoding.readVarUint(decoder) !== SYNC_UPDATE) return false
      return this.#own.isEcho(docName, decoding.readVarUint8Array(decoder))
    } catch {
      return false
    }
  }

  /**
   * Follow what Hocuspocus answers (a frame read past its header): authentication results and
   * closed document connections.
   */
  #observe(docName: string, type: number, decoder: decoding.Decoder): void {
    if (type === CLOSE) {
      // Hocuspocus forgot the document connection: a new auth for it starts afresh.
      this.#forget(docName)
      return
    }
    if (type !== AUTH) return
    const doc = this.#docs.get(docName)
    if (!doc) return
    const sub = decoding.readVarUint(decoder)
    // What Hocuspocus queued for the document is handled (or dropped) now: no longer early.
    if (sub === AUTH_AUTHENTICATED || sub === AUTH_PERMISSION_DENIED) this.#endEarly(doc)
    if (sub === AUTH_AUTHENTICATED) {
      doc.phase = 'open'
      this.#authenticated = true
      clearTimeout(this.#authTimer)
    } else if (sub === AUTH_PERMISSION_DENIED) {
      doc.phase = 'refused'
      this.#refusedDocs++
      if (this.#refusedDocs === 1)
        this.#options.logger.warn('auth refused', {
          reason: decoding.readVarString(decoder).slice(0, 100),
          docNameBytes: docName.length,
        })
      if (this.#refusedDocs >= this.#options.limits.maxRefusedDocs)
        this.#refuse(new Refusal(CLOSE_TOO_MANY, 'too many refused documents'))
    }
  }

  /** The document's early frames no longer count against the socket's bound (they are not queued). */
  #endEarly(doc: DocState): void {
    this.#earlyFrames -= doc.earlyFrames
    this.#earlyBytes -= doc.earlyBytes
    doc.earlyFrames = 0
    doc.earlyBytes = 0
  }

  #forget(docName: string): void {
    this.#own.forget(docName)
    const doc = this.#docs.get(docName)
    if (!doc) return
    this.#endEarly(doc)
    for (const id of doc.clients) {
      const key = `${docName}\0${id}`
      this.#presenceBytes -= this.#presence.get(key) ?? 0
      this.#presence.delete(key)
    }
    this.#docs.delete(docName)
  }

  #refuse(refusal: Refusal): void {
    if (this.#closed) return
    this.#closed = true
    clearTimeout(this.#authTimer)
    this.#options.logger.warn('socket refused', { code: refusal.code, reason: refusal.reason })
    if (this.#socket.readyState === OPEN) this.#socket.close(refusal.code, refusal.reason)
    else this.#socket.terminate()
  }
}

/**
 * Guard `socket` and return what to hand to `hocuspocus.handleConnection`
 * in its place.
 */
export function guardSocket(socket: WebSocket, options: SocketGuardOptions): WebSocket {
  // Hocuspocus is typed against `ws`'s class but uses only the members above (see the learning test).
  return new GuardedSocket(socket, options) as unknown as WebSocket
}
