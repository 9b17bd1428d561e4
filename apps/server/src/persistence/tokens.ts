/**
 * Token minting and hashing. Tokens are 32 random bytes (base64url) behind a
 * `yfs_` prefix; stores keep only their SHA-256, so a leaked database does not
 * leak usable tokens.
 */
import { createHash, randomBytes } from 'node:crypto'

/** A new random token. */
export function createTokenSecret(): string {
  return `yfs_${randomBytes(32).toString('base64url')}`
}

/** Hex SHA-256 of a token: the only form stores keep. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}
