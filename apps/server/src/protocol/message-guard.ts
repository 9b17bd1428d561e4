/**
 * A filter in front of Hocuspocus's frame handler. Hostile frames close the
 * socket with 4400 and never reach Hocuspocus (which would log them with
 * stack traces): text frames, frames whose `varString varUint` header does
 * not decode, unknown message types, sync updates that are not valid Yjs
 * updates, and opening more than `maxDocs` documents on one socket
 * (Hocuspocus queues frames per document until it is authenticated, so
 * document names are a memory budget). Oversized frames never get here:
 * `ws` closes those with 1009 (`maxPayload`).
 *
 * It works by wrapping the socket's `'message'` listeners, so it must be
 * installed before the socket is handed to Hocuspocus.
 */
import type WebSocket from 'ws'
import {
  HOCUSPOCUS_CLIENT_TYPES,
  isValidUpdate,
  readFrameHeader,
  readHocuspocusUpdate,
} from './sync-message.js'

export const CLOSE_MALFORMED = 4400

export interface MessageGuardOptions {
  maxDocs: number
  onReject?: (reason: string) => void
}

type Listener = (...args: unknown[]) => void

/** Install the guard on `socket`; call before `hocuspocus.handleConnection`. */
export function guardHocuspocusSocket(socket: WebSocket, options: MessageGuardOptions): void {
  const names = new Set<string>()
  let closed = false

  const reject = (reason: string): false => {
    if (!closed) {
      closed = true
      options.onReject?.(reason)
      socket.close(CLOSE_MALFORMED, reason)
    }
    return false
  }

  const accept = (data: unknown, isBinary: unknown): boolean => {
    if (closed) return false
    // Hocuspocus re-emits queued frames itself, without `isBinary`: those passed already.
    if (isBinary === undefined) return true
    if (isBinary !== true || !(data instanceof Uint8Array)) return reject('malformed message')
    let docName: string
    let type: number
    try {
      ;({ docName, type } = readFrameHeader(data))
    } catch {
      // Garbage bytes: close, don't throw.
      return reject('malformed message')
    }
    if (!HOCUSPOCUS_CLIENT_TYPES.has(type)) return reject('unknown message type')
    if (!names.has(docName)) {
      if (names.size >= options.maxDocs) return reject('too many documents')
      names.add(docName)
    }
    let update: Uint8Array | undefined
    try {
      update = readHocuspocusUpdate(data)
    } catch {
      // A truncated sync frame.
      return reject('invalid update')
    }
    if (update && !isValidUpdate(update)) return reject('invalid update')
    return true
  }

  const wrapped = new WeakMap<Listener, Listener>()
  const wrap = (listener: Listener): Listener => {
    let w = wrapped.get(listener)
    if (!w) {
      w = (data, isBinary) => {
        if (accept(data, isBinary)) listener(data, isBinary)
      }
      wrapped.set(listener, w)
    }
    return w
  }
  const on = socket.on.bind(socket) as (event: string, listener: Listener) => WebSocket
  const off = socket.off.bind(socket) as (event: string, listener: Listener) => WebSocket
  const patched = socket as unknown as Record<'on' | 'addListener' | 'off' | 'removeListener', unknown>
  patched.on = patched.addListener = (event: string, listener: Listener) =>
    on(event, event === 'message' ? wrap(listener) : listener)
  patched.off = patched.removeListener = (event: string, listener: Listener) =>
    off(event, event === 'message' ? (wrapped.get(listener) ?? listener) : listener)
}
