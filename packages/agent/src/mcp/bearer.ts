/**
 * Bearer tokens for MCP over HTTP: reading `Authorization: Bearer <t>`,
 * comparing secrets without leaking through timing, and making new ones.
 *
 * Invariant: secrets are compared as SHA-256 digests with
 * `crypto.timingSafeEqual`, so neither the content nor the length of the
 * expected secret shows in how long a comparison takes.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { IncomingMessage } from 'node:http'

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(req: IncomingMessage): string | undefined {
  const auth = req.headers.authorization
  const m = auth === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(auth)
  return m?.[1]
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()

/** Whether two secrets are equal, in time independent of where they differ. */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected))
}

/** A fresh random token (256 bits, base64url). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url')
}
