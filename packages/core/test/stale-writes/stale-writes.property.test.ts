/**
 * Property tests for stale writes (issue 11), text files. A random base
 * text; a person's random edits applied straight to `Y.Text` on replica B;
 * an agent on replica A that read the file before those edits arrived
 * writes back a copy with random edits of other lines. After sync every
 * replica, and a fresh one, reads the same text, which holds both sets of
 * edits. With overlapping edits the writer's lines win and the person's
 * text is in a history version. Three replicas writing stale copies of one
 * file converge without losing a non-overlapping edit.
 *
 * Seeds are fixed (fast-check prints the seed and path of a failure).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { TEXT_KEY, type YjsFileSystem } from '../../src/index.js'
import { createReplicaNetwork } from '../../src/testing/index.js'

const SEED = 20_261_123

type PersonEdit =
  | { kind: 'type'; at: number; text: string }
  | { kind: 'deleteLine' }
  | { kind: 'newLineAfter' }
type AgentEdit = { kind: 'replace' } | { kind: 'deleteLine' } | { kind: 'insertAfter' }

const word = fc.string({
  unit: fc.constantFrom('a', 'b', 'x', ' ', 'é', '{', '}'),
  minLength: 1,
  maxLength: 6,
})
const personEdit: fc.Arbitrary<PersonEdit> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('type' as const), at: fc.nat(), text: word }) },
  fc.constant({ kind: 'deleteLine' as const }),
  fc.constant({ kind: 'newLineAfter' as const }),
)
const agentEdit: fc.Arbitrary<AgentEdit> = fc.constantFrom<AgentEdit>(
  { kind: 'replace' },
  { kind: 'deleteLine' },
  { kind: 'insertAfter' },
)

/** Per base line: untouched, a person's edit, or an agent's edit. */
const plan = fc
  .array(
    fc.oneof(
      { weight: 2, arbitrary: fc.constant(undefined) },
      personEdit.map((e) => ({ who: 'person' as const, e })),
      agentEdit.map((e) => ({ who: 'agent' as const, e })),
    ),
    { minLength: 1, maxLength: 25 },
  )
  .filter((p) => p.some((x) => x?.who === 'person') && p.some((x) => x?.who === 'agent'))

type Plan = ({ who: 'person'; e: PersonEdit } | { who: 'agent'; e: AgentEdit } | undefined)[]

const baseLine = (i: number) => `line ${i} ${'abc'.repeat(i % 4)}\n`

/** Apply one side's edits to the base lines (the model). */
function modelLines(n: number, p: Plan, who: 'person' | 'agent' | 'both'): string[] {
  const out: string[] = []
  for (let i = 0; i < n; i++) {
    const step = p[i]
    const line = baseLine(i)
    const mine = step && (who === 'both' || step.who === who) ? step : undefined
    if (!mine) {
      out.push(line)
      continue
    }
    if (mine.who === 'person') {
      const e = mine.e
      if (e.kind === 'type') {
        const at = e.at % line.length // never after the line end
        out.push(line.slice(0, at) + e.text + line.slice(at))
      } else if (e.kind === 'newLineAfter') out.push(line, `person new ${i}\n`)
    } else {
      const e = mine.e
      if (e.kind === 'replace') out.push(`agent replaced ${i}\n`)
      else if (e.kind === 'insertAfter') out.push(line, `agent new ${i}\n`)
    }
  }
  return out
}

/** The person's edits, straight on the Y.Text of their replica (as an editor binding makes them). */
async function personEdits(fs: YjsFileSystem, path: string, n: number, p: Plan): Promise<void> {
  const handle = await fs.pool.acquire(fs.index.lookup(path)!)
  try {
    const ytext = handle.doc.getText(TEXT_KEY)
    // Bottom-up, so earlier lines keep their offsets.
    for (let i = n - 1; i >= 0; i--) {
      const step = p[i]
      if (step?.who !== 'person') continue
      const start = ytext
        .toString()
        .split(/(?<=\n)/)
        .slice(0, i)
        .join('').length
      const line = baseLine(i)
      handle.doc.transact(() => {
        if (step.e.kind === 'type') ytext.insert(start + (step.e.at % line.length), step.e.text)
        else if (step.e.kind === 'deleteLine') ytext.delete(start, line.length)
        else ytext.insert(start + line.length, `person new ${i}\n`)
      }, 'editor')
    }
  } finally {
    handle.release()
  }
}

async function readAll(fss: YjsFileSystem[], path: string): Promise<string[]> {
  return Promise.all(fss.map((fs) => fs.readFile(path)))
}

