/**
 * Requirements: what any text matching a query must contain, as an AND/OR
 * tree of folded substrings (fold.ts) — Russ Cox's "Regular Expression
 * Matching with a Trigram Index", with whole substrings kept so the same tree
 * drives both the trigram index and a SQL `LIKE` filter.
 *
 * Invariant: if a line matches the query, its folded text satisfies the
 * requirement (`satisfies`). `true` requires nothing (every file is a
 * candidate); it never under-selects, only over-selects.
 *
 * Not here: deriving a requirement from a regex (regex-requirement.ts) or
 * evaluating it on the index (trigram-index.ts).
 */

/** `true`: nothing required; a string: that folded substring; and/or of requirements. */
export type Requirement = true | string | { and: Requirement[] } | { or: Requirement[] }

/** Shortest substring the trigram index can use. */
export const MIN_REQUIRED_LENGTH = 3

/** Both: flattened, `true` dropped. */
export function allOf(parts: readonly Requirement[]): Requirement {
  const out: Requirement[] = []
  for (const p of parts) {
    if (p === true) continue
    if (typeof p === 'object' && 'and' in p) out.push(...p.and)
    else if (!out.includes(p)) out.push(p)
  }
  if (out.length === 0) return true
  return out.length === 1 ? out[0]! : { and: out }
}

/** Either: `true` when any part is `true`. */
export function anyOf(parts: readonly Requirement[]): Requirement {
  const out: Requirement[] = []
  for (const p of parts) {
    if (p === true) return true
    if (typeof p === 'object' && 'or' in p) out.push(...p.or)
    else if (!out.includes(p)) out.push(p)
  }
  if (out.length === 0) return true
  return out.length === 1 ? out[0]! : { or: out }
}

/** A match is one of `strings` (already folded): each must be long enough to help. */
export function oneOfStrings(strings: Iterable<string>): Requirement {
  const parts: Requirement[] = []
  for (const s of strings) {
    if (s.length < MIN_REQUIRED_LENGTH) return true
    parts.push(s)
  }
  return anyOf(parts)
}

/** True when folded text `folded` satisfies `req`. */
export function satisfies(folded: string, req: Requirement): boolean {
  if (req === true) return true
  if (typeof req === 'string') return folded.includes(req)
  if ('and' in req) return req.and.every((r) => satisfies(folded, r))
  return req.or.some((r) => satisfies(folded, r))
}

/** The substrings a requirement mentions (for tests and SQL). */
export function requiredStrings(req: Requirement): string[] {
  if (req === true) return []
  if (typeof req === 'string') return [req]
  return ('and' in req ? req.and : req.or).flatMap(requiredStrings)
}
