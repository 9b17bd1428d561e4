/**
 * Display names for siblings that share a stored name.
 *
 * Two replicas can create `/docs/a.md` at the same time; both rows survive.
 * Every replica shows the earliest-created one (ties by id) as `a.md` and
 * the others as `a (1).md`, `a (2).md`, … Stored names are never rewritten;
 * renaming one of them makes the suffix disappear.
 *
 * A suffixed name can itself collide with a real sibling (`a (1).md` exists
 * too): the real row keeps its name and the duplicate takes the next free
 * number, so display names within a folder are always unique.
 */
import type { FileId } from './ids.js'

export interface NamedSibling {
  id: FileId
  name: string
  createdAt: number
}

/** Insert ` (n)` before the extension: `a.md` → `a (1).md`, `.env` → `.env (1)`, `Makefile` → `Makefile (1)`. */
export function suffixedName(name: string, n: number): string {
  const dot = name.lastIndexOf('.')
  if (dot <= 0) return `${name} (${n})`
  return `${name.slice(0, dot)} (${n})${name.slice(dot)}`
}

const byAge = (a: NamedSibling, b: NamedSibling) =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** Map each sibling id to its unique display name. */
export function disambiguateNames(siblings: Iterable<NamedSibling>): Map<FileId, string> {
  // Fast path first: most folders have no duplicates, so no per-name arrays are made.
  const first = new Map<string, NamedSibling>()
  let groups: Map<string, NamedSibling[]> | undefined
  for (const s of siblings) {
    const seen = first.get(s.name)
    if (seen === undefined) first.set(s.name, s)
    else {
      groups ??= new Map()
      const g = groups.get(s.name)
      if (g) g.push(s)
      else groups.set(s.name, [seen, s])
    }
  }
  const result = new Map<FileId, string>()
  for (const [name, s] of first) if (!groups?.has(name)) result.set(s.id, name)
  if (!groups) return result
  const duplicates = [...groups.values()]
  for (const group of duplicates) {
    group.sort(byAge)
    result.set(group[0]!.id, group[0]!.name)
  }
  // Sorted so that every replica hands out suffixes in the same order.
  duplicates.sort((a, b) => (a[0]!.name < b[0]!.name ? -1 : 1))
  const taken = new Set(first.keys())
  for (const group of duplicates) {
    let n = 1
    for (let i = 1; i < group.length; i++) {
      const s = group[i]!
      let candidate = suffixedName(s.name, n++)
      while (taken.has(candidate)) candidate = suffixedName(s.name, n++)
      taken.add(candidate)
      result.set(s.id, candidate)
    }
  }
  return result
}
