import { type } from 'arktype'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { isValidRow, rowProblems } from './files-table.js'
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
