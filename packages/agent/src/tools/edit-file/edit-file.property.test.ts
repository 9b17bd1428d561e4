/**
 * edit_file against a plain model of it: for any text and any old_text, the
 * edit succeeds exactly when old_text occurs the expected number of times,
 * the file then equals the text with every occurrence replaced, and a failed
 * edit reports the count found and leaves the file alone.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { setupTools } from '../../testing/tool-harness.js'

const occurrences = (text: string, needle: string) => text.split(needle).length - 1
const piece = fc.constantFrom('a', 'b', 'ab', '\n', ' ', 'é', '😀', '\t')
const text = fc.array(piece, { maxLength: 20 }).map((p) => p.join(''))
const needle = fc.array(piece, { minLength: 1, maxLength: 3 }).map((p) => p.join(''))

describe('edit_file (property)', () => {
  it('replaces exactly when the count matches, and reports the count otherwise', async () => {
    await fc.assert(
      fc.asyncProperty(
        text,
        needle,
        text,
        fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
        async (content, oldText, newText, expected) => {
          const { call, fs } = setupTools()
          await fs.writeFile('/f.txt', content)
          const r = await call('edit_file', {
            path: 'vfs:///f.txt',
            old_text: oldText,
            new_text: newText,
            ...(expected ? { expected_occurrences: expected } : {}),
          })
          const found = occurrences(content, oldText)
          if (found === (expected ?? 1)) {
            expect(r.isError).toBeFalsy()
            expect(await fs.readFile('/f.txt')).toBe(content.split(oldText).join(newText))
            expect(r.structuredContent.replaced).toBe(found)
          } else {
            expect(r.isError).toBe(true)
            expect((r.structuredContent.error as { message: string }).message).toContain(
              `occurs ${found} time`,
            )
            expect(await fs.readFile('/f.txt')).toBe(content)
          }
        },
      ),
      { seed: 6, numRuns: 400 },
    )
  })
})
