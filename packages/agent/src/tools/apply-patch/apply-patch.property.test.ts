/**
 * apply_patch round trip: for any two texts A and B (tiny line alphabet with
 * empty lines, CR, unicode, with and without a final newline), the unified
 * diff from A to B applied to a file holding A leaves exactly B; and a diff
 * built against another text changes nothing unless it applies.
 */
import { createTwoFilesPatch } from 'diff'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

const text = fc
  .tuple(
    fc.array(fc.constantFrom('a', 'b', '', ' x', 'é😀', 'c\r', '--- a', '@@'), { maxLength: 12 }),
    fc.boolean(),
  )
  .map(([lines, finalNewline]) =>
    lines.length === 0 ? '' : `${lines.join('\n')}${finalNewline ? '\n' : ''}`,
  )

describe('apply_patch (property)', () => {
  it('the diff from A to B turns A into B', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, async (a, b) => {
        const { ok, fs } = setupTools()
        await fs.writeFile('/f.txt', a)
        const patch = createTwoFilesPatch('a/f.txt', 'b/f.txt', a, b)
        if (a === b) return // an empty diff has no hunks: EINVAL, tested elsewhere
        await ok('apply_patch', { patch })
        expect(await fs.readFile('/f.txt')).toBe(b)
      }),
      { seed: 6, numRuns: 300 },
    )
  })

  it('a diff against other content either applies or changes nothing', async () => {
    await fc.assert(
      fc.asyncProperty(text, text, text, async (a, b, other) => {
        const { call, fs } = setupTools()
        await fs.writeFile('/f.txt', other)
        if (a === b) return
        const r = await call('apply_patch', { patch: createTwoFilesPatch('a/f.txt', 'b/f.txt', a, b) })
        if (r.isError) {
          expect((r.structuredContent.error as { code: string }).code).toBe('ENOMATCH')
          expect(await fs.readFile('/f.txt')).toBe(other)
        }
      }),
      { seed: 6, numRuns: 300 },
    )
  })
})
