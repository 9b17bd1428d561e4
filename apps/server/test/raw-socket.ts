/**
 * A raw WebSocket speaking Hocuspocus frames by hand, for hostile-client tests.
 * It records what the server sends, decoded as far as the tests need:
 * authentication results and stateless payloads, per document.
 */
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import { WebSocket } from 'ws'

/** A frame the server sent, with the fields the tests read. */
export interface ServerFrame {
  docName: string
  type: number
  /** Auth frames: 'authenticated' | 'denied'; with the scope or reason in `text`. */
  auth?: 'authenticated' | 'denied'
  /** Stateless payloads, the scope of an authentication, or a denial's reason. */
  text?: string
  bytes: number
}

export interface RawSocket {
  ws: WebSocket
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>
  /** Every frame received so far, in order. */
  received: ServerFrame[]
  send(data: Uint8Array | string): void
  /** Resolves with the first received frame (past or future) that `match` accepts. */
  next(match: (frame: ServerFrame) => boolean, timeoutMs?: number): Promise<ServerFrame>
}

/** A frame the server sent, decoded as far as the tests need (a client's stateless frames read alike). */
export function decodeFrame(data: Uint8Array): ServerFrame {
  const decoder = decoding.createDecoder(data)
  const docName = decoding.readVarString(decoder)
  const type = decoding.readVarUint(decoder)
  const frame: ServerFrame = { docName, type, bytes: data.byteLength }
  if (type === 2) {
    const sub = decoding.readVarUint(decoder)
    if (sub === 2) frame.auth = 'authenticated'
    if (sub === 1) frame.auth = 'denied'
    frame.text = decoding.readVarString(decoder)
  } else if (type === 5) frame.text = decoding.readVarString(decoder)
  return frame
}

export async function openRawSocket(url: string): Promise<RawSocket> {
  const ws = new WebSocket(url)
  const received: ServerFrame[] = []
  const waiters = new Set<(frame: ServerFrame) => void>()
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  ws.on('error', () => undefined)
  ws.on('message', (data: Buffer) => {
    let frame: ServerFrame
    try {
      frame = decodeFrame(new Uint8Array(data))
    } catch {
      return
    }
    received.push(frame)
    for (const waiter of waiters) waiter(frame)
  })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  return {
    ws,
    closed,
    received,
    send: (data) => ws.send(data),
    next(match, timeoutMs = 10_000) {
      const seen = received.find(match)
      if (seen) return Promise.resolve(seen)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(waiter)
          reject(new Error('no matching frame from the server'))
        }, timeoutMs)
        const waiter = (frame: ServerFrame) => {
          if (!match(frame)) return
          clearTimeout(timer)
          waiters.delete(waiter)
          resolve(frame)
        }
        waiters.add(waiter)
      })
    },
  }
}

/** Open a raw socket and authenticate `docName` with `token`; resolves once the server said yes. */
export async function openAuthenticated(url: string, docName: string, token: string): Promise<RawSocket> {
  const raw = await openRawSocket(url)
  raw.send(authFrame(docName, token))
  const answer = await raw.next((f) => f.docName === docName && f.auth !== undefined)
  if (answer.auth !== 'authenticated') throw new Error(`not authenticated: ${answer.text}`)
  return raw
}

export function authFrame(docName: string, token: string): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarString(e, docName)
  encoding.writeVarUint(e, 2) // Auth
  encoding.writeVarUint(e, 0) // Token
  encoding.writeVarString(e, token)
  return encoding.toUint8Array(e)
}

export function updateFrame(docName: string, update: Uint8Array): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarString(e, docName)
  encoding.writeVarUint(e, 0) // Sync
  encoding.writeVarUint(e, 2) // Update
  encoding.writeVarUint8Array(e, update)
  return encoding.toUint8Array(e)
}

/** A stateless message (type 5), or a broadcast stateless message (type 6). */
export function statelessFrame(docName: string, payload: string, broadcast = false): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarString(e, docName)
  encoding.writeVarUint(e, broadcast ? 6 : 5)
  encoding.writeVarString(e, payload)
  return encoding.toUint8Array(e)
}

/** The awareness update body: `[clientID, clock, JSON state text]` per client (y-protocols layout). */
export function awarenessUpdate(entries: readonly [number, number, string][]): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarUint(e, entries.length)
  for (const [clientID, clock, state] of entries) {
    encoding.writeVarUint(e, clientID)
    encoding.writeVarUint(e, clock)
    encoding.writeVarString(e, state)
  }
  return encoding.toUint8Array(e)
}

/** An awareness frame (type 1) carrying `update`. */
export function awarenessFrame(docName: string, update: Uint8Array): Uint8Array {
  const e = encoding.createEncoder()
  encoding.writeVarString(e, docName)
  encoding.writeVarUint(e, 1)
  encoding.writeVarUint8Array(e, update)
  return encoding.toUint8Array(e)
}

/** A JSON text nested `depth` arrays deep: `[[[…]]]`. */
export function nestedJson(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`
}
