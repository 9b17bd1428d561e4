/**
 * Name rules: what a stored name (a row's `name`, one path component) may be,
 * and the name a row is shown under when its stored name breaks them.
 *
 * A valid name is non-empty, not `.` or `..`, holds no `/`, `\` or NUL, and
 * is at most `MAX_NAME_BYTES` UTF-8 bytes. Core writes only valid names (the
 * filesystem checks every new name; the files table stores the safe name of a
 * row it rewrites); the sync server refuses updates whose rows break these
 * rules. Rows with invalid names can still exist (a store from before servers
 * checked, an old server): they are shown under `safeName(name)`, a valid name
 * derived from the stored one alone, so every replica shows the same.
 *
 * Not here: the configurable `limits.maxNameLength` (limits.ts), which can only
 * lower the ceiling, and the errors the filesystem throws (fs/names.ts).
 */
import { utf8Length } from './encoding.js'

/** Longest stored name, in UTF-8 bytes (POSIX NAME_MAX); `limits.maxNameLength` only lowers it. */
export const MAX_NAME_BYTES = 255

/**
 * Longest safe name before it is cut, and the bytes kept then, before the `…`: under
 * `MAX_NAME_BYTES` so that a duplicate suffix (` (n)`) still fits.
 */
const SAFE_PREFIX_BYTES = 240

/** True when `name` holds `/`, `\` or NUL: one pass, no regex (called for every row shown). */
function hasSeparator(name: string): boolean {
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i)
    if (c === 0x2f || c === 0x5c || c === 0) return true
  }
  return false
}

/** True when `name` is longer than `maxBytes` UTF-8 bytes (no encoding for short or huge names). */
function tooLong(name: string, maxBytes: number): boolean {
  // A UTF-16 unit is 1–3 UTF-8 bytes (a surrogate pair: 4 for 2), so length bounds the bytes both ways.
  if (name.length > maxBytes) return true
  if (name.length * 3 <= maxBytes) return false
  return utf8Length(name) > maxBytes
}

/**
 * Why `name` cannot be stored, or `undefined` when it can. `maxBytes` defaults to
 * (and should never exceed) `MAX_NAME_BYTES`.
 */
export function nameProblem(name: string, maxBytes = MAX_NAME_BYTES): string | undefined {
  if (name === '' || name === '.' || name === '..') return `reserved file name '${name}'`
  if (hasSeparator(name)) return 'file names cannot contain /, \\ or NUL'
  if (tooLong(name, maxBytes)) return `name longer than ${maxBytes} bytes`
  return undefined
}

/** True when `name` is a valid stored name (`nameProblem` finds nothing); cheap enough per row. */
export function isValidName(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !hasSeparator(name) && !tooLong(name, MAX_NAME_BYTES)
}

const HEX = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`

/**
 * The name a row whose stored name is invalid is shown under (and stored as when the row is
 * next written): `name` itself when valid; otherwise `%`, `/`, `\` and NUL percent-encoded
 * (`a/b` → `a%2Fb`), `.` and `..` as `%2E` and `%2E%2E`, and a result over 240 UTF-8 bytes
 * cut to its first 240 bytes (whole characters) followed by `…`. Depends on `name` only, so
 * every replica derives the same; the result is always valid. Two rows can get the same safe
 * name (or one a sibling has): the duplicate-name suffixes tell them apart (sibling-names.ts).
 *
 * @example safeName('..') === '%2E%2E'; safeName('50%/x') === '50%25%2Fx'
 */
export function safeName(name: string): string {
  if (isValidName(name)) return name
  // Empty names never get here (a row with an empty name is not a valid row); `%` keeps it total.
  if (name === '') return '%'
  if (name === '.') return '%2E'
  if (name === '..') return '%2E%2E'
  // A huge name is cut anyway, and its kept prefix comes from its first 240 units (escaping only
  // lengthens): escape just those, not 2 MB.
  const source = name.length > 2 * MAX_NAME_BYTES ? name.slice(0, SAFE_PREFIX_BYTES + 1) : name
  const escaped = source.replace(/[%/\\\0]/g, HEX)
  if (source === name && !tooLong(escaped, SAFE_PREFIX_BYTES)) return escaped
  let bytes = 0
  let end = 0
  for (const ch of escaped) {
    const size = utf8Length(ch)
    if (bytes + size > SAFE_PREFIX_BYTES) break
    bytes += size
    end += ch.length
  }
  return `${escaped.slice(0, end)}…`
}
