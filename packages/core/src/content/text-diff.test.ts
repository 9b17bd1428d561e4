import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { applyTextDiff, lineDiff } from './text-diff.js'

describe('applyTextDiff', () => {
  it('turns a text starting with a line end into another (a change at offset 0 across a line end)', () => {
    for (const [a, b] of [
      ['\na', ''],
      ['\n\nb', 'x'],
      ['\na\n', 'b\n'],
    ]) {
      const t = new Y.Doc().getText()
      t.insert(0, a!)
      applyTextDiff(t, b!)
      expect(t.toString()).toBe(b)
    }
  })

  it('turns any text of few short lines into any other', () => {
    const lines = fc.string({ unit: fc.constantFrom('a', 'b', '\n') })
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const t = new Y.Doc().getText()
        t.insert(0, a)
        applyTextDiff(t, b)
        expect(t.toString()).toBe(b)
      }),
      { seed: 7, numRuns: 1000 },
    )
  })

  it('turns any text into any other text', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'grapheme' }), (a, b) => {
        const doc = new Y.Doc()
        const t = doc.getText()
        t.insert(0, a)
        applyTextDiff(t, b)
        expect(t.toString()).toBe(b)
      }),
      { numRuns: 500 },
    )
  })

  it('turns a long text into the text with a few splices, with an update the size of the change', () => {
    // Lines with surrogate pairs and CRLF; splices anywhere (inside a pair or a CRLF too).
    const line = fc.constantFrom('a line\n', '😀 pair\r\n', '\n', 'é😁é\n', `${'x'.repeat(40)}\n`)
    const base = fc.array(line, { minLength: 200, maxLength: 400 }).map((l) => l.join(''))
    const splice = fc.tuple(
      fc.nat(),
      fc.nat(12),
      fc.string({ unit: fc.constantFrom('b', '\n', '\r\n', '😀', '\ud83d') }),
    )
    fc.assert(
      fc.property(
        base,
        fc.array(splice, { minLength: 1, maxLength: 3 }),
        fc.boolean(),
        (a, ops, givePrev) => {
          const b = ops.reduce((x, [at, del, ins]) => {
            const i = at % (x.length + 1)
            return x.slice(0, i) + ins + x.slice(i + del)
          }, a)
          const doc = new Y.Doc()
          const t = doc.getText()
          t.insert(0, a)
          const before = Y.encodeStateVector(doc)
          doc.transact(() => applyTextDiff(t, b, givePrev ? a : undefined))
          expect(t.toString()).toBe(b)
          // A few changed lines at most per splice (a whole-text replace would be over 1 KB).
          expect(Y.encodeStateAsUpdate(doc, before).byteLength).toBeLessThan(150 + 200 * ops.length)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('keeps a concurrent edit made elsewhere in the file (line diff of a big change)', () => {
    const lines = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(20)}\n`)
    const a = new Y.Doc()
    a.getText().insert(0, lines.join(''))
    const b = new Y.Doc()
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
    // A person edits line 90 on b; an agent rewrites lines 10 and 50 on a.
    const bt = b.getText()
    bt.insert(bt.toString().indexOf('line 90') + 'line 90'.length, ' (edited)')
    const next = [...lines]
    next[10] = `${'agent '.repeat(30)}\n`
    next[50] = `${'second '.repeat(30)}\n`
    applyTextDiff(a.getText(), next.join(''))
    Y.applyUpdate(a, Y.encodeStateAsUpdate(b))
    Y.applyUpdate(b, Y.encodeStateAsUpdate(a))
    const merged = a.getText().toString()
    expect(b.getText().toString()).toBe(merged)
    expect(merged).toContain('line 90 (edited)')
    expect(merged).toContain('agent agent')
    expect(merged).toContain('second second')
    expect(merged.split('\n').length).toBe(lines.length + 1) // nothing duplicated
  })

  it('diffs by lines only while it is cheap: a file with most of its lines changed is replaced whole (the diff took 0.15 s a 1,000-line file)', () => {
    const lines = Array.from({ length: 1024 }, (_, i) => `line ${i} of some text\n`)
    const changing = (every: number) => lines.map((l, i) => (i % every === 0 ? l.toUpperCase() : l))
    // Every line changed (sed 's/line/LINE/'), or 3 in 10: no diff, without diffing.
    expect(lineDiff(lines, changing(1))).toBeUndefined()
    expect(lineDiff(lines, changing(3))).toBeUndefined()
    // One in 10, or a few: the line diff, each changed line its own part.
    const some = lineDiff(lines, changing(10))
    expect(some?.filter((part) => part.added).length).toBe(103)
    expect(lineDiff(lines, changing(500))?.filter((part) => part.removed).length).toBe(3)
    // Lines that moved (a common multiset, a long edit): the diff gives up at its budget.
    const rotated = [...lines.slice(512), ...lines.slice(0, 512)]
    expect(lineDiff(lines, rotated)).toBeUndefined()
    // Either way the text becomes the new one, and a rewrite's update holds the new text once.
    for (const next of [changing(1), changing(3), changing(10), rotated]) {
      const doc = new Y.Doc()
      const t = doc.getText()
      t.insert(0, lines.join(''))
      const before = Y.encodeStateVector(doc)
      applyTextDiff(t, next.join(''))
      expect(t.toString()).toBe(next.join(''))
      expect(Y.encodeStateAsUpdate(doc, before).byteLength).toBeLessThan(next.join('').length * 1.2)
    }
  })

  it('turns a text of many lines into one with any share of its lines changed, moved or dropped', () => {
    const line = fc.constantFrom('a\n', 'b\n', 'c\n', 'a longer line\n', '\n')
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 50, maxLength: 600 }),
        fc.array(fc.tuple(fc.nat(599), fc.constantFrom('change', 'drop', 'copy')), { maxLength: 600 }),
        (lines, edits) => {
          const next: string[] = [...lines]
          for (const [at, edit] of edits) {
            const k = at % Math.max(1, next.length)
            if (next.length === 0) break
            if (edit === 'change') next[k] = `${next[k]!.trim()}!\n`
            else if (edit === 'drop') next.splice(k, 1)
            else next.push(next[k]!)
          }
          const t = new Y.Doc().getText()
          t.insert(0, lines.join(''))
          applyTextDiff(t, next.join(''))
          expect(t.toString()).toBe(next.join(''))
        },
      ),
      { numRuns: 200 },
    )
  })
})
