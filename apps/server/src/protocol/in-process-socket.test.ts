import { describe, expect, it } from 'vitest'
import { type AcceptedSocket, createInProcessWebSocket } from './in-process-socket.js'

/** A connection whose server end records what it gets. */
function connect() {
  const server = {
    socket: undefined as AcceptedSocket | undefined,
    got: [] as string[],
    closes: [] as unknown[],
  }
  const WebSocket = createInProcessWebSocket((socket) => {
    server.socket = socket
    socket.on('message', (data: Buffer, isBinary: boolean) =>
      server.got.push(`${data.toString()}:${isBinary}`),
    )
    socket.once('close', (code, reason) => server.closes.push([code, reason.toString()]))
  })
  const client = new WebSocket('ws://in-process')
  const events: unknown[] = []
  client.addEventListener('open', () => events.push('open'))
  client.addEventListener('message', (e) => events.push(new TextDecoder().decode(e.data as ArrayBuffer)))
  client.addEventListener('close', (e) => events.push(['close', e.code, e.reason]))
  return { server, client, events }
}

const turn = () => new Promise((resolve) => setImmediate(resolve))
const encode = (text: string) => new TextEncoder().encode(text)

describe('in-process WebSocket', () => {
  it('opens after the constructor returns, and the server accepts it then', async () => {
    const { server, client, events } = connect()
    expect(client.readyState).toBe(0)
    expect(server.socket).toBeUndefined()
    expect(() => client.send(encode('early'))).toThrow(/connecting/)
    await turn()
    expect(client.readyState).toBe(1)
    expect(server.socket?.readyState).toBe(1)
    expect(events).toEqual(['open'])
  })

  it('delivers frames in order, both ways, never inside the sender’s call', async () => {
    const { server, client, events } = connect()
    await turn()
    // A view into a larger buffer: only its bytes arrive.
    const big = encode('xxtwoxx')
    client.send(encode('one'))
    client.send(big.subarray(2, 5))
    server.socket!.send(encode('a'))
    server.socket!.send(encode('zbz').subarray(1, 2))
    expect(server.got).toEqual([])
    expect(events).toEqual(['open'])
    await turn()
    expect(server.got).toEqual(['one:true', 'two:true'])
    expect(events).toEqual(['open', 'a', 'b'])
  })

  it('a server close reaches the client after the frames sent before it, with its code and reason; once', async () => {
    const { server, client, events } = connect()
    await turn()
    server.socket!.send(encode('last'))
    server.socket!.close(4400, 'bad frame')
    server.socket!.close(1000, 'again')
    expect(server.socket!.readyState).toBe(2)
    server.socket!.send(encode('after'), (error) => events.push(`send: ${error?.message}`))
    await turn()
    expect(events).toEqual(['open', 'send: WebSocket is not open', 'last', ['close', 4400, 'bad frame']])
    expect(server.closes).toEqual([[4400, 'bad frame']])
    expect(client.readyState).toBe(3)
    client.send(encode('ignored'))
    await turn()
    expect(server.got).toEqual([])
  })

  it('a client close reaches the server after its frames; without a code the server sees 1005', async () => {
    const { server, client, events } = connect()
    await turn()
    client.send(encode('bye'))
    client.close()
    await turn()
    expect(server.got).toEqual(['bye:true'])
    expect(server.closes).toEqual([[1005, '']])
    expect(events).toEqual(['open', ['close', 1005, '']])
  })

  it('closed while connecting: the server never hears of it', async () => {
    const { server, client, events } = connect()
    client.close()
    await turn()
    await turn()
    expect(server.socket).toBeUndefined()
    expect(events).toEqual([['close', 1006, '']])
  })

  it('terminate ends both sides at once (1006); a ping is answered with a pong', async () => {
    const { server, events } = connect()
    await turn()
    let pongs = 0
    server.socket!.on('pong', () => pongs++)
    server.socket!.ping()
    await turn()
    await turn()
    expect(pongs).toBe(1)
    server.socket!.terminate()
    expect(server.closes).toEqual([[1006, '']])
    expect(events).toEqual(['open', ['close', 1006, '']])
  })
})
