/**
 * recordVersion stores exactly what it stored when every version was computed
 * from a full `Y.snapshot` of the doc (the reference below is that code), for
 * random edits, versions and syncs between replicas; and a single writer's
 * versions never re-read the versions array or walk the whole doc again
 * (besides one keyframe every KEYFRAME_EVERY versions).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { textCodec } from '../content/text-codec.js'
import { createFileSystem } from '../fs/yjs-file-system.js'
import { subtractDeleteSet } from './delete-sets.js'
import {
  ContentDroppedError,
  compactContentState,
  findStoredVersion,
  KEYFRAME_EVERY,
  listStoredVersions,
  readVersionContent,
  recordVersion,
  recordWork,
  type StoredVersion,
  VERSIONS_KEY,
  type VersionContent,
} from './file-history.js'

// The version recordVersion stored before deletions were tracked: everything from the doc as it is.
function referenceVersion(doc: Y.Doc): Pick<StoredVersion, 'snapshot' | 'base' | 'depth'> {
  const all = doc.share.has(VERSIONS_KEY)
    ? doc
        .getArray<StoredVersion>(VERSIONS_KEY)
        .toArray()
        .filter(
          (v) => typeof v?.id === 'string' && typeof v.ts === 'number' && v.snapshot instanceof Uint8Array,
        )
    : []
  const resolve = (v: StoredVersion): Y.Snapshot => {
    const own = Y.decodeSnapshot(v.snapshot)
    if (v.base === undefined) return own
    const base = all.find((b) => b.id === v.base)!
    return Y.createSnapshot(Y.mergeDeleteSets([resolve(base).ds, own.ds]), own.sv)
  }
  const last = all.at(-1)
  const now = Y.snapshot(doc)
  const depth = last ? (last.depth ?? 0) + 1 : 0
  if (!last || depth >= KEYFRAME_EVERY) return { snapshot: Y.encodeSnapshot(now) }
  const delta = subtractDeleteSet(now.ds, resolve(last).ds)
  return { snapshot: Y.encodeSnapshot(Y.createSnapshot(delta, now.sv)), base: last.id, depth }
}

type Edit = { at: number; del: number; text: string; nested: boolean }
type Op =
  | { kind: 'edit'; peer: number; edit: Edit }
  | { kind: 'record'; peer: number; before?: Edit; after?: Edit; twice: boolean }
  | { kind: 'sync'; from: number; to: number; compacted: boolean }

const PEERS = 3
const edit = fc.record({
  at: fc.nat(1000),
  del: fc.nat(6),
  text: fc.string({ maxLength: 5 }),
  nested: fc.boolean(),
})
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('edit' as const), peer: fc.nat(PEERS - 1), edit }) },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        kind: fc.constant('record' as const),
        peer: fc.nat(PEERS - 1),
        before: edit,
        after: edit,
        twice: fc.boolean(),
      },
      { requiredKeys: ['kind', 'peer', 'twice'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('sync' as const),
      from: fc.nat(PEERS - 1),
      to: fc.nat(PEERS - 1),
      compacted: fc.boolean(),
    }),
  },
)

function applyEdit(doc: Y.Doc, e: Edit): void {
  if (e.nested) {
    // A nested type replaced (as Markdown's elements are): compaction turns the old one into GC ranges.
    const inner = new Y.Text()
    doc.getMap('nested').set('k', inner)
    inner.insert(0, e.text)
    return
  }
  const text = doc.getText('text')
  const at = e.at % (text.length + 1)
  text.delete(at, Math.min(e.del, text.length - at))
  text.insert(at, e.text)
}

const meta = { author: 'test', reason: 'write' as const, size: 0, codec: 'text', name: 'f.txt', ts: 0 }

function recordChecked(doc: Y.Doc): string {
  const expected = referenceVersion(doc)
  const got = recordVersion(doc, meta)
  expect({ snapshot: got.snapshot, base: got.base, depth: got.depth }).toEqual(expected)
  return got.id
}

describe('recordVersion', () => {
  it('stores what a full snapshot gives, across random edits, versions and syncs (compacted ones too)', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 160 }), (ops) => {
        const docs = Array.from({ length: PEERS }, (_, i) => {
          const doc = new Y.Doc({ gc: false })
          doc.clientID = i + 1
          return doc
        })
        // Which replica recorded each version: it always holds the content that version shows.
        const recordedOn = new Map<string, number>()
        let compactedSyncs = 0
        for (const o of ops) {
          if (o.kind === 'edit') docs[o.peer]!.transact(() => applyEdit(docs[o.peer]!, o.edit))
          else if (o.kind === 'record') {
            const doc = docs[o.peer]!
            doc.transact(() => {
              if (o.before) applyEdit(doc, o.before)
              recordedOn.set(recordChecked(doc), o.peer)
              if (o.twice) recordedOn.set(recordChecked(doc), o.peer)
              // Deletions after the version in the same transaction belong to the next one.
              if (o.after) applyEdit(doc, o.after)
            })
          } else if (o.from !== o.to) {
            const [from, to] = [docs[o.from]!, docs[o.to]!]
            if (o.compacted) compactedSyncs++
            const update = o.compacted
              ? compactContentState(Y.encodeStateAsUpdate(from))
              : Y.encodeStateAsUpdate(from, Y.encodeStateVector(to))
            Y.applyUpdate(to, update)
          }
        }
        // Replicas converge on the same versions.
        for (const a of docs) for (const b of docs) Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
        const lists = docs.map((d) => listStoredVersions(d))
        for (const list of lists) expect(list.map((v) => v.id)).toEqual(lists[0]!.map((v) => v.id))
        // Each replica reads every version as the replica that recorded it does. The one exception:
        // a version recorded concurrently with a compaction elsewhere may show content that a
        // replica holding the compacted state dropped; that replica says so instead of reading it wrong.
        for (const version of lists[0]!) {
          const recorder = docs[recordedOn.get(version.id)!]!
          const expected = readVersionContent(recorder, findStoredVersion(recorder, version.id)!, [textCodec])
          for (const doc of docs) {
            const own = findStoredVersion(doc, version.id)!
            let read: VersionContent | ContentDroppedError
            try {
              read = readVersionContent(doc, own, [textCodec])
            } catch (error) {
              if (!(error instanceof ContentDroppedError)) throw error
              read = error
            }
            if (read instanceof ContentDroppedError) expect(compactedSyncs).toBeGreaterThan(0)
            else expect(read).toEqual(expected)
          }
        }
      }),
      { numRuns: 60 },
    )
  })

  it('a peer state with GC ranges (a compacted one) is counted in the next delta', () => {
    const [a, b] = [new Y.Doc({ gc: false }), new Y.Doc({ gc: false })]
    recordChecked(a)
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
    b.transact(() => b.getText('text').insert(0, 'b'))
    recordChecked(b) // b's own version is its last: the next one is computed from tracked deletions
    // Typed and dropped on a with no version in between: compaction makes the first nested text GC ranges.
    a.getMap('nested').set('k', new Y.Text('gone'))
    a.getMap('nested').set('k', new Y.Text('kept'))
    const compacted = compactContentState(Y.encodeStateAsUpdate(a))
    const full = new Y.Doc({ gc: false })
    Y.applyUpdate(full, compacted)
    expect(full.store.clients.get(a.clientID)!.some((s) => s instanceof Y.GC)).toBe(true)
    Y.applyUpdate(b, compacted)
    recordChecked(b)
    recordChecked(b)
  })

  it('one writer: a version reads nothing it stored before and walks the doc once per keyframe', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/f.txt', 'start')
    const before = recordWork()
    const writes = 3 * KEYFRAME_EVERY + 10
    for (let i = 0; i < writes; i++) await fs.writeFile('/f.txt', `content ${i}\nline two ${i % 7}\n`)
    const after = recordWork()
    expect(after.listRebuilds - before.listRebuilds).toBeLessThanOrEqual(1)
    expect(after.fullSnapshots - before.fullSnapshots).toBeLessThanOrEqual(
      Math.ceil(writes / KEYFRAME_EVERY) + 1,
    )
    const versions = await fs.history('/f.txt')
    expect(versions.length).toBe(writes + 1)
    expect(await fs.readVersion('/f.txt', versions[writes - 1]!.id)).toBe(
      `content ${writes - 2}\nline two ${(writes - 2) % 7}\n`,
    )
  })
})

describe('a version whose content a replica dropped', () => {
  // Peer a types " ", b deletes it and records; c takes b's compacted state; a records " " concurrently.
  function scenario() {
    const [a, b, c] = [1, 2, 3].map((clientID) => {
      const doc = new Y.Doc({ gc: false })
      doc.clientID = clientID
      return doc
    }) as [Y.Doc, Y.Doc, Y.Doc]
    a.getText('text').insert(0, ' ')
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
    b.getText('text').delete(0, 1)
    recordVersion(b, meta)
    Y.applyUpdate(c, compactContentState(Y.encodeStateAsUpdate(b)))
    const shown = recordVersion(a, meta)
    for (const x of [a, b, c]) for (const y of [a, b, c]) Y.applyUpdate(y, Y.encodeStateAsUpdate(x))
    return { a, b, c, shown }
  }

  it('is read by replicas that hold it and reported, not read as empty, where it was compacted away', () => {
    const { a, b, c, shown } = scenario()
    expect(readVersionContent(a, shown, [textCodec]).text).toBe(' ')
    expect(readVersionContent(b, findStoredVersion(b, shown.id)!, [textCodec]).text).toBe(' ')
    expect(() => readVersionContent(c, findStoredVersion(c, shown.id)!, [textCodec])).toThrow(
      ContentDroppedError,
    )
  })

  it('is reported by the whole-doc rebuild too (another codec than plain text)', () => {
    const { a, c, shown } = scenario()
    const other = { ...textCodec, id: 'other', read: (doc: Y.Doc) => doc.getText('text').toString() }
    expect(readVersionContent(a, { ...shown, codec: 'other' }, [other]).text).toBe(' ')
    const onC = { ...findStoredVersion(c, shown.id)!, codec: 'other' }
    expect(() => readVersionContent(c, onC, [other])).toThrow(ContentDroppedError)
  })
})
