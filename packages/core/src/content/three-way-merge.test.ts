import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { mergeText, mergeUnits, splitLines } from './three-way-merge.js'

const SEED = 1111

type LineOp = { kind: 'keep' } | { kind: 'replace' } | { kind: 'delete' } | { kind: 'insertAfter' }

const lineOp = fc.oneof(
  { weight: 3, arbitrary: fc.constant<LineOp>({ kind: 'keep' }) },
  fc.constant<LineOp>({ kind: 'replace' }),
  fc.constant<LineOp>({ kind: 'delete' }),
  fc.constant<LineOp>({ kind: 'insertAfter' }),
)

/** Apply the ops of one side (undefined: line untouched by that side). */
function apply(base: string[], ops: (LineOp | undefined)[], tag: string): string[] {
  const out: string[] = []
  base.forEach((line, i) => {
    const op = ops[i]
    if (op?.kind === 'replace') out.push(`${tag} replaced ${i}\n`)
    else if (op?.kind !== 'delete') out.push(line)
    if (op?.kind === 'insertAfter') out.push(`${tag} inserted ${i}\n`)
  })
  return out
}

describe('mergeUnits', () => {
  it('keeps every edit of both sides when they change different lines (adjacent ones included)', () => {
    fc.assert(
      fc.property(
        fc
          .integer({ min: 0, max: 40 })
          .chain((n) =>
            fc.tuple(
              fc.constant(n),
              fc.array(fc.tuple(lineOp, fc.boolean()), { minLength: n, maxLength: n }),
            ),
          ),
        ([n, plan]) => {
          const base = Array.from({ length: n }, (_, i) => `base ${i}\n`)
          const ours = plan.map(([op, mine]) => (mine ? op : undefined))
          const theirs = plan.map(([op, mine]) => (mine ? undefined : op))
          const result = mergeUnits(base, apply(base, ours, 'ours'), apply(base, theirs, 'theirs'))
          // Same shape as applying both sides' ops at once (tags decide the text).
          const want: string[] = []
          base.forEach((line, i) => {
            const [op, mine] = plan[i]!
            const tag = mine ? 'ours' : 'theirs'
            if (op.kind === 'replace') want.push(`${tag} replaced ${i}\n`)
            else if (op.kind !== 'delete') want.push(line)
            if (op.kind === 'insertAfter') want.push(`${tag} inserted ${i}\n`)
          })
          expect(result.conflicts).toEqual([])
          expect(result.units).toEqual(want)
        },
      ),
      { seed: SEED, numRuns: 500 },
    )
  })

  it('gives the writer the region both changed and reports where both versions are', () => {
    const base = ['a\n', 'b\n', 'c\n', 'd\n']
    const ours = ['a\n', 'B (ours)\n', 'c\n', 'd\n']
    const theirs = ['a\n', 'B (theirs)\n', 'B2 (theirs)\n', 'c\n', 'D\n']
    const r = mergeUnits(base, ours, theirs)
    expect(r.units).toEqual(['a\n', 'B (ours)\n', 'c\n', 'D\n'])
    expect(r.conflicts).toEqual([{ ours: { start: 1, count: 1 }, theirs: { start: 1, count: 2 } }])
  })

  it('treats two insertions at one place as a conflict and the same change on both sides as none', () => {
    expect(mergeUnits(['a\n'], ['a\n', 'x\n'], ['a\n', 'y\n'])).toEqual({
      units: ['a\n', 'x\n'],
      conflicts: [{ ours: { start: 1, count: 1 }, theirs: { start: 1, count: 1 } }],
    })
    expect(mergeUnits(['a\n', 'b\n'], ['a\n', 'B\n'], ['a\n', 'B\n'])).toEqual({
      units: ['a\n', 'B\n'],
      conflicts: [],
    })
  })

  it('deletes the union of overlapping deletions and edits each line of a replaced run on its own', () => {
    const base = ['a\n', '\n', 'b\n', '\n', 'c\n']
    const both = mergeUnits(base, base.slice(2), [...base.slice(0, 1), ...base.slice(3)])
    expect(both.conflicts).toEqual([])
    expect(both.units.join('').trim()).toBe('c')
    // Theirs edited lines 1 and 2, ours line 3: touching, not overlapping.
    expect(mergeUnits(['1\n', '2\n', '3\n'], ['1\n', '2\n', 'C\n'], ['A\n', 'B\n', '3\n']).units).toEqual([
      'A\n',
      'B\n',
      'C\n',
    ])
  })

  it('returns theirs when ours is the base and ours when theirs is the base', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.array(fc.string()), (base, other) => {
        expect(mergeUnits(base, base, other).units).toEqual(other)
        expect(mergeUnits(base, other, base).units).toEqual(other)
      }),
      { seed: SEED, numRuns: 300 },
    )
  })
})

