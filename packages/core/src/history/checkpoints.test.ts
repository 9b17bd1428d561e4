import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createFileSystem, type YjsFileSystem } from '../fs/yjs-file-system.js'

async function dump(fs: YjsFileSystem): Promise<string[]> {
  const out: string[] = []
  for (const p of fs.index.allPaths()) {
    const st = await fs.lstat(p)
    out.push(
      st.isDirectory
        ? `${p}/`
        : st.isSymbolicLink
          ? `${p}->${await fs.readlink(p)}`
          : `${p}=${await fs.readFile(p)}`,
    )
  }
  return out
}

describe('checkpoints', () => {
  it('diff lists added, removed, moved and changed files with per-file diffs', async () => {
    const fs = createFileSystem()
    await fs.mkdir('/src')
    await fs.writeFile('/src/a.ts', 'one\n')
    await fs.writeFile('/src/b.ts', 'bee\n')
    await fs.writeFile('/gone.txt', 'bye\n')
    const cp = await fs.checkpoint('start')
    await fs.writeFile('/src/a.ts', 'one\ntwo\n')
    await fs.mv('/src/b.ts', '/b.ts')
    await fs.rm('/gone.txt')
    await fs.writeFile('/new.txt', 'hi\n')
    const diff = await fs.diffCheckpoint(cp.id)
    expect(diff.added).toEqual(['/new.txt'])
    expect(diff.removed).toEqual(['/gone.txt'])
    expect(diff.moved).toEqual([{ from: '/src/b.ts', to: '/b.ts' }])
    expect(diff.changed.map((c) => c.path)).toEqual(['/src/a.ts'])
    expect(diff.changed[0]!.diff).toContain('@@ -1,1 +1,2 @@\n one\n+two\n')
    const later = await fs.checkpoint('later')
    expect((await fs.diffCheckpoint(cp.id, later.id)).added).toEqual(['/new.txt'])
    expect(fs.checkpoints().map((c) => c.label)).toEqual(['start', 'later'])
  })

  it('restore gives exactly the checkpointed tree and contents after arbitrary changes', async () => {
    const name = fc.constantFrom('a', 'b', 'c.md', 'd.txt')
    const dir = fc.constantFrom('/', '/x/', '/x/y/', '/z/')
    const op = fc.oneof(
      fc.record({ k: fc.constant('write' as const), d: dir, n: name, text: fc.string({ maxLength: 6 }) }),
      fc.record({ k: fc.constant('mkdir' as const), d: dir, n: name }),
      fc.record({ k: fc.constant('rm' as const), d: dir, n: name }),
      fc.record({ k: fc.constant('mv' as const), d: dir, n: name, d2: dir, n2: name }),
      fc.record({ k: fc.constant('link' as const), d: dir, n: name }),
      fc.record({ k: fc.constant('empty' as const) }),
    )
    type Op = { k: string; d?: string; n?: string; d2?: string; n2?: string; text?: string }
    const run = async (fs: YjsFileSystem, op: Op) => {
      const o = { d: '', n: '', d2: '', n2: '', text: '', ...op }
      try {
        if (o.k === 'write') await fs.writeFile(o.d + o.n, o.text)
        if (o.k === 'mkdir') await fs.mkdir(o.d + o.n, { recursive: true })
        if (o.k === 'rm') await fs.rm(o.d + o.n, { recursive: true })
        if (o.k === 'mv') await fs.mv(o.d + o.n, o.d2 + o.n2)
        if (o.k === 'link') await fs.symlink('/x', o.d + o.n)
        if (o.k === 'empty') fs.trash.empty()
      } catch (error) {
        // Invalid random ops (ENOENT, EEXIST, …) are part of the input.
        if (!(error instanceof Error && /^E[A-Z]+:/.test(error.message))) throw error
      }
    }
    await fc.assert(
      fc.asyncProperty(
        fc.array(op, { maxLength: 12 }),
        fc.array(op, { maxLength: 12 }),
        async (setup, changes) => {
          const fs = createFileSystem()
          await fs.mkdir('/x/y', { recursive: true })
          await fs.mkdir('/z')
          for (const o of setup) await run(fs, o)
          const expected = await dump(fs)
          const cp = await fs.checkpoint('base')
          for (const o of changes) await run(fs, o)
          const { safetyCheckpoint } = await fs.restoreCheckpoint(cp.id)
          expect(await dump(fs)).toEqual(expected)
          expect(fs.checkpoints().map((c) => c.id)).toContain(safetyCheckpoint.id)
        },
      ),
      { numRuns: 150, seed: 7 },
    )
  })
})
