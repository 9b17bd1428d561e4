/**
 * A TCP relay in front of a service (Redis, say) that a test can cut and restore: cut, it
 * closes every connection and refuses new ones, as a service that went away; restored, it
 * accepts on the same port again.
 */
import { createServer, type Server, Socket } from 'node:net'

export interface TcpRelay {
  /** `host:port` to connect to instead of the service. */
  readonly address: string
  /** Close every connection and refuse new ones. */
  cut(): Promise<void>
  /** Accept connections again (on the same port). */
  restore(): Promise<void>
  close(): Promise<void>
}

export async function startTcpRelay(target: { host: string; port: number }): Promise<TcpRelay> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const upstream = new Socket()
    sockets.add(client)
    sockets.add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    upstream.connect(target.port, target.host, () => {
      client.pipe(upstream)
      upstream.pipe(client)
    })
  })
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject)
        resolve()
      })
    })
  await listen(0)
  const port = (server.address() as { port: number }).port
  const cut = async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()))
    for (const socket of sockets) socket.destroy()
    sockets.clear()
    await closed
  }
  return {
    address: `127.0.0.1:${port}`,
    cut,
    restore: () => listen(port),
    close: async () => {
      if (server.listening) await cut()
    },
  }
}
