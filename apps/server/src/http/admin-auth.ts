/**
 * The admin credential: `Authorization: Bearer <adminToken>`, compared in
 * constant time (SHA-256 digests of equal length, `timingSafeEqual`), so a
 * caller learns nothing from how long a wrong guess takes. Used by the admin
 * API and by `/healthz`'s counts. Without a configured admin token nothing
 * passes. Not here: what a route does once authorised.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

const digest = (value: string) => createHash('sha256').update(value).digest()

/** What an admin check sees in a request. */
export type AdminCredential = 'admin' | 'none' | 'wrong'

/**
 * A check of requests against `adminToken`: `admin` for the right bearer token, `none` when the
 * request carries no `Authorization` header, `wrong` otherwise (any other header, or any header
 * when no admin token is configured).
 */
export function createAdminCheck(
  adminToken: string | undefined,
): (request: IncomingMessage) => AdminCredential {
  const expected = adminToken ? digest(adminToken) : undefined
  return (request) => {
    const header = request.headers.authorization
    if (header === undefined) return 'none'
    const match = /^Bearer\s+(.+)$/i.exec(header)
    if (!expected || !match) return 'wrong'
    return timingSafeEqual(digest(match[1]!.trim()), expected) ? 'admin' : 'wrong'
  }
}