describe('mergeText', () => {
  it('reports conflicts as 1-based line ranges of the result and of theirs', () => {
    const r = mergeText('1\n2\n3\n4\n5\n', '1\n2\nthree\n4\nfive\n', '1\n2\nTHREE\nTHREE-b\n4\n5\n6\n')
    expect(r.text).toBe('1\n2\nthree\n4\nfive\n6\n')
    expect(r.conflicts).toEqual([{ lines: { start: 3, count: 1 }, theirs: { start: 3, count: 2 } }])
  })

  it('counts a last line without a line end and an empty writer region', () => {
    const r = mergeText('a\nb', 'a\n', 'a\nB')
    expect(r.text).toBe('a\n')
    expect(r.conflicts).toEqual([{ lines: { start: 2, count: 0 }, theirs: { start: 2, count: 1 } }])
  })

  it('splitLines keeps line ends and joins back to the text', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', '\n', '\r', 'é') }), (t) => {
        expect(splitLines(t).join('')).toBe(t)
        expect(
          splitLines(t)
            .slice(0, -1)
            .every((l) => l.endsWith('\n')),
        ).toBe(true)
      }),
      { seed: SEED },
    )
  })

  it('merges by lines exactly as merging the split lines does (texts with CRLF, unicode, no last line end)', () => {
    // The default split takes the text path (characters compared, lines sliced on demand);
    // any other split function takes the unit-array path, which is the reference here.
    const reference = (b: string, o: string, t: string) => mergeText(b, o, t, (x) => splitLines(x))
    const unit = fc.constantFrom('a', 'b', '\n', '\n', '\r\n', '😀', 'é', 'line\n')
    const text = fc.string({ unit, maxLength: 60, size: 'max' })
    // A few splices at random places: overlapping, touching, or far apart.
    const splice = fc.tuple(fc.nat(), fc.nat(6), fc.string({ unit, maxLength: 6 }))
    const edited = (t: string, ops: [number, number, string][]) =>
      ops.reduce((x, [at, del, ins]) => {
        const i = at % (x.length + 1)
        return x.slice(0, i) + ins + x.slice(i + del)
      }, t)
    // Long texts of repeated lines (slides across runs of equal lines, chunk edges of the compare).
    const lines = fc
      .array(fc.constantFrom('a\n', 'b\n', '\n', 'c\r\n', '😀\n'), { maxLength: 400, size: 'max' })
      .map((l) => l.join(''))
    fc.assert(
      fc.property(
        fc.oneof(text, lines),
        fc.array(splice, { maxLength: 3 }),
        fc.array(splice, { maxLength: 3 }),
        fc.boolean(),
        (base, ourOps, theirOps, cut) => {
          const b = cut ? base.replace(/\n$/, '') : base
          const o = edited(b, ourOps)
          const t = edited(b, theirOps)
          expect(mergeText(b, o, t)).toEqual(reference(b, o, t))
          expect(mergeText(b, t, o)).toEqual(reference(b, t, o))
        },
      ),
      { seed: SEED, numRuns: 2000 },
    )
  })

  it('merges a large file with one edit on each side quickly enough to stay linear', () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => (i % 3 === 0 ? '\n' : `line ${i % 7}\n`))
    const ours = [...lines]
    ours[10] = 'ours\n'
    const theirs = [...lines]
    theirs[19_990] = 'theirs\n'
    const r = mergeText(lines.join(''), ours.join(''), theirs.join(''))
    expect(r.conflicts).toEqual([])
    const want = [...lines]
    want[10] = 'ours\n'
    want[19_990] = 'theirs\n'
    expect(r.text).toBe(want.join(''))
  })
})
