/**
 * A WebSocket connection inside one process, for the server's own sessions
 * (`/mcp`): their workspace client gets a browser-shaped socket (what
 * HocuspocusProvider uses), and the server gets a `ws`-shaped one that takes
 * the same path as a network client's: the guard (guarded-socket.ts), then
 * Hocuspocus, with the same authentication, checks and limits. Only the
 * transport is gone: no TCP writes, no frame masking and parsing, which
 * were about a tenth of the server's time under an agent's `bash` (profiles
 * of `apps/server/bench/mcp-bash.bench.ts`).
 *
 * Frames keep their order and arrive asynchronously, never inside the
 * sender's call (a queue per direction, drained in one `setImmediate` per
 * burst), as over a network: a send returns before the peer sees it.
 * Closing follows the WebSocket handshake as both libraries see it: the
 * closer's socket is `CLOSING` until its peer has taken every frame sent
 * before the close, then both sides are `CLOSED` and emit `close` once.
 *
 * Invariant: bytes are handed over, not copied; neither library reuses a
 * buffer it has sent (each message is encoded afresh).
 */
import { EventEmitter } from 'node:events'

/** WebSocket ready states (the same numbers in `ws` and in browsers). */
const CONNECTING = 0
const OPEN = 1
const CLOSING = 2
const CLOSED = 3

/** The close code a side reports when the other closed without one (RFC 6455 "no status"). */
const NO_STATUS = 1005
/** The close code of a connection that ended without a handshake (terminate). */
const ABNORMAL = 1006

/** The `ws`-shaped side the server accepts (the members the guard and the server use). */
export interface AcceptedSocket {
  readonly readyState: number
  send(data: Uint8Array, callback?: (error?: Error) => void): void
  ping(): void
  close(code?: number, reason?: string): void
  terminate(): void
  on(event: 'message', listener: (data: Buffer, isBinary: boolean) => void): this
  on(event: 'pong' | 'error', listener: (...args: unknown[]) => void): this
  once(event: 'close', listener: (code: number, reason: Buffer) => void): this
}

/** What the server does with a new in-process connection (guard it, hand it to Hocuspocus). */
export type AcceptConnection = (socket: AcceptedSocket) => void

/** Deliveries in order, one `setImmediate` per burst. */
class Outbox {
  #queue: (() => void)[] = []
  #scheduled = false

  push(deliver: () => void): void {
    this.#queue.push(deliver)
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => this.#drain())
  }

  #drain(): void {
    this.#scheduled = false
    const queue = this.#queue
    this.#queue = []
    for (const deliver of queue) deliver()
  }
}

/** One connection: its two ends share the state. */
class Connection {
  state = CONNECTING
  /** Each end's frames, in order; a close is queued behind them. */
  readonly toServer = new Outbox()
  readonly toClient = new Outbox()
  ended = false
  readonly server: ServerEnd
  readonly client: InProcessWebSocket

  constructor(client: InProcessWebSocket) {
    this.client = client
    this.server = new ServerEnd(this)
  }

  /** Both ends report `close` with `code`/`reason`, once. */
  end(code: number, reason: string): void {
    if (this.ended) return
    this.ended = true
    this.state = CLOSED
    this.server.emit('close', code, Buffer.from(reason))
    this.client.dispatch('close', { type: 'close', code, reason, wasClean: code !== ABNORMAL })
  }
}

class ServerEnd extends EventEmitter implements AcceptedSocket {
  readonly #conn: Connection

  constructor(conn: Connection) {
    super()
    this.#conn = conn
  }

  get readyState(): number {
    return this.#conn.state
  }

  send(data: Uint8Array, callback?: (error?: Error) => void): void {
    const conn = this.#conn
    if (conn.state !== OPEN) {
      callback?.(new Error('WebSocket is not open'))
      return
    }
    conn.toClient.push(() => {
      if (conn.ended) return
      // Browsers hand over an ArrayBuffer (`binaryType = 'arraybuffer'`): the bytes alone.
      const whole = data.byteOffset === 0 && data.byteLength === data.buffer.byteLength
      const buffer = whole ? data.buffer : data.slice().buffer
      conn.client.dispatch('message', { type: 'message', data: buffer })
    })
    callback?.()
  }

