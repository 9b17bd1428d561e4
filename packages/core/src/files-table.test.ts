import { type } from 'arktype'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import {
  createFilesTable,
  FILES_TABLE_KEY,
  type FileRow,
  isValidRow,
  rowCodec,
  rowProblems,
  storedRowProblem,
} from './files-table.js'
import { asFileId } from './ids.js'
import { isValidName } from './names.js'
import { FileRowSchema } from './testing/file-row-schema.js'

// Values that sit on the edges of the schema's rules, for every field.
const edgy = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.constantFrom(
      undefined,
      null,
      '',
      'a',
      'file',
      'folder',
      'symlink',
      'File',
      0,
      -0,
      1,
      -1,
      1.5,
      2 ** 53,
      Number.NaN,
      Number.POSITIVE_INFINITY,
      Number.NEGATIVE_INFINITY,
      true,
      [],
      {},
    ),
  },
  fc.string(),
  fc.double(),
  fc.integer(),
)
const fields = [
  'id',
  'name',
  'parentId',
  'type',
  'size',
  'createdAt',
  'updatedAt',
  'trashedAt',
  'mode',
  'target',
  'sv',
]
const valid = {
  id: 'f1',
  name: 'a.md',
  parentId: null,
  type: 'file',
  size: 3,
  createdAt: 1,
  updatedAt: 2,
  trashedAt: null,
}

describe('isValidRow and rowProblems', () => {
  it('agrees with FileRowSchema (arktype) on rows with any field changed, added or removed', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...fields, 'extra'), fc.option(edgy, { nil: undefined }), {
          maxKeys: 4,
        }),
        // At most one field removed, so that most rows fail (or pass) on the patched values.
        fc.option(fc.constantFrom(...fields), { freq: 2, nil: undefined }),
        (patch, dropped) => {
          const row: Record<string, unknown> = { ...valid, ...patch }
          if (dropped !== undefined && !(dropped in patch)) delete row[dropped]
          const reference = !(FileRowSchema(row) instanceof type.errors)
          expect(isValidRow(row)).toBe(reference)
          expect(rowProblems(row).length === 0).toBe(reference)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('rejects what is not an object', () => {
    for (const v of [null, undefined, 'row', 1, true]) expect(isValidRow(v)).toBe(false)
    expect(isValidRow(valid)).toBe(true)
  })

  it('says what is wrong, field by field', () => {
    expect(rowProblems({ ...valid, size: 1.5, name: '' })).toEqual([
      'name must be a non-empty string (was "")',
      'size must be an integer ≥ 0 (was 1.5)',
    ])
    const { trashedAt: _, ...noTrash } = valid
    expect(rowProblems({ ...noTrash, mode: undefined })).toEqual([
      'trashedAt must be a number or null (was missing)',
      'mode must be an integer ≥ 0 (was undefined)',
    ])
  })
})

const validRow = fc
  .record(
    {
      id: fc.string({ minLength: 1 }),
      name: fc.string({ minLength: 1 }),
      parentId: fc.option(fc.string({ minLength: 1 }), { nil: null }),
      type: fc.constantFrom('file', 'folder', 'symlink'),
      size: fc.nat(),
      createdAt: fc.double({ noNaN: true }),
      updatedAt: fc.double({ noNaN: true }),
      trashedAt: fc.option(fc.double({ noNaN: true }), { nil: null }),
      mode: fc.nat(0o7777),
      target: fc.string(),
      sv: fc.base64String(),
    },
    { requiredKeys: ['id', 'name', 'parentId', 'type', 'size', 'createdAt', 'updatedAt', 'trashedAt'] },
  )
  .map((r) => r as FileRow)

