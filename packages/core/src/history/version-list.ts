/**
 * The versions stored in a content doc's `Y.Array(VERSIONS_KEY)`, read once
 * and kept per doc: the list in array order (garbage entries from peers
 * skipped), by id, and the last one, so recording a version does not re-read
 * and re-check every version stored before it.
 *
 * The kept list is exact: versions this replica appends (`appendVersion`)
 * are added to it in place; any other change to the array (a peer's
 * versions arriving, a deletion) marks it stale and the next read rebuilds
 * it from the array. As a second guard a read checks the array's length and
 * last entry (which also keeps a Yjs search marker at the end of the array,
 * so that `push` does not walk the whole list to find its end).
 */
import type * as Y from 'yjs'
import { randomId } from '../ids.js'
import { runningTransaction } from '../internals/yjs.js'

/** Why a version was recorded; `conflict`: the content a stale write overwrote parts of. */
/**
 * A new version (or checkpoint) id: 10 random characters of nanoid's alphabet, never starting
 * with `-`. People pass these ids to commands (`yfs diff f <id>`, `yfs restore f <id>`), where
 * a leading `-` reads as an option.
 */
export function newVersionId(): string {
  const id = randomId(10)
  return id.startsWith('-') ? `_${id.slice(1)}` : id
}

export type VersionReason = 'write' | 'edit' | 'restore' | 'checkpoint' | 'save' | 'conflict'

/** A version as stored (with its snapshot). */
export interface StoredVersion {
  id: string
  ts: number
  author: string
  reason: VersionReason
  /** Byte size of the content at this version. */
  size: number
  /** Codec id that was active (file name at the time decides how to read it). */
  codec: string
  /** File name at the time. */
  name: string
  binary: boolean
  /** Full snapshot (keyframe), or state vector + deletions since `base`. */
  snapshot: Uint8Array
  /** Version whose delete set this one's `snapshot` extends; absent on keyframes. */
  base?: string
  /** Number of deltas since the last keyframe. */
  depth?: number
}

/** Root key of the versions array in a content doc. */
export const VERSIONS_KEY = 'versions'

interface Kept {
  array: Y.Array<unknown>
  list: StoredVersion[]
  byId: Map<string, StoredVersion>
  /** Entries in the array (garbage included) and the last one, when the list was last exact. */
  length: number
  last: unknown
  stale: boolean
}

const kept = new WeakMap<Y.Doc, Kept>()
// Transactions whose changes to a versions array are only our appends (already in the kept list).
const ownAppends = new WeakSet<Y.Transaction>()
let rebuilds = 0

/** How many times a kept list was read from its array (for tests: appends must not rebuild). */
export const versionListRebuilds = (): number => rebuilds

function isStoredVersion(v: unknown): v is StoredVersion {
  const s = v as Partial<StoredVersion> | null
  return (
    typeof s === 'object' &&
    s !== null &&
    typeof s.id === 'string' &&
    typeof s.ts === 'number' &&
    s.snapshot instanceof Uint8Array
  )
}

const arrayOf = (doc: Y.Doc) => doc.getArray<unknown>(VERSIONS_KEY)

function current(doc: Y.Doc): Kept | undefined {
  if (!doc.share.has(VERSIONS_KEY)) return undefined
  const array = arrayOf(doc)
  let k = kept.get(doc)
  if (k && k.array === array && !k.stale && array.length === k.length) {
    if (k.length === 0 || array.get(k.length - 1) === k.last) return k
  }
  rebuilds++
  const raw = array.toArray()
  const list = raw.filter(isStoredVersion)
  const byId = new Map<string, StoredVersion>()
  // The first of equal ids wins, as a search in array order would find it.
  for (const v of list) if (!byId.has(v.id)) byId.set(v.id, v)
  if (!k || k.array !== array) {
    const fresh: Kept = { array, list, byId, length: raw.length, last: raw.at(-1), stale: false }
    array.observe((_e, tr) => {
      if (!ownAppends.has(tr)) fresh.stale = true
    })
    k = fresh
    kept.set(doc, k)
  } else Object.assign(k, { list, byId, length: raw.length, last: raw.at(-1), stale: false })
  return k
}

/** Versions in the order they were recorded (garbage entries from peers skipped). Do not mutate. */
export function storedVersions(doc: Y.Doc): readonly StoredVersion[] {
  return current(doc)?.list ?? []
}

/** The last stored version. */
export function lastStoredVersion(doc: Y.Doc): StoredVersion | undefined {
  return current(doc)?.list.at(-1)
}

/** The stored version with this id (the first one, should peers have stored two). */
export function findStoredVersion(doc: Y.Doc, id: string): StoredVersion | undefined {
  return current(doc)?.byId.get(id)
}

/** Append a version to the doc's array (inside a transaction). */
export function appendVersion(doc: Y.Doc, version: StoredVersion): void {
  const k = current(doc)
  arrayOf(doc).push([version])
  const tr = runningTransaction(doc)
  if (!k || !tr) return // first version: the next read builds the list
  ownAppends.add(tr)
  k.list.push(version)
  if (!k.byId.has(version.id)) k.byId.set(version.id, version)
  k.length++
  k.last = version
}