  ping(): void {
    const conn = this.#conn
    if (conn.state !== OPEN) return
    // The client answers at once, as browsers do, behind the frames already sent.
    conn.toClient.push(() => conn.toServer.push(() => !conn.ended && this.emit('pong')))
  }

  close(code?: number, reason = ''): void {
    const conn = this.#conn
    if (conn.state >= CLOSING) return
    conn.state = CLOSING
    conn.toClient.push(() => conn.end(code ?? NO_STATUS, reason))
  }

  terminate(): void {
    this.#conn.end(ABNORMAL, '')
  }
}

type Listener = (event: Record<string, unknown>) => void

/**
 * The client end, shaped as a browser WebSocket (constructor with a URL, `binaryType`,
 * `readyState`, `addEventListener`, `send`, `close`). Made by `createInProcessWebSocket`.
 */
export class InProcessWebSocket {
  static readonly CONNECTING = CONNECTING
  static readonly OPEN = OPEN
  static readonly CLOSING = CLOSING
  static readonly CLOSED = CLOSED
  readonly CONNECTING = CONNECTING
  readonly OPEN = OPEN
  readonly CLOSING = CLOSING
  readonly CLOSED = CLOSED
  readonly url: string
  binaryType = 'arraybuffer'
  onopen: Listener | null = null
  onmessage: Listener | null = null
  onclose: Listener | null = null
  onerror: Listener | null = null
  readonly #conn: Connection
  readonly #listeners = new Map<string, Set<Listener>>()

  constructor(url: string, accept: AcceptConnection) {
    this.url = url
    const conn = new Connection(this)
    this.#conn = conn
    // Opened after the constructor returns, as a network socket is: listeners are attached by then.
    conn.toServer.push(() => {
      if (conn.state !== CONNECTING) return
      conn.state = OPEN
      try {
        accept(conn.server)
      } catch {
        conn.end(ABNORMAL, '')
        return
      }
      this.dispatch('open', { type: 'open' })
    })
  }

  get readyState(): number {
    return this.#conn.state
  }

  addEventListener(type: string, listener: Listener): void {
    let set = this.#listeners.get(type)
    if (!set) {
      set = new Set()
      this.#listeners.set(type, set)
    }
    set.add(listener)
  }

  removeEventListener(type: string, listener: Listener): void {
    this.#listeners.get(type)?.delete(listener)
  }

  send(data: ArrayBufferLike | ArrayBufferView): void {
    const conn = this.#conn
    if (conn.state === CONNECTING) throw new Error('InvalidStateError: the WebSocket is still connecting')
    if (conn.state !== OPEN) return
    const bytes = ArrayBuffer.isView(data)
      ? Buffer.from(data.buffer, data.byteOffset, data.byteLength)
      : Buffer.from(data as ArrayBuffer)
    conn.toServer.push(() => !conn.ended && conn.server.emit('message', bytes, true))
  }

  close(code?: number, reason = ''): void {
    const conn = this.#conn
    if (conn.state >= CLOSING) return
    if (conn.state === CONNECTING) {
      // Never opened: the server never hears of it.
      conn.state = CLOSED
      conn.toClient.push(() => conn.end(ABNORMAL, ''))
      return
    }
    conn.state = CLOSING
    conn.toServer.push(() => conn.end(code ?? NO_STATUS, reason))
  }

  /** Call the `on…` handler and the listeners of `type`. */
  dispatch(type: string, event: Record<string, unknown>): void {
    const handler = (this as unknown as Record<string, Listener | null>)[`on${type}`]
    handler?.call(this, event)
    for (const listener of [...(this.#listeners.get(type) ?? [])]) listener.call(this, event)
  }
}

/**
 * A WebSocket class (for `connectWorkspace`'s `WebSocket` option) whose connections go to
 * `accept` in this process; the URL it is given is kept, not dialled.
 */
export function createInProcessWebSocket(accept: AcceptConnection): new (url: string) => InProcessWebSocket {
  return class extends InProcessWebSocket {
    constructor(url: string) {
      super(url, accept)
    }
  }
}
