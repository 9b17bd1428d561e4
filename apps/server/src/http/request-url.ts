/**
 * The URL of an incoming request, parsed without surprises: `new URL(request.url, base)` reads a
 * path starting with `//` as a host (`//x/healthz` → host `x`, path `/healthz`) and throws on
 * some (`//%00`), so the path is always appended to a fixed origin instead. Absolute-form
 * request targets (`GET http://h/p`) keep only their path and query.
 */
import type { IncomingMessage } from 'node:http'

/** The request's path and query as a URL on `http://localhost`; `/` when the target is unusable. */
export function requestUrl(request: IncomingMessage): URL {
  let target = request.url ?? '/'
  if (!target.startsWith('/')) {
    try {
      const absolute = new URL(target)
      target = `${absolute.pathname}${absolute.search}`
    } catch {
      target = '/'
    }
  }
  try {
    return new URL(`http://localhost${target}`)
  } catch {
    return new URL('http://localhost/')
  }
}
