/**
 * Raw MCP-over-HTTP requests with any headers (node:http: fetch would not
 * send a forged `Host`), for the hostile cases of the HTTP endpoints.
 */
import { request } from 'node:http'

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
}

export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** Send `method` to http://127.0.0.1:port/mcp with exactly these headers (plus JSON/SSE accept for POST). */
export function rawMcp(
  port: number,
  method: 'POST' | 'GET' | 'DELETE' | 'OPTIONS',
  headers: Record<string, string>,
  body: unknown = method === 'POST' ? INITIALIZE : undefined,
): Promise<RawResponse> {
  const payload = body === undefined ? undefined : JSON.stringify(body)
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method,
        headers: {
          ...(payload
            ? { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
            : {}),
          ...(method === 'GET' ? { accept: 'text/event-stream' } : {}),
          ...headers,
        },
      },
      (res) => {
        // A GET stream that was accepted stays open: its headers are the answer.
        if (method === 'GET' && res.statusCode === 200) {
          res.destroy()
          return resolve({ status: 200, headers: res.headers, body: '' })
        }
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d) => {
          text += d
        })
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}
