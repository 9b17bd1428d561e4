/**
 * Row check: whether a client's update to a workspace's main doc would put
 * into the files array anything but rows core writes itself — an entry of a
 * valid row with a valid name (`storedRowProblem` of @yfs/core: no `.`, `..`,
 * `/`, `\`, NUL, empty or over 255 bytes; the row's types and shape). The
 * server refuses such an update whole (persistence.ts), on both socket paths.
 *
 * How: the update is decoded (`Y.decodeUpdate`, a public export; no doc is
 * changed) and each inserted item is placed. An item names its parent only
 * when it has no neighbour; otherwise its parent is its origin's (left, else
 * right), found in the update itself or in the server's doc (`Y.getItem`):
 * - in the files array: every value must be a row entry that passes;
 * - in another type: not checked (checkpoints, texts, nested types);
 * - unknown (its origin is in neither: an update whose dependencies have not
 *   arrived, which Yjs keeps pending; or a collected item): every value that
 *   the files table would read as an entry must pass. A value that is no
 *   entry is ignored by the table wherever it ends up, so it is harmless.
 * Deletions are not checked: a write token may delete any row.
 *
 * Cost: one decode of the update (the apply decodes it again) and a lookup
 * per item whose origin is outside the update; see the row-check bench.
 *
 * Not here: whether the bytes are an update at all (sync-message.ts), what a
 * refusal does to the socket (persistence.ts, yws/y-websocket-handler.ts).
 */
import { FILES_TABLE_KEY, rowEntryKey, storedRowProblem } from '@yfs/core'
import * as Y from 'yjs'

/** Where an item of an update ends up: the files array, another type, or not known yet. */
type Place = 'files' | 'elsewhere' | 'unknown'

/** The update's items of one client, in clock order, for origin lookups. */
type ItemsByClient = Map<number, Y.Item[]>

function findInUpdate(items: ItemsByClient, id: Y.ID): Y.Item | undefined {
  const list = items.get(id.client)
  if (list === undefined) return undefined
  let lo = 0
  let hi = list.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    const item = list[mid]!
    if (id.clock < item.id.clock) hi = mid - 1
    else if (id.clock >= item.id.clock + item.length) lo = mid + 1
    else return item
  }
  return undefined
}

/** The place of the doc's item holding `id`; unknown when the doc does not have it (or collected it). */
function placeInDoc(doc: Y.Doc | undefined, files: unknown, id: Y.ID): Place {
  if (doc === undefined || id.clock >= Y.getState(doc.store, id.client)) return 'unknown'
  const found: unknown = Y.getItem(doc.store, id)
  if (!(found instanceof Y.Item) || !(found.parent instanceof Y.AbstractType)) return 'unknown'
  return found.parent === files ? 'files' : 'elsewhere'
}

/**
 * Why `update` (a valid v1 update a client sent to a workspace's main doc) must not be
 * stored, or `undefined` when its rows pass. `doc` is the server's copy as it is now: it
 * places items whose origin the update does not carry; without it those count as unknown
 * (still checked, a little less strictly). The answer is short and quotes no value (it is
 * a close reason and a log field): `storedRowProblem`'s, or `not a row entry`.
 */
export function rowUpdateProblem(update: Uint8Array, doc?: Y.Doc): string | undefined {
  let structs: ReturnType<typeof Y.decodeUpdate>['structs']
  try {
    structs = Y.decodeUpdate(update).structs
  } catch {
    return 'not a Yjs update'
  }
  const items: ItemsByClient = new Map()
  for (const s of structs) {
    if (!(s instanceof Y.Item)) continue
    const list = items.get(s.id.client)
    if (list === undefined) items.set(s.id.client, [s])
    else list.push(s)
  }
  if (items.size === 0) return undefined
  const files = doc?.share.get(FILES_TABLE_KEY)
  const places = new Map<Y.Item, Place | 'visiting'>()

  /** Follows origins through the update (iteratively: chains are as long as the update). */
  const placeOf = (item: Y.Item): Place => {
    const chain: Y.Item[] = []
    let place: Place = 'unknown'
    for (let cur: Y.Item | undefined = item; cur !== undefined; ) {
      const known = places.get(cur)
      if (known !== undefined) {
        // 'visiting': origins that loop (hostile bytes) place nothing.
        place = known === 'visiting' ? 'unknown' : known
        break
      }
      chain.push(cur)
      places.set(cur, 'visiting')
      // Decoded items carry their parent as the root type's name, a nested type's item id, or null.
      const parent = cur.parent as unknown
      if (typeof parent === 'string') {
        place = parent === FILES_TABLE_KEY ? 'files' : 'elsewhere'
        break
      }
      if (parent !== null) {
        place = 'elsewhere' // an item id: a nested type, which is never the (root) files array
        break
      }
      const ref = cur.origin ?? cur.rightOrigin
      if (ref === null) break
      const next = findInUpdate(items, ref)
      if (next === undefined) {
        place = placeInDoc(doc, files, ref)
        break
      }
      cur = next
    }
    for (const c of chain) places.set(c, place)
    return place
  }

  for (const list of items.values())
    for (const item of list) {
      const content = item.content
      if (content instanceof Y.ContentDeleted) continue
      const place = placeOf(item)
      if (place === 'elsewhere') continue
      if (place === 'files') {
        // Rows are plain values pushed to the array: no map keys, texts, types, docs or bytes.
        if (item.parentSub !== null || !(content instanceof Y.ContentAny)) return 'not a row entry'
        for (const value of content.getContent()) {
          const problem = storedRowProblem(value)
          if (problem !== undefined) return problem
        }
        continue
      }
      for (const value of content.getContent()) {
        if (rowEntryKey(value) === undefined) continue
        const problem = storedRowProblem(value)
        if (problem !== undefined) return problem
      }
    }
  return undefined
}