describe('files table entries', () => {
  it('rowCodec reads back every valid row field for field, through Yjs too', () => {
    fc.assert(
      fc.property(validRow, fc.integer(), (row, ts) => {
        const out = rowCodec.toEntry(row.id, ts, row)!
        expect(out.slice(0, 3)).toEqual([rowCodec.tag, row.id, ts])
        expect(rowCodec.fromEntry(out, row.id)).toEqual(row)
        expect(out.at(-1)).not.toBeUndefined() // absent optional fields at the end are left out
        const doc = new Y.Doc()
        doc.getArray(FILES_TABLE_KEY).push([out])
        const peer = new Y.Doc()
        Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc))
        const table = createFilesTable(peer)
        expect(table.get(row.id as FileRow['id'])).toEqual(row)
      }),
      { numRuns: 300 },
    )
  })

  it('writes array entries, keeps rows with unknown keys whole as object entries, and reads stored object entries', () => {
    const doc = new Y.Doc()
    const arr = doc.getArray<unknown>(FILES_TABLE_KEY)
    // A workspace stored before array entries: one object entry per row.
    const old = { ...valid, id: 'old' }
    arr.push([{ key: 'old', val: old, ts: 1 }])
    const table = createFilesTable(doc, { clock: () => 100 })
    expect(table.get(asFileId('old'))).toEqual(old)
    table.update(asFileId('old'), { size: 9 })
    const extra = { ...valid, id: 'x', futureField: [1, { a: 2 }] } as unknown as FileRow
    table.set(extra)
    expect(arr.toArray().slice(1)).toEqual([
      // Only the content group changed: the others keep the old entry's stamp (ts 1), stored as `ts - stamp`.
      [
        1,
        'old',
        100,
        'a.md',
        null,
        'file',
        9,
        1,
        2,
        null,
        undefined,
        undefined,
        undefined,
        99,
        99,
        99,
        99,
        0,
      ],
      // Another row in the same millisecond: the same timestamp.
      { key: 'x', val: extra, ts: 100 },
    ])
    const peer = new Y.Doc()
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(doc))
    const other = createFilesTable(peer)
    expect([other.get(asFileId('old')), other.get(asFileId('x'))]).toEqual([{ ...old, size: 9 }, extra])
  })

  it('two replicas writing a row in the same millisecond agree, whatever the key order of the written rows', () => {
    const [a, b] = [new Y.Doc(), new Y.Doc()]
    const ta = createFilesTable(a, { clock: () => 5 })
    const tb = createFilesTable(b, { clock: () => 5 })
    ta.set({ ...valid, id: asFileId('f1'), name: 'from-a' } as FileRow)
    // Same row, keys in another order (as `{ ...row, ...patch, id }` makes them): its JSON sorts first.
    const { id: _, createdAt, ...rest } = valid
    tb.set({ createdAt, ...rest, name: 'from-b', id: asFileId('f1') } as FileRow)
    Y.applyUpdate(a, Y.encodeStateAsUpdate(b))
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
    expect(ta.get(asFileId('f1'))).toEqual(tb.get(asFileId('f1')))
  })
})

describe('lazy rows (a peer loading a stored table)', () => {
  // A valid entry, with group stamps or without, with any slot patched or the tail cut: what peers may send.
  const slots = Array.from({ length: 16 }, (_, k) => String(k + 3))
  const entries = fc
    .tuple(
      validRow,
      fc.integer(),
      fc.option(fc.array(fc.nat(1000), { minLength: 5, maxLength: 5 }), { nil: undefined }),
      fc.dictionary(fc.constantFrom(...slots), edgy, { maxKeys: 2 }),
      fc.option(fc.integer({ min: 3, max: 19 }), { nil: undefined }),
    )
    .map(([row, ts, ages, patch, cut]) => {
      const stamps = ages?.map((age) => ts - age)
      const e: unknown[] = rowCodec.toEntry(row.id, ts, row, stamps)!
      for (const [slot, v] of Object.entries(patch)) e[Number(slot)] = v
      return cut === undefined ? e : e.slice(0, cut)
    })
  /** Slots 13–17: absent, or five integers ≥ 0 (`ts - stamp` per group). */
  const validStamps = (e: readonly unknown[]) =>
    e.length <= 13 ||
    (e.length === 18 && Array.from(e.slice(13)).every((v) => Number.isInteger(v) && (v as number) >= 0))

  it('isValidEntry is isValidRow of the decoded row with valid stamps, on entries with any slot changed', () => {
    fc.assert(
      fc.property(entries, (e) => {
        const key = e[1] as string
        const row = rowCodec.fromEntry(e, key)
        expect(rowCodec.isValidEntry!(e, key)).toBe(isValidRow(row) && row.id === key && validStamps(e))
      }),
      { numRuns: 3000 },
    )
  })

  it('a table loaded from stored entries reads, iterates and places rows as one built row by row', () => {
    fc.assert(
      fc.property(fc.array(entries, { maxLength: 12 }), (list) => {
        const doc = new Y.Doc()
        const arr = doc.getArray<unknown>(FILES_TABLE_KEY)
        // A few entries share a key, some with an object entry of an older writer.
        for (const [i, e] of list.entries()) {
          if (i % 4 === 3) e[1] = list[0]![1]
          if (i % 5 === 4) arr.push([{ key: e[1], val: rowCodec.fromEntry(e, e[1] as string), ts: e[2] }])
          else arr.push([e])
        }
        // The reference table receives the same entries one transaction at a time (no lazy load).
        const eager = createFilesTable(new Y.Doc())
        for (const e of arr.toArray()) eager.doc.getArray<unknown>(FILES_TABLE_KEY).push([e])
        const lazy = createFilesTable(doc)
        const placements: unknown[] = []
        lazy.forEachPlacement((id, parentId, type, size) => placements.push([id, parentId, type, size]))
        const rows = [...eager.rows()]
        expect(placements).toEqual(rows.map((r) => [r.id, r.parentId, r.type, r.size]))
        expect([...lazy.rows()]).toEqual(rows)
        expect(lazy.size).toBe(eager.size)
        for (const e of list) {
          const id = e[1] as FileRow['id']
          expect(lazy.get(id)).toEqual(eager.get(id))
          expect(lazy.has(id)).toBe(eager.has(id))
          expect(lazy.get(id)).toBe(lazy.get(id)) // decoded once: the same object on every read
        }
      }),
      { numRuns: 500 },
    )
  })
})

