/**
 * Range arithmetic on Yjs delete sets (client → sorted `{ clock, len }`
 * ranges), for history's delta snapshots.
 */
import * as Y from 'yjs'

export type DeleteSet = ReturnType<typeof Y.createDeleteSet>
type Range = { clock: number; len: number }
type DeleteRanges = Map<number, Range[]>

/** The per-client ranges of a delete set (Yjs keeps them in `clients`). */
export const rangesOf = (ds: DeleteSet): DeleteRanges => (ds as unknown as { clients: DeleteRanges }).clients

/** Deletions in `now` that are not in `minus` (both sorted and merged). */
export function subtractDeleteSet(now: DeleteSet, minus: DeleteSet): DeleteSet {
  const out = Y.createDeleteSet()
  const baseClients = rangesOf(minus)
  const outClients = rangesOf(out)
  for (const [client, ranges] of rangesOf(now)) {
    const without = baseClients.get(client) ?? []
    const kept: Range[] = []
    let j = 0
    for (const r of ranges) {
      let start = r.clock
      const end = r.clock + r.len
      while (j < without.length && without[j]!.clock + without[j]!.len <= start) j++
      let k = j
      while (start < end) {
        const m = without[k]
        if (!m || m.clock >= end) {
          kept.push({ clock: start, len: end - start })
          break
        }
        if (m.clock > start) kept.push({ clock: start, len: m.clock - start })
        start = Math.max(start, m.clock + m.len)
        k++
      }
    }
    if (kept.length > 0) outClients.set(client, kept)
  }
  return out
}

/** Append every range of `from` to `into` (unsorted; `Y.mergeDeleteSets([into])` sorts and merges). */
export function appendDeleteSet(into: DeleteSet, from: DeleteSet): void {
  const target = rangesOf(into)
  for (const [client, ranges] of rangesOf(from)) {
    const list = target.get(client)
    if (list) for (const r of ranges) list.push({ clock: r.clock, len: r.len })
    else
      target.set(
        client,
        ranges.map((r) => ({ clock: r.clock, len: r.len })),
      )
  }
}

/** True when the delete set has no ranges. */
export function isEmptyDeleteSet(ds: DeleteSet): boolean {
  for (const ranges of rangesOf(ds).values()) if (ranges.length > 0) return false
  return true
}

/** True when every clock of `[clock, clock + len)` of `client` is deleted in `ds` (ranges sorted). */
export function coversRange(ds: DeleteSet, client: number, clock: number, len: number): boolean {
  if (len <= 0) return true
  const ranges = rangesOf(ds).get(client)
  if (!ranges) return false
  // The last range starting at or before `clock`, then its neighbours while they touch.
  let lo = 0
  let hi = ranges.length - 1
  let i = -1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (ranges[mid]!.clock <= clock) {
      i = mid
      lo = mid + 1
    } else hi = mid - 1
  }
  if (i < 0) return false
  let covered = ranges[i]!.clock + ranges[i]!.len
  while (covered < clock + len && ranges[i + 1] !== undefined && ranges[i + 1]!.clock <= covered) {
    i++
    covered = Math.max(covered, ranges[i]!.clock + ranges[i]!.len)
  }
  return covered >= clock + len
}
