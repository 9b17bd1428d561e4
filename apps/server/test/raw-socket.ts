/**
 * A raw WebSocket speaking Hocuspocus frames by hand, for hostile-client tests.
 */
import * as encoding from 'lib0/encoding'
import { WebSocket } from 'ws'

export interface RawSocket {
  ws: WebSocket
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>
  send(data: Uint8Array | string): void
}

export async function openRawSocket(url: string): Promise<RawSocket> {
  const ws = new WebSocket(url)
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  ws.on('error', () => undefined)
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  return { ws, closed, send: (data) => ws.send(data) }
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
