/**
 * Origin and Host checks for MCP over HTTP (DNS-rebinding and cross-site
 * protection, as the MCP Streamable HTTP spec requires of servers).
 *
 * Invariants: a request passes only when its `Host` names this server, a
 * loopback name (localhost, 127.0.0.1, [::1]) on the port it arrived on, or
 * the host of the configured public URL; and its `Origin`, when present, is
 * a loopback origin on that port, the public URL's origin, or one of the
 * origins explicitly allowed. `Origin: null` (sandboxed frames, file pages)
 * never passes. Pure: no I/O, no state.
 */

/** What a server accepts besides loopback on its own port. */
export interface OriginPolicy {
  /** This server's public URL (e.g. https://yfs.example.com): its origin is allowed as Origin, its host as Host. */
  publicUrl?: string
  /** More origins allowed to call (e.g. a browser MCP client's page), as `scheme://host[:port]`. */
  allowedOrigins?: readonly string[]
}

/** The result of a check: `ok`, or the header that failed and why. */
export type OriginVerdict = { ok: true } | { ok: false; header: 'Origin' | 'Host'; message: string }

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]']

/**
 * `scheme://host[:port]` of an origin or URL, lower-cased, default port left
 * out (the form browsers send in `Origin`). Throws a readable error for
 * anything that is not an http(s) origin.
 */
export function normalizeOrigin(value: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new Error(`not an origin: ${JSON.stringify(value)} (expected e.g. https://app.example.com)`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Error(`not an http(s) origin: ${JSON.stringify(value)}`)
  return url.origin
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value)

/** Host header `name[:port]` split (`port` undefined when absent: the scheme's default). */
function parseHost(host: string): { name: string; port?: number } | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]/@\s]+)(?::(\d{1,5}))?$/i.exec(host.trim())
  if (!m) return undefined
  return { name: m[1]!.toLowerCase(), ...(m[2] === undefined ? {} : { port: Number(m[2]) }) }
}

/** Does `host` name `name` on `port`? A Host without a port means the scheme's default (80 or 443). */
const hostIs = (host: { name: string; port?: number }, names: string[], port: number, defaults: number[]) =>
  names.includes(host.name) && (host.port === undefined ? defaults.includes(port) : host.port === port)

function loopbackOrigins(port: number): Set<string> {
  const out = new Set<string>()
  for (const scheme of ['http', 'https'])
    for (const name of LOOPBACK_NAMES) out.add(normalizeOrigin(`${scheme}://${name}:${port}`))
  return out
}

/**
 * Check the `Host` and `Origin` headers of a request that arrived on local
 * port `port` against `policy`.
 */
export function checkOriginAndHost(
  headers: { host?: string | string[]; origin?: string | string[] },
  port: number,
  policy: OriginPolicy = {},
): OriginVerdict {
  const publicUrl = policy.publicUrl ? new URL(policy.publicUrl) : undefined
  const host = single(headers.host)
  const parsed = host === undefined ? undefined : parseHost(host)
  const publicDefault = publicUrl?.protocol === 'https:' ? 443 : 80
  const publicPort = publicUrl && Number(publicUrl.port || publicDefault)
  const hostOk =
    parsed !== undefined &&
    (hostIs(parsed, LOOPBACK_NAMES, port, [80, 443]) ||
      (publicUrl !== undefined &&
        hostIs(parsed, [publicUrl.hostname.toLowerCase()], publicPort!, [publicDefault])))
  if (!hostOk)
    return {
      ok: false,
      header: 'Host',
      message: `Host ${JSON.stringify(host ?? '')} is not this server: use localhost:${port}${publicUrl ? ` or ${publicUrl.host}` : ''} (a public name needs --public-url)`,
    }
  const origin = single(headers.origin)
  if (origin === undefined) return { ok: true }
  let normalized: string | undefined
  try {
    normalized = normalizeOrigin(origin)
  } catch {
    normalized = undefined
  }
  const allowed = loopbackOrigins(port)
  if (publicUrl) allowed.add(publicUrl.origin)
  for (const o of policy.allowedOrigins ?? []) allowed.add(normalizeOrigin(o))
  if (normalized !== undefined && allowed.has(normalized)) return { ok: true }
  return {
    ok: false,
    header: 'Origin',
    message: `Origin ${JSON.stringify(origin)} is not allowed to use this MCP server (allow it with --allow-origin)`,
  }
}
