/**
 * Stale writes of Markdown files (issue 11): a person edits the rich-text
 * tree (`Y.XmlFragment`, as the browser editor does) on replica B; an agent
 * on replica A read the file before those edits arrived and writes back a
 * copy with other blocks changed. After sync every replica, and a fresh
 * one, reads the same text with both sets of edits. Overlapping blocks: the
 * writer's block wins and the person's text is in a history version. Front
 * matter merges key by key.
 */
import type { YjsFileSystem } from '@yfs/core'
import { createReplicaNetwork } from '@yfs/core/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type * as Y from 'yjs'
import { markdownCodec, RICHTEXT_KEY } from '../src/index.js'

const SEED = 1_123_2026

type PersonEdit = { kind: 'type'; text: string } | { kind: 'delete' }
type AgentEdit = { kind: 'replace' } | { kind: 'delete' } | { kind: 'insertAfter' }
type Plan = ({ who: 'person'; e: PersonEdit } | { who: 'agent'; e: AgentEdit } | undefined)[]

const word = fc.string({ unit: fc.constantFrom('a', 'b', 'z', 'é'), minLength: 1, maxLength: 5 })
const plan: fc.Arbitrary<Plan> = fc
  .array(
    fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      fc
        .oneof(
          { weight: 3, arbitrary: word.map((text) => ({ kind: 'type' as const, text })) },
          fc.constant({ kind: 'delete' as const }),
        )
        .map((e) => ({ who: 'person' as const, e })),
      fc
        .constantFrom<AgentEdit>({ kind: 'replace' }, { kind: 'delete' }, { kind: 'insertAfter' })
        .map((e) => ({ who: 'agent' as const, e })),
    ),
    { minLength: 1, maxLength: 12 },
  )
  .filter((p) => p.some((x) => x?.who === 'person') && p.some((x) => x?.who === 'agent'))
  // Known limit (docs/conflicts.md): a block inserted right before a block the other side deletes can
  // diff as "replace that block", which overlaps the deletion (a conflict, the writer's text wins).
  .filter(
    (p) => !p.some((x, i) => x?.who === 'agent' && x.e.kind === 'insertAfter' && p[i + 1]?.who === 'person'),
  )

const para = (i: number) => `Paragraph ${i} says something.`
const md = (ps: string[]) => (ps.length ? `${ps.join('\n\n')}\n` : '')

function model(n: number, p: Plan, who: 'person' | 'agent' | 'both'): string[] {
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    const step = p[i]
    const mine = step && (who === 'both' || step.who === who) ? step : undefined
    if (!mine) out.push(para(i))
    else if (mine.who === 'person') {
      if (mine.e.kind === 'type') out.push(para(i) + mine.e.text)
    } else if (mine.e.kind === 'replace') out.push(`Agent rewrote paragraph ${i}.`)
    else if (mine.e.kind === 'insertAfter') out.push(para(i), `Agent added after ${i}.`)
  }
  return out
}

/** The person's edits on the rich-text tree of their replica, bottom-up. */
async function personEdits(fs: YjsFileSystem, path: string, n: number, p: Plan): Promise<void> {
  const handle = await fs.pool.acquire(fs.index.lookup(path)!)
  try {
    const fragment = handle.doc.getXmlFragment(RICHTEXT_KEY)
    for (let i = n - 1; i >= 0; i--) {
      const step = p[i]
      if (step?.who !== 'person') continue
      handle.doc.transact(() => {
        if (step.e.kind === 'delete') fragment.delete(i, 1)
        else {
          const text = (fragment.get(i) as Y.XmlElement).get(0) as Y.XmlText
          text.insert(text.length, step.e.text)
        }
      }, 'editor')
    }
  } finally {
    handle.release()
  }
}

describe('stale writes of Markdown', () => {
  it("a person's rich-text edits and an agent's stale write of other paragraphs both survive", async () => {
    await fc.assert(
      fc.asyncProperty(plan, async (p) => {
        const n = p.length
        const net = createReplicaNetwork(3, { codecs: [markdownCodec] })
        const [a, b, fresh] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem, YjsFileSystem]
        try {
          await a.writeFile('/notes.md', md(model(n, [], 'both')))
          await net.syncAll()
          await a.readFile('/notes.md')
          await personEdits(b, '/notes.md', n, p)
          // The edits arrive before the write: a stale write. (When they arrive after it, the codec's
          // write and Yjs merge them; y-prosemirror may then align an inserted paragraph with the next one.)
          await net.syncAll()
          const report = await a.write('/notes.md', md(model(n, p, 'agent')))
          expect(report.conflict).toBe(false)
          await net.syncAll()
          const want = md(model(n, p, 'both'))
          const got = await Promise.all([a, b, fresh].map((fs) => fs.readFile('/notes.md')))
          expect(got).toEqual([want, want, want])
        } finally {
          net.destroy()
        }
      }),
      { seed: SEED, numRuns: 150 },
    )
  }, 120_000)

  it("overlapping paragraph: the writer's version wins, the person's is kept as a version", async () => {
    const net = createReplicaNetwork(2, { codecs: [markdownCodec] })
    const [a, b] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
    const ps = [para(0), para(1), para(2)]
    await a.writeFile('/notes.md', md(ps))
    await net.syncAll()
    await a.readFile('/notes.md')
    await personEdits(b, '/notes.md', 3, [undefined, { who: 'person', e: { kind: 'type', text: ' PERSON' } }])
    await personEdits(b, '/notes.md', 3, [
      undefined,
      undefined,
      { who: 'person', e: { kind: 'type', text: '!' } },
    ])
    await net.syncAll()
    const theirs = await b.readFile('/notes.md')
    const report = await a.write('/notes.md', md([para(0), 'Agent version of one.', para(2)]))
    await net.syncAll()
    const want = md([para(0), 'Agent version of one.', `${para(2)}!`])
    expect(await a.readFile('/notes.md')).toBe(want)
    expect(await b.readFile('/notes.md')).toBe(want)
    expect(report.conflict).toBe(true)
    expect(report.conflicts).toEqual([{ lines: { start: 3, count: 1 }, theirs: { start: 3, count: 1 } }])
    expect(await b.readVersion('/notes.md', report.replacedVersion!.id)).toBe(theirs)
    net.destroy()
  })

  it('front matter merges key by key, the body by blocks', async () => {
    const net = createReplicaNetwork(2, { codecs: [markdownCodec] })
    const [a, b] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
    const text = '---\nstatus: draft\ntitle: Plan\n---\n\n- one\n- two\n- three\n'
    await a.writeFile('/plan.md', text)
    await net.syncAll()
    const seen = await a.readFile('/plan.md')
    await b.writeFile(
      '/plan.md',
      seen.replace('title: Plan', 'title: Person plan').replace('- three', '- three (b)'),
    )
    await net.syncAll()
    const report = await a.write(
      '/plan.md',
      seen.replace('status: draft', 'status: done').replace('- one', '- one (a)'),
    )
    expect(report).toMatchObject({ merged: true, conflict: false })
    await net.syncAll()
    const want = '---\nstatus: done\ntitle: Person plan\n---\n\n- one (a)\n- two\n- three (b)\n'
    expect(await a.readFile('/plan.md')).toBe(want)
    expect(await b.readFile('/plan.md')).toBe(want)
    net.destroy()
  })
})
