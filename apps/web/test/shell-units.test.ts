/**
 * The shell's pure pieces, without a browser: filesystem errors as sentences (for every code the
 * tree can cause, from real FsErrors of a YjsFileSystem), name checks, the sign-in fragment, and
 * person names and colours, and the review panels' side-by-side line diff.
 */
import { createFileSystem, FsError } from '@yfs/core'
import { createTwoFilesPatch } from 'diff'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkName, describeFsError } from '../src/lib/yfs/fs-errors.js'
import { foldUnchanged, sideBySide, sideBySideFromPatch } from '../src/lib/yfs/line-diff.js'
import { parseFragment } from '../src/lib/yfs/sign-in.js'
import { authorOf, cleanName, colorFor } from '../src/lib/yfs/user.js'

const thrown = async (fn: () => Promise<unknown>) => {
  try {
    await fn()
  } catch (error) {
    return error
  }
  throw new Error('expected a throw')
}

describe('describeFsError', () => {
  it('turns the errors tree actions cause into sentences naming the file', async () => {
    const fs = createFileSystem()
    await fs.mkdir('/src')
    await fs.writeFile('/src/a.ts', 'a')
    await fs.writeFile('/b.ts', 'b')
    expect(describeFsError(new FsError('EEXIST', 'rename', '/b.ts', '/src/a.ts'))).toBe(
      '“a.ts” already exists in “src”. Choose another name.',
    )
    expect(describeFsError(await thrown(() => fs.mkdir('/src')))).toBe(
      '“src” already exists in the top folder. Choose another name.',
    )
    expect(describeFsError(await thrown(() => fs.mv('/gone.txt', '/x.txt')))).toBe(
      '“gone.txt” no longer exists; someone may have moved or deleted it.',
    )
    expect(describeFsError(await thrown(() => fs.mv('/src', '/src/inner')))).toBe(
      '“src” cannot be moved into itself.',
    )
    const reader = createFileSystem({ doc: fs.doc, readOnly: true })
    expect(describeFsError(await thrown(() => reader.rm('/b.ts')))).toBe(
      'Your token is read-only: files can be viewed but not changed.',
    )
    expect(describeFsError(new Error('plain'))).toBe('plain')
  })
})

describe('checkName', () => {
  it('refuses empty, reserved and path-like names and accepts the rest', () => {
    expect(checkName('  ')).toBe('A name is required.')
    expect(checkName('..')).toBe('That name is reserved; choose another.')
    expect(checkName('a/b')).toBe('Names cannot contain /, \\ or NUL.')
    expect(checkName('a\\b')).toBe('Names cannot contain /, \\ or NUL.')
    expect(checkName('<img src=x onerror=1>.txt')).toBeUndefined()
    expect(checkName('notes (1).md')).toBeUndefined()
  })
})

describe('parseFragment', () => {
  it('reads workspace and token, decoded, and nothing else', () => {
    expect(parseFragment('#workspace=demo&token=abc%2B1')).toEqual({ workspace: 'demo', token: 'abc+1' })
    expect(parseFragment('#token=abc')).toBeUndefined()
    expect(parseFragment('#workspace=demo')).toBeUndefined()
    expect(parseFragment('')).toBeUndefined()
  })
})

describe('user', () => {
  it('cleans names, keeps one colour per name, and authors as user:<name>', () => {
    expect(cleanName('  Ana   María \n')).toBe('Ana María')
    expect(cleanName('x'.repeat(100))).toHaveLength(40)
    expect(colorFor('Ana')).toBe(colorFor('Ana'))
    expect(colorFor('Ana')).toMatch(/^#[0-9a-f]{6}$/)
    expect(authorOf({ name: 'Ana', color: '#000000' })).toBe('user:Ana')
  })
})

describe('sideBySide', () => {
  const compact = (before: string, after: string) =>
    sideBySide(before, after).rows.map(
      (r) => `${r.kind}:${r.left?.n ?? ''}${r.left?.text ?? ''}|${r.right?.n ?? ''}${r.right?.text ?? ''}`,
    )

  it('pairs a changed line across, and numbers each side on its own', () => {
    expect(compact('a\nb\nc\n', 'a\nB\nc\nd\n')).toEqual([
      'same:1a|1a',
      'changed:2b|2B',
      'same:3c|3c',
      'added:|4d',
    ])
    expect(sideBySide('a\nb\nc\n', 'a\nB\nc\nd\n')).toMatchObject({ added: 2, removed: 1 })
  })

  it('leaves the rest of a longer removed run on the left alone', () => {
    expect(compact('x\ny\nz\n', 'X\n')).toEqual(['changed:1x|1X', 'removed:2y|', 'removed:3z|'])
  })

  it('handles empty sides and a missing final newline', () => {
    expect(compact('', 'one')).toEqual(['added:|1one'])
    expect(compact('one\n', '')).toEqual(['removed:1one|'])
    expect(sideBySide('same\n', 'same\n')).toMatchObject({ added: 0, removed: 0 })
  })
})

describe('sideBySideFromPatch (checkpoint diffs)', () => {
  it('shows a patch as the text diff shows the two texts, hunks apart folded with their count', () => {
    const before = `${Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n')}\n`
    const after = before.replace('line 2\n', 'LINE 2\n').replace('line 18\n', 'line 18\nnew\n')
    const shown = sideBySideFromPatch(createTwoFilesPatch('a/f', 'b/f', before, after))
    expect(shown).toMatchObject({ added: 2, removed: 1 })
    const kinds = shown.rows.map((r) => (r.kind === 'fold' ? `fold ${r.count}` : r.kind))
    // jsdiff's patches keep 4 lines of context: hunk 1 is lines 1-6 (line 2 changed), lines 7-14
    // fold, hunk 2 is lines 15-20 with the new line after 18.
    expect(kinds).toEqual([
      'same',
      'changed',
      ...Array(4).fill('same'),
      'fold 8',
      ...Array(4).fill('same'),
      'added',
      'same',
      'same',
    ])
    expect(shown.rows[1]).toEqual({
      kind: 'changed',
      left: { n: 2, text: 'line 2' },
      right: { n: 2, text: 'LINE 2' },
    })
    expect(shown.rows.at(-3)).toEqual({ kind: 'added', right: { n: 19, text: 'new' } })
  })

  it('equals the folded diff of the two texts for random texts (the trailing fold aside)', () => {
    const text = fc
      .array(fc.constantFrom('a', 'b', 'c', 'd', '', 'long line'), { maxLength: 30 })
      .chain((lines) => fc.tuple(fc.constant(lines.join('\n')), fc.boolean()))
      .map(([body, newline]) => (newline && body ? `${body}\n` : body))
    fc.assert(
      fc.property(text, text, (before, after) => {
        const fromTexts = foldUnchanged(sideBySide(before, after), 4).rows
        if (fromTexts.at(-1)?.kind === 'fold') fromTexts.pop()
        const fromPatch = sideBySideFromPatch(createTwoFilesPatch('a/f', 'b/f', before, after)).rows
        expect(fromPatch).toEqual(before === after ? [] : fromTexts)
      }),
      { seed: 2026, numRuns: 300 },
    )
  })
})