describe('storedRowProblem (what a server accepts in the files array)', () => {
  // Entries a peer may send: valid ones with a slot patched or the tail cut, object entries,
  // names that break the name rules, and garbage.
  const names = fc.constantFrom('a.md', '.', '..', 'a/b', 'x\0', '\\', '', 'n'.repeat(256), '%2E')
  const entries = fc.oneof(
    fc
      .tuple(
        validRow,
        fc.integer(),
        names,
        fc.dictionary(fc.constantFrom('0', '1', '2', '3', '4', '5', '6', '9', '10', '12'), edgy, {
          maxKeys: 1,
        }),
        fc.option(fc.integer({ min: 2, max: 15 }), { nil: undefined }),
      )
      .map(([row, ts, name, patch, cut]) => {
        const e: unknown[] = rowCodec.toEntry(row.id, ts, { ...row, name })!
        for (const [slot, v] of Object.entries(patch)) e[Number(slot)] = v
        if (cut !== undefined && cut > e.length) while (e.length < cut) e.push(undefined)
        return cut === undefined ? e : e.slice(0, cut)
      }),
    fc.tuple(validRow, fc.integer(), names, fc.boolean()).map(([row, ts, name, sameKey]) => ({
      key: sameKey ? row.id : `${row.id}x`,
      val: { ...row, name },
      ts,
    })),
    edgy.filter((v) => v !== undefined), // Yjs cannot hold `undefined` as an array element
  )

  it('accepts exactly the entries a table reads whole, with a valid name (property)', () => {
    fc.assert(
      fc.property(entries, (e) => {
        const doc = new Y.Doc()
        doc.getArray<unknown>(FILES_TABLE_KEY).push([e])
        const rows = [...createFilesTable(doc).rows()]
        const fieldCount = Array.isArray(e) ? e.length : 10
        const readWhole = rows.length === 1 && fieldCount >= 10 && fieldCount <= 13
        const accepted = readWhole && isValidName(rows[0]!.name)
        expect(storedRowProblem(e) === undefined).toBe(accepted)
      }),
      { numRuns: 3000 },
    )
  })

  it('says what is wrong without quoting the value', () => {
    const huge = 'n'.repeat(2 * 1024 * 1024)
    const row = { ...valid, name: huge, type: huge } as unknown as FileRow
    expect(storedRowProblem({ key: 'f1', val: row, ts: 1 })).toBe('invalid row: type')
    expect(storedRowProblem([1, 'f1', 1, huge, null, 'file', 0, 1, 1, null])).toBe(
      'invalid name: name longer than 255 bytes',
    )
    expect(storedRowProblem([1, 'f1', 1, '..', null, 'file', 0, 1, 1, null])).toBe(
      "invalid name: reserved file name '..'",
    )
    expect(storedRowProblem([1, 'f1', 1, 'a', null, 'file', 0, 1, 1, null])).toBeUndefined()
    expect(storedRowProblem([2, 'f1', 1, 'a', null, 'file', 0, 1, 1, null])).toBe('not a row entry')
    expect(storedRowProblem('x')).toBe('not a row entry')
  })
})
