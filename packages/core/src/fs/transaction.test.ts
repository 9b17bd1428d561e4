import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { FsError } from '../errors.js'
import { createFilesTable } from '../files-table.js'
import { createFileSystemIndex } from '../path-index.js'
import type { FsOp } from './transaction.js'
import { createFileSystem, type YjsFileSystem } from './yjs-file-system.js'

async function seeded(): Promise<YjsFileSystem> {
  const fs = createFileSystem()
  await fs.mkdir('/src')
  await fs.writeFile('/src/a.ts', 'a')
  await fs.writeFile('/src/b.ts', 'b')
  await fs.mkdir('/empty')
  return fs
}

async function dump(fs: YjsFileSystem): Promise<string> {
  const out: string[] = []
  for (const p of fs.index.allPaths()) {
    const st = await fs.stat(p)
    out.push(st.isDirectory ? `${p}/` : `${p}=${await fs.readFile(p)}`)
  }
  return `${out.join('\n')}\ntrash:${fs.trash.list().length}`
}

const good: FsOp[] = [
  { type: 'writeFile', path: '/src/c.ts', content: 'c' },
  { type: 'appendFile', path: '/src/a.ts', content: '+' },
  { type: 'mkdir', path: '/lib/deep', recursive: true },
  { type: 'rename', oldPath: '/src/b.ts', newPath: '/lib/b.ts' },
  { type: 'copy', src: '/src/a.ts', dest: '/lib/a-copy.ts' },
  { type: 'deleteFile', path: '/src/c.ts' },
  { type: 'rmdir', path: '/empty' },
]

// Each op kind, made to fail.
const failing: FsOp[] = [
  { type: 'writeFile', path: '/nope/x.ts', content: 'x' },
  { type: 'appendFile', path: '/src', content: 'x' },
  { type: 'deleteFile', path: '/src' },
  { type: 'mkdir', path: '/src' },
  { type: 'rmdir', path: '/src/a.ts' },
  { type: 'rename', oldPath: '/missing', newPath: '/x' },
  { type: 'copy', src: '/src', dest: '/src2' },
]

describe('transactions', () => {
  it('apply every op, with one main-doc update and events tagged with the transaction id', async () => {
    const fs = await seeded()
    const events: string[] = []
    fs.watch((e) => events.push(`${e.type} ${e.path} ${e.transactionId ? 'tx' : '-'}`))
    let mainUpdates = 0
    fs.doc.on('update', () => mainUpdates++)
    const result = await fs.transaction(good)
    expect(await dump(fs)).toBe(
      ['/lib/', '/lib/a-copy.ts=a+', '/lib/b.ts=b', '/lib/deep/', '/src/', '/src/a.ts=a+', 'trash:2'].join(
        '\n',
      ),
    )
    expect(mainUpdates).toBe(1)
    expect(result.rowChanges).toBeGreaterThan(0)
    expect(events.every((e) => e.endsWith(' tx'))).toBe(true)
    expect(events).toContain('rename /lib/b.ts tx')
  })

  it('a failing op at any position leaves no trace, and reports its index and code', async () => {
    for (const bad of failing) {
      for (let pos = 0; pos <= good.length; pos++) {
        const fs = await seeded()
        const before = await dump(fs)
        const state = Y.encodeStateVector(fs.doc)
        const events: unknown[] = []
        fs.watch((e) => events.push(e))
        const ops = [...good.slice(0, pos), bad, ...good.slice(pos)]
        const error = await fs.transaction(ops).catch((e: unknown) => e)
        expect(error).toBeInstanceOf(FsError)
        expect((error as FsError & { opIndex: number }).opIndex).toBe(pos)
        expect(await dump(fs)).toBe(before)
        expect(Y.encodeStateVector(fs.doc)).toEqual(state)
        expect(events).toEqual([])
        expect(fs.index.snapshot()).toEqual(createFileSystemIndex(createFilesTable(fs.doc)).snapshot())
      }
    }
  })

  it('a peer receiving the updates never sees a partial transaction', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: good.length }), async (n) => {
        const a = await seeded()
        const b = createFileSystem()
        Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
        const seen: string[][] = []
        b.index.onChange(() => seen.push(b.index.allPaths()))
        a.doc.on('update', (u: Uint8Array) => Y.applyUpdate(b.doc, u))
        await a.transaction(good.slice(0, n))
        // b observed exactly one tree change: from the old tree straight to the new one.
        expect(seen.length).toBe(1)
        expect(seen[0]).toEqual(a.index.allPaths())
      }),
      { numRuns: 20 },
    )
  })
})
