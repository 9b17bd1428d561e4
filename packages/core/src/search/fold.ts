/**
 * Case folding for the trigram index: text and query strings are folded the
 * same way, so a file that can match a query (in any case mode) always
 * contains the query's folded trigrams.
 *
 * Folding is `toLowerCase()` of the whole string, then each UTF-16 code unit
 * mapped to one representative of its case class (`lower(upper(c))` when both
 * are one unit: `ſ`→`s`, `ς`→`σ`, `ϑ`→`θ`; Kelvin `K` was lowered to `k`).
 * Invariant: `a.includes(b)` ⇒ `fold(a).includes(fold(b))`, and two characters
 * RE2 equates under `(?i)` fold alike (checked over the BMP in fold.test.ts).
 * Lowering may change the length (`İ` → `i̇`): folded strings are for trigrams
 * only, never for positions.
 *
 * Not here: matching (query.ts verifies on the original text).
 */

// 0 = not computed yet; otherwise the representative + 1.
const table = new Uint32Array(0x10000)

// Pairs RE2 folds together that JavaScript's case mappings do not (found by fold.test.ts).
const EXTRA: Record<number, number> = { 8147: 0x390, 8163: 0x3b0, 64261: 0xfb06 }

function representative(unit: number): number {
  if (unit >= 0xd800 && unit <= 0xdfff) return unit
  const extra = EXTRA[unit]
  if (extra !== undefined) return extra
  const c = String.fromCharCode(unit)
  const lower = c.toLowerCase()
  if (lower.length !== 1) return unit
  const upper = lower.toUpperCase()
  if (upper.length !== 1) return lower.charCodeAt(0)
  const again = upper.toLowerCase()
  return again.length === 1 ? again.charCodeAt(0) : lower.charCodeAt(0)
}

/** The representative of one UTF-16 code unit of already-lowered text. */
export function foldUnit(unit: number): number {
  if (unit < 0x80) return unit >= 0x41 && unit <= 0x5a ? unit + 32 : unit
  let r = table[unit]!
  if (r === 0) {
    r = representative(unit) + 1
    table[unit] = r
  }
  return r - 1
}

/** The folded form of `text`: lowered, then each code unit folded (see the module comment). */
export function foldText(text: string): string {
  const lower = text.toLowerCase()
  // Most text is ASCII with a few other characters: copy runs, fold only the units that change.
  let out: string[] | undefined
  let copied = 0
  for (let i = 0; i < lower.length; i++) {
    const unit = lower.charCodeAt(i)
    if (unit < 0x80) continue
    const folded = foldUnit(unit)
    if (folded === unit) continue
    out ??= []
    out.push(lower.slice(copied, i), String.fromCharCode(folded))
    copied = i + 1
  }
  if (!out) return lower
  out.push(lower.slice(copied))
  return out.join('')
}
