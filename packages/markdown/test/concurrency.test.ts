/**
 * A person editing the ProseMirror tree and an agent writing the whole file
 * at the same time: both edits survive, untouched paragraphs keep their Yjs
 * identity, and replicas converge whatever the order.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { FRONTMATTER_KEY, markdownCodec, RICHTEXT_KEY } from '../src/index.js'

const paragraphs = (n: number) => Array.from({ length: n }, (_, i) => `Paragraph number ${i} with some text.`)
const md = (ps: string[]) => `${ps.join('\n\n')}\n`

const sync = (a: Y.Doc, b: Y.Doc) => {
  Y.applyUpdate(b, Y.encodeStateAsUpdate(a, Y.encodeStateVector(b)))
  Y.applyUpdate(a, Y.encodeStateAsUpdate(b, Y.encodeStateVector(a)))
}

/** The Y.XmlText inside the i-th paragraph. */
const textOf = (doc: Y.Doc, i: number) =>
  (doc.getXmlFragment(RICHTEXT_KEY).get(i) as Y.XmlElement).get(0) as Y.XmlText

describe('Markdown concurrency', () => {
  it("a person's edit in paragraph 3 and an agent's write to paragraph 7 both survive", () => {
    const a = new Y.Doc({ gc: false })
    const b = new Y.Doc({ gc: false })
    const ps = paragraphs(10)
    markdownCodec.write(a, md(ps))
    sync(a, b)
    // Person on B types in paragraph 3 (straight on the fragment, as the editor would).
    textOf(b, 3).insert(9, ' (edited by a person)')
    // Agent on A rewrites the whole file with paragraph 7 changed.
    const next = [...ps]
    next[7] = 'Paragraph seven, rewritten by the agent.'
    markdownCodec.write(a, md(next))
    sync(a, b)
    const out = markdownCodec.read(a)
    expect(markdownCodec.read(b)).toBe(out)
    expect(out).toContain('Paragraph (edited by a person) number 3')
    expect(out).toContain('Paragraph seven, rewritten by the agent.')
    expect(out.split('\n\n')).toHaveLength(10)
  })

  it('an agent write keeps the Yjs identity of untouched paragraphs and sends an update proportional to the change', () => {
    const doc = new Y.Doc({ gc: false })
    const ps = paragraphs(500)
    markdownCodec.write(doc, md(ps))
    const fragment = doc.getXmlFragment(RICHTEXT_KEY)
    const before = fragment.toArray()
    let updateSize = 0
    doc.on('update', (u: Uint8Array) => {
      updateSize += u.byteLength
    })
    const next = [...ps]
    next[250] = 'A single changed paragraph.'
    markdownCodec.write(doc, md(next))
    const after = fragment.toArray()
    expect(after).toHaveLength(500)
    for (const i of [0, 1, 249, 251, 499]) expect(after[i]).toBe(before[i])
    expect(updateSize).toBeLessThan(500)
    expect(Y.encodeStateAsUpdate(doc).byteLength).toBeGreaterThan(10_000)
  })

  it('front matter merges per key', () => {
    const a = new Y.Doc()
    const b = new Y.Doc()
    markdownCodec.write(a, '---\ntitle: T\ntags: [x]\n---\nbody\n')
    sync(a, b)
    markdownCodec.write(a, '---\ntitle: New title\ntags: [x]\n---\nbody\n')
    markdownCodec.write(b, '---\ntitle: T\ntags: [x, y]\n---\nbody\n')
    sync(a, b)
    expect(markdownCodec.read(a)).toBe('---\ntags:\n  - x\n  - y\ntitle: New title\n---\nbody\n')
    expect(markdownCodec.read(b)).toBe(markdownCodec.read(a))
    expect(a.getMap(FRONTMATTER_KEY).size).toBe(2)
  })

  it('concurrent agent writes on several replicas converge', () => {
    const edit = fc.record({
      replica: fc.nat(2),
      paragraph: fc.nat(5),
      text: fc.constantFrom('alpha beta', 'gamma *delta*', '**epsilon** zeta', 'eta `theta`'),
      sync: fc.boolean(),
    })
    fc.assert(
      fc.property(fc.array(edit, { maxLength: 12 }), (edits) => {
        const docs = [new Y.Doc({ gc: false }), new Y.Doc({ gc: false }), new Y.Doc({ gc: false })]
        markdownCodec.write(docs[0]!, md(paragraphs(6)))
        for (const d of docs) sync(docs[0]!, d)
        for (const e of edits) {
          const doc = docs[e.replica]!
          const current = markdownCodec.read(doc).trimEnd().split('\n\n')
          current[e.paragraph % current.length] = e.text
          markdownCodec.write(doc, md(current))
          if (e.sync) for (const other of docs) sync(doc, other)
        }
        for (const x of docs) for (const y of docs) sync(x, y)
        const text = markdownCodec.read(docs[0]!)
        for (const d of docs) expect(markdownCodec.read(d)).toBe(text)
        // Still a valid document that reads back to itself.
        const check = new Y.Doc()
        markdownCodec.write(check, text)
        expect(markdownCodec.read(check)).toBe(text)
      }),
      { numRuns: 200, seed: 11 },
    )
  }, 60_000) // 200 runs of three replicas: seconds on a loaded 2-core machine
})
