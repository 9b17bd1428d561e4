/**
 * JSON over node:http: read a bounded request body, write a response.
 * Errors thrown as HttpError become `{ "error": message }` with their status.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

export class HttpError extends Error {
  readonly status: number
  constructor(status: number, message: string) {
    super(message)
    this.name = 'HttpError'
    this.status = status
  }
}

/** Parse a JSON object body of at most `limit` bytes. Throws HttpError 400/413. */
export async function readJson(
  request: IncomingMessage,
  limit = 64 * 1024,
): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of request) {
    size += (chunk as Buffer).byteLength
    if (size > limit) throw new HttpError(413, 'request body too large')
    chunks.push(chunk as Buffer)
  }
  if (size === 0) return {}
  let value: unknown
  try {
    value = JSON.parse(Buffer.concat(chunks).toString('utf8'))
  } catch {
    throw new HttpError(400, 'invalid JSON body')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'body must be a JSON object')
  }
  return value as Record<string, unknown>
}

export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  })
  response.end(text)
}