describe('stale writes (property)', () => {
  it("a person's edits and an agent's stale whole-file write of other lines both survive on every replica", async () => {
    await fc.assert(
      fc.asyncProperty(plan, fc.boolean(), async (p, arrivesFirst) => {
        const n = p.length
        const net = createReplicaNetwork(3)
        const [a, b, fresh] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem, YjsFileSystem]
        try {
          const base = Array.from({ length: n }, (_, i) => baseLine(i)).join('')
          await a.writeFile('/f.txt', base)
          await net.syncAll()
          const seen = await a.readFile('/f.txt')
          await personEdits(b, '/f.txt', n, p)
          // The person's edits reach A before its write (a stale write) or only after it (a CRDT merge).
          if (arrivesFirst) await net.syncAll()
          else net.send(1)
          expect(seen).toBe(base)
          const report = await a.write('/f.txt', modelLines(n, p, 'agent').join(''))
          expect(report.conflict).toBe(false)
          await net.syncAll()
          const want = modelLines(n, p, 'both').join('')
          expect(await readAll([a, b, fresh], '/f.txt')).toEqual([want, want, want])
        } finally {
          net.destroy()
        }
      }),
      { seed: SEED, numRuns: 150 },
    )
  }, 120_000)

  it("overlapping edits: the writer's lines win and the person's text is in a history version", async () => {
    await fc.assert(
      fc.asyncProperty(plan, fc.nat(), async (p, pick) => {
        const n = p.length
        // One line both change: the person types into it, the agent replaces it.
        const both = pick % n
        const person = p.map((x) => (x?.who === 'person' ? x : undefined))
        person[both] = { who: 'person', e: { kind: 'type', at: 2, text: 'PERSON' } }
        const agent = p.map((x) => (x?.who === 'agent' ? x : undefined))
        agent[both] = { who: 'agent', e: { kind: 'replace' } }
        const net = createReplicaNetwork(2)
        const [a, b] = net.replicas.map((r) => r.fs) as [YjsFileSystem, YjsFileSystem]
        try {
          const base = Array.from({ length: n }, (_, i) => baseLine(i)).join('')
          await a.writeFile('/f.txt', base)
          await net.syncAll()
          await a.readFile('/f.txt')
          await personEdits(b, '/f.txt', n, person)
          await net.syncAll()
          const theirs = await b.readFile('/f.txt')
          const report = await a.write('/f.txt', modelLines(n, agent, 'agent').join(''))
          await net.syncAll()
          const [ra, rb] = await readAll([a, b], '/f.txt')
          expect(rb).toBe(ra)
          expect(ra).toContain(`agent replaced ${both}\n`)
          expect(ra).not.toContain('PERSON')
          expect(report.conflict).toBe(true)
          expect(report.conflicts.some((c) => c.lines.count >= 1)).toBe(true)
          expect(await b.readVersion('/f.txt', report.replacedVersion!.id)).toBe(theirs)
          expect(theirs).toContain('PERSON')
        } finally {
          net.destroy()
        }
      }),
      { seed: SEED, numRuns: 60 },
    )
  }, 120_000)

  it('three replicas writing stale copies of one file converge without losing a non-overlapping edit', async () => {
    const owner = fc.array(
      fc.option(fc.tuple(fc.integer({ min: 0, max: 2 }), agentEdit), { nil: undefined }),
      {
        minLength: 3,
        maxLength: 20,
      },
    )
    // Which replica syncs after each write (partial delivery between the stale writes).
    const order = fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 0, maxLength: 3 })
    await fc.assert(
      fc.asyncProperty(owner, order, fc.integer({ min: 1, max: 1000 }), async (edits, syncs, seed) => {
        const n = edits.length
        const net = createReplicaNetwork(3, { seed })
        const fss = net.replicas.map((r) => r.fs)
        try {
          const base = Array.from({ length: n }, (_, i) => baseLine(i)).join('')
          await fss[0]!.writeFile('/f.txt', base)
          await net.syncAll()
          for (const fs of fss) await fs.readFile('/f.txt')
          const planOf = (r: number): Plan =>
            edits.map((x) => (x && x[0] === r ? { who: 'agent', e: x[1] } : undefined))
          for (let r = 0; r < 3; r++) {
            await fss[r]!.write('/f.txt', modelLines(n, planOf(r), 'agent').join(''))
            const s = syncs[r]
            if (s !== undefined) {
              net.send(s)
              net.receive((s + 1) % 3)
            }
          }
          await net.syncAll()
          const all: Plan = edits.map((x) => (x ? { who: 'agent', e: x[1] } : undefined))
          // Three agents' lines, rendered with one tag: replace/insert texts only depend on the line.
          const want = modelLines(n, all, 'both').join('')
          expect(await readAll(fss, '/f.txt')).toEqual([want, want, want])
        } finally {
          net.destroy()
        }
      }),
      { seed: SEED, numRuns: 100 },
    )
  }, 120_000)
})
