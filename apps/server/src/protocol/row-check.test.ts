import { asFileId, createFilesTable, FILES_TABLE_KEY, type FileRow, storedRowProblem } from '@yfs/core'
import fc from 'fast-check'
import * as encoding from 'lib0/encoding'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { rowUpdateProblem } from './row-check.js'

const row = (id: string, name: string): FileRow =>
  ({
    id,
    name,
    parentId: null,
    type: 'file',
    size: 0,
    createdAt: 1,
    updatedAt: 1,
    trashedAt: null,
  }) as FileRow
const entry = (id: string, name: string) => [1, id, 5, name, null, 'file', 0, 1, 1, null]

const ids = fc.constantFrom('a', 'b', 'c', 'd')
const goodName = fc.constantFrom('x.txt', 'y', '...', '%2E')
const badName = fc.constantFrom('.', '..', 'a/b', 'n\0', 'z'.repeat(256))
// What a client may do to its copy of the main doc before sending the difference.
const op = fc.oneof(
  fc.record({ k: fc.constant('core' as const), id: ids, name: goodName }),
  fc.record({ k: fc.constant('delete' as const), id: ids }),
  fc.record({ k: fc.constant('other' as const), name: badName, at: fc.nat() }),
  fc.record({
    k: fc.constant('insert' as const),
    at: fc.nat(),
    value: fc.oneof(
      ids.chain((id) => goodName.map((name) => entry(id, name))),
      ids.chain((id) => badName.map((name) => entry(id, name))),
      ids.chain((id) => badName.map((name) => ({ key: id, val: row(id, name), ts: 5 }))),
      fc.constantFrom<unknown>('text', 7, [2, 'a', 1], { key: 'a', ts: 1 }),
    ),
  }),
  fc.record({ k: fc.constant('map' as const), at: fc.nat() }),
)

type Op = typeof op extends fc.Arbitrary<infer T> ? T : never

/** A server doc with a few rows, a client that synced it and did `ops`, and the update it sends. */
function scenario(ops: Op[]) {
  const server = new Y.Doc()
  const seed = createFilesTable(server)
  seed.set(row('a', 'one'))
  seed.set(row('b', 'two'))
  const client = new Y.Doc()
  Y.applyUpdate(client, Y.encodeStateAsUpdate(server))
  const table = createFilesTable(client)
  const files = client.getArray<unknown>(FILES_TABLE_KEY)
  const other = client.getArray<unknown>('other')
  let coreOnly = true
  for (const o of ops) {
    if (o.k === 'core') table.set(row(o.id, o.name))
    else if (o.k === 'delete') table.delete([asFileId(o.id)])
    else if (o.k === 'other') other.insert(o.at % (other.length + 1), [entry('a', o.name)])
    else {
      coreOnly = false
      files.insert(o.at % (files.length + 1), [o.k === 'map' ? new Y.Map() : o.value])
    }
  }
  const update = Y.encodeStateAsUpdate(client, Y.encodeStateVector(server))
  return { server, client, update, coreOnly }
}

const clean = (doc: Y.Doc) =>
  doc
    .getArray<unknown>(FILES_TABLE_KEY)
    .toArray()
    .every((v) => storedRowProblem(v) === undefined)

describe('rowUpdateProblem', () => {
  it('accepts what core writes, refuses exactly the updates that leave a bad value in the files array (property)', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 8 }), (ops) => {
        const { server, client, update, coreOnly } = scenario(ops)
        const problem = rowUpdateProblem(update, server)
        if (coreOnly) expect(problem).toBeUndefined()
        // Refused iff the client's files array now holds a value core would not write.
        expect(problem === undefined).toBe(clean(client))
        if (problem === undefined) {
          Y.applyUpdate(server, update)
          expect(clean(server)).toBe(true)
        }
        // Without the server's doc, items placed through it count as unknown: never more lenient
        // about entries, and still no false refusal of core's own rows.
        const blind = rowUpdateProblem(update)
        if (coreOnly) expect(blind).toBeUndefined()
        if (problem !== undefined && !problem.startsWith('not a row entry')) expect(blind).toBeDefined()
      }),
      { seed: 26, numRuns: 1500 },
    )
  })

  it('checks the entries of an update whose origin the server has not seen yet', () => {
    const client = new Y.Doc()
    const files = client.getArray<unknown>(FILES_TABLE_KEY)
    files.push([entry('a', 'fine')])
    const sv = Y.encodeStateVector(client)
    files.push([entry('b', '..')])
    files.push(['garbage after it: ignored by every table'])
    const tail = Y.encodeStateAsUpdate(client, sv)
    expect(rowUpdateProblem(tail, new Y.Doc())).toBe("invalid name: reserved file name '..'")
    files.delete(1, 1)
    const fixed = Y.encodeStateAsUpdate(client, sv)
    expect(rowUpdateProblem(fixed, new Y.Doc())).toBeUndefined()
  })

  it('ends on origins that loop and on bytes that are no update', () => {
    // Two items, each the other's origin: hostile bytes no Yjs client makes.
    const looping = (name: string) => {
      const encoder = new Y.UpdateEncoderV1()
      const item = (client: number, origin: number) =>
        new Y.Item(
          Y.createID(client, 0),
          null,
          Y.createID(origin, 0),
          null,
          null,
          null,
          null,
          new Y.ContentAny([entry('a', name)]),
        )
      encoding.writeVarUint(encoder.restEncoder, 2)
      for (const it of [item(2, 1), item(1, 2)]) {
        encoding.writeVarUint(encoder.restEncoder, 1)
        encoder.writeClient(it.id.client)
        encoding.writeVarUint(encoder.restEncoder, 0)
        it.write(encoder, 0)
      }
      encoding.writeVarUint(encoder.restEncoder, 0) // no deletions
      return encoder.toUint8Array()
    }
    expect(Y.decodeUpdate(looping('..')).structs).toHaveLength(2)
    expect(rowUpdateProblem(looping('..'), new Y.Doc())).toBe("invalid name: reserved file name '..'")
    expect(rowUpdateProblem(looping('fine'), new Y.Doc())).toBeUndefined()
    expect(rowUpdateProblem(new Uint8Array([1, 2, 3]))).toBe('not a Yjs update')
    expect(rowUpdateProblem(Y.encodeStateAsUpdate(new Y.Doc()))).toBeUndefined()
  })
})
