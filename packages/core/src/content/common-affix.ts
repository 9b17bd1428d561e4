/**
 * Common prefix and suffix of two strings, fast on megabyte texts: chunks
 * are compared with `===` on slices (V8 compares flat strings with memcmp,
 * and a slice of a flat string is a view, not a copy), then the last chunk
 * character by character. A character loop over 1 MB takes milliseconds;
 * this takes a few hundredths of one.
 *
 * `diffStrings` is lib0's `simpleDiffString` on top of them: the same result
 * for every input (a surrogate pair is never split), without the cost.
 */

// Chunk sizes tried in turn: big ones skip equal text quickly, small ones narrow down the mismatch.
const CHUNKS = [1024, 32] as const

/** Length of the longest common prefix of `a` and `b`. */
export function commonPrefixLength(a: string, b: string): number {
  const max = Math.min(a.length, b.length)
  let i = 0
  for (const size of CHUNKS)
    while (i + size <= max && a.slice(i, i + size) === b.slice(i, i + size)) i += size
  while (i < max && a.charCodeAt(i) === b.charCodeAt(i)) i++
  return i
}

/** Length of the longest common suffix of `a` and `b`, at most `max` (default: the shorter length). */
export function commonSuffixLength(a: string, b: string, max = Math.min(a.length, b.length)): number {
  const limit = Math.min(max, a.length, b.length)
  let n = 0
  for (const size of CHUNKS)
    while (
      n + size <= limit &&
      a.slice(a.length - n - size, a.length - n) === b.slice(b.length - n - size, b.length - n)
    )
      n += size
  while (n < limit && a.charCodeAt(a.length - n - 1) === b.charCodeAt(b.length - n - 1)) n++
  return n
}

const isHighSurrogate = (c: number) => c >= 0xd800 && c <= 0xdbff
const isLowSurrogate = (c: number) => c >= 0xdc00 && c <= 0xdfff

/** One replacement that turns `a` into `b`: at `index`, remove `remove` characters and insert `insert`. */
export interface StringSplice {
  index: number
  remove: number
  insert: string
}

/**
 * The change from `a` to `b` as one splice between their common prefix and
 * suffix; the splice never starts or ends inside a surrogate pair.
 * Same result as lib0's `simpleDiffString(a, b)`.
 */
export function diffStrings(a: string, b: string): StringSplice {
  let left = commonPrefixLength(a, b)
  if (left > 0 && isHighSurrogate(a.charCodeAt(left - 1))) left--
  let right = commonSuffixLength(a, b, Math.min(a.length, b.length) - left)
  if (right > 0 && isLowSurrogate(a.charCodeAt(a.length - right))) right--
  return { index: left, remove: a.length - left - right, insert: b.slice(left, b.length - right) }
}
