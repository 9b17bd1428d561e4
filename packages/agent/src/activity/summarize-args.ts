/**
 * Arguments as the activity log keeps them: file contents (and any long
 * string) become `{ size, sha256 }`, so the log never holds a file whole;
 * short strings, numbers and booleans stay as given. Tools take no tokens or
 * environment values; a key that looks like one is dropped all the same.
 */
import { createHash } from 'node:crypto'

/** Argument keys whose value is file content: always summarised. */
const CONTENT_KEYS = new Set(['content', 'old_text', 'new_text', 'old_string', 'new_string', 'patch', 'text'])
/** Keys never stored (no tool takes them today; a tool added later must not leak one). */
const SECRET_KEY = /token|secret|password|env|authorization/i
/** Longer strings are summarised too (a script is kept up to this length). */
const MAX_KEPT = 2000

const summary = (text: string) => ({
  size: Buffer.byteLength(text),
  sha256: createHash('sha256').update(text).digest('hex').slice(0, 16),
})

function summarizeValue(key: string, value: unknown, depth: number): unknown {
  if (typeof value === 'string')
    return CONTENT_KEYS.has(key) || value.length > MAX_KEPT ? summary(value) : value
  if (typeof value !== 'object' || value === null) return value
  if (depth > 3) return '…'
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => summarizeValue(key, v, depth + 1))
  return summarizeArgs(value as Record<string, unknown>, depth + 1)
}

/** The log's copy of a tool call's arguments. */
export function summarizeArgs(args: unknown, depth = 0): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return {}
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(args)) {
    if (SECRET_KEY.test(key)) continue
    out[key] = summarizeValue(key, value, depth)
  }
  return out
}
