/**
 * Serves the built web app (`apps/web/dist`) at `/` on the sync port.
 *
 *   GET|HEAD /assets/<hashed name>   the file, cached for a year (`immutable`)
 *   GET|HEAD /<existing file>        the file, revalidated on every load (`no-cache`)
 *   GET|HEAD /<path without a dot>   index.html (SPA fallback; the app reads the fragment)
 *   anything else                    404
 *
 * Every response of the app carries a strict Content-Security-Policy (see
 * `contentSecurityPolicy`): scripts only from this origin (no inline, no
 * eval), connections only to this origin and its WebSocket, no plugins, no
 * framing, no `<base>`. Workspace files are untrusted input shown by the app,
 * so the policy is the last line if a file ever got rendered as markup.
 *
 * Paths are percent-decoded once, must not contain NUL or backslashes, are
 * normalised as POSIX paths and then checked to stay inside the app folder,
 * after resolving symlinks too: `/../`, `%2e%2e`, `%2f` tricks end in 404.
 * Files are read per request (the folder may be rebuilt while serving).
 *
 * What it deliberately doesn't do: compression, ranges, directory listings,
 * serving dot-files.
 */
import { createReadStream } from 'node:fs'
import { realpath, stat } from 'node:fs/promises'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { extname, join, posix, sep } from 'node:path'

export interface WebAppOptions {
  /**
   * Folder with the built app (`index.html`, `assets/`); `undefined` serves no app (every path
   * falls through). It may not exist yet: pages then answer 503 saying how to build it.
   */
  dir: string | undefined
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.map': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
}

// A Host header we are willing to echo into the policy (host, IPv4, [IPv6], optional port).
const SAFE_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

/**
 * The Content-Security-Policy of every app response. `host` (the request's
 * Host header, when it looks like one) adds the explicit WebSocket origins;
 * CSP 3 browsers already allow them through `'self'`.
 */
export function contentSecurityPolicy(host?: string): string {
  const ws = host && SAFE_HOST.test(host) ? ` ws://${host} wss://${host}` : ''
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Editors position cursors and selections with inline style attributes; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self' data:",
    `connect-src 'self'${ws}`,
    "worker-src 'self' blob:",
    "object-src 'none'",
    "frame-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
  ].join('; ')
}

/** Headers sent with every app response (the policy plus the usual hardening). */
export function securityHeaders(host?: string): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(host),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
    'x-frame-options': 'DENY',
  }
}

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>yfs</title>
<p>The yfs web app is not built. Run <code>pnpm --filter @yfs/web build</code> (or <code>pnpm start</code>) and reload.</p>\n`

/**
 * Map a request path to a path relative to the app folder, or `undefined`
 * when it is malformed or would leave the folder.
 */
export function toAppPath(pathname: string): string | undefined {
  let decoded: string
  try {
    decoded = decodeURIComponent(pathname)
  } catch {
    return undefined
  }
  if (decoded.includes('\0') || decoded.includes('\\') || !decoded.startsWith('/')) return undefined
  // No climbing ('..') and no dot-files ('.env', '.git'); '.' segments are refused with them.
  if (decoded.split('/').some((part) => part.startsWith('.'))) return undefined
  const normal = posix.normalize(decoded)
  return normal.slice(1)
}

/** Returns a handler that serves the app for GET/HEAD and resolves `false` for other methods or without `dir`. */
export function createWebApp(options: WebAppOptions) {
  const { dir } = options

  /** The real path of `relative` inside the app folder, if it is a regular file there. */
  async function resolveFile(relative: string): Promise<{ file: string; size: number } | undefined> {
    if (!dir) return undefined
    try {
      const root = await realpath(dir)
      const file = await realpath(join(root, relative))
      if (file !== root && !file.startsWith(root + sep)) return undefined
      const info = await stat(file)
      return info.isFile() ? { file, size: info.size } : undefined
    } catch (error) {
      // A missing file (or app folder) is an ordinary 404 / fallback; anything else is a fault.
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
      throw error
    }
  }

  function send(
    request: IncomingMessage,
    response: ServerResponse,
    status: number,
    headers: Record<string, string | number>,
    body: string | { file: string },
  ): void {
    response.writeHead(status, { ...securityHeaders(request.headers.host), ...headers })
    if (request.method === 'HEAD') {
      response.end()
      return
    }
    if (typeof body === 'string') {
      response.end(body)
      return
    }
    const stream = createReadStream(body.file)
    stream.on('error', () => response.destroy())
    stream.pipe(response)
  }

  return async function handleWebApp(request: IncomingMessage, response: ServerResponse): Promise<boolean> {
    const method = request.method ?? 'GET'
    if (!dir || (method !== 'GET' && method !== 'HEAD')) return false
    const pathname = (request.url ?? '/').split('?')[0]!.split('#')[0]!
    const relative = toAppPath(pathname)
    const text = { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }
    if (relative === undefined) {
      send(request, response, 404, text, 'not found\n')
      return true
    }
    const found = relative === '' ? undefined : await resolveFile(relative)
    if (found) {
      const immutable = relative.startsWith('assets/')
      send(
        request,
        response,
        200,
        {
          'content-type': TYPES[extname(found.file).toLowerCase()] ?? 'application/octet-stream',
          'content-length': found.size,
          'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
        },
        { file: found.file },
      )
      return true
    }
    // A missing asset or file name must not turn into HTML (the browser would run it as the wrong type).
    const lastSegment = relative.split('/').pop() ?? ''
    if (relative.startsWith('assets/') || lastSegment.includes('.')) {
      send(request, response, 404, text, 'not found\n')
      return true
    }
    const index = await resolveFile('index.html')
    if (!index) {
      send(
        request,
        response,
        503,
        { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
        NOT_BUILT,
      )
      return true
    }
    send(
      request,
      response,
      200,
      { 'content-type': TYPES['.html']!, 'content-length': index.size, 'cache-control': 'no-cache' },
      { file: index.file },
    )
    return true
  }
}
