/**
 * Rows whose stored name is not a valid name (`.`, `..`, `a/b`, NUL, `\`, over 255 bytes),
 * written by a peer straight to the files table (a hostile client, or a store from before
 * servers checked names). Every replica shows each of them under its safe name
 * (names.ts): listed, walkable without loops, the same on every replica, and renamable or
 * removable by that name; nothing is hidden and no invalid name is ever written back.
 */
import fc from 'fast-check'
import { Bash } from 'just-bash'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import {
  createFileSystem,
  FILES_TABLE_KEY,
  type FileRow,
  nameProblem,
  safeName,
  utf8Length,
  type YjsFileSystem,
} from '../src/index.js'

const TWO_MB = 'n'.repeat(2 * 1024 * 1024)
const HOSTILE = ['.', '..', 'a/b', '/', 'x\0y', 'back\\slash', 'é'.repeat(200), TWO_MB] as const

/** A peer writing rows in core's stored format: array entries (format 1) or object entries. */
function rawRows(rows: FileRow[], form: 'array' | 'object' = 'array'): Uint8Array {
  const doc = new Y.Doc()
  const files = doc.getArray<unknown>(FILES_TABLE_KEY)
  files.push(
    rows.map((r, i) =>
      form === 'object'
        ? { key: r.id, val: r, ts: 1000 + i }
        : [1, r.id, 1000 + i, r.name, r.parentId, r.type, r.size, r.createdAt, r.updatedAt, r.trashedAt],
    ),
  )
  return Y.encodeStateAsUpdate(doc)
}

const row = (id: string, name: string, extra: Partial<FileRow> = {}): FileRow =>
  ({
    id,
    name,
    parentId: null,
    type: 'folder',
    size: 0,
    createdAt: 1,
    updatedAt: 1,
    trashedAt: null,
    ...extra,
  }) as FileRow

/** Every path under `/` (workspace only), by walking readdir; throws past `cap` entries (a loop). */
async function walk(fs: YjsFileSystem, cap = 1000): Promise<string[]> {
  const out: string[] = []
  const visit = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdirWithFileTypes(dir)) {
      if (dir === '/' && ['bin', 'dev', 'proc', 'tmp', 'usr'].includes(entry.name)) continue
      const path = dir === '/' ? `/${entry.name}` : `${dir}/${entry.name}`
      out.push(path)
      if (out.length > cap) throw new Error(`walk did not end: ${out.slice(0, 20).join(', ')}`)
      if (entry.isDirectory) await visit(path)
    }
  }
  await visit('/')
  return out
}

function withRows(update: Uint8Array): YjsFileSystem {
  const fs = createFileSystem()
  Y.applyUpdate(fs.doc, update)
  return fs
}

describe('rows with invalid stored names', () => {
  it('are listed under valid, distinct safe names; a walk ends; nothing is hidden (both entry forms)', async () => {
    for (const form of ['array', 'object'] as const) {
      const rows = HOSTILE.map((name, i) => row(`h${i}`, name))
      // A file inside the `..` folder: a walk must reach it once, not loop back to the root.
      rows.push(row('inner', 'inner.txt', { parentId: 'h1' as FileRow['id'], type: 'file' }))
      const fs = withRows(rawRows(rows, form))
      const root = (await fs.readdir('/')).filter((n) => !['bin', 'dev', 'proc', 'tmp', 'usr'].includes(n))
      expect(root).toHaveLength(HOSTILE.length)
      for (const name of root) {
        expect(nameProblem(name)).toBeUndefined()
        expect(utf8Length(name)).toBeLessThanOrEqual(255)
      }
      expect(root).not.toContain('.')
      expect(root).not.toContain('..')
      expect(new Set(root).size).toBe(root.length)
      const paths = await walk(fs)
      expect(paths).toContain('/%2E%2E/inner.txt')
      expect(paths).toHaveLength(HOSTILE.length + 1)
      expect(fs.getAllPaths().filter((p) => p.startsWith('/%2E%2E'))).toEqual([
        '/%2E%2E',
        '/%2E%2E/inner.txt',
      ])
      fs.destroy()
    }
  })

  it('a shell sees them by their safe names: find ends, ls lists no . or .. rows', async () => {
    const fs = withRows(
      rawRows([
        row('d', '..'),
        row('s', '.'),
        row('f', 'x.txt', { parentId: 'd' as FileRow['id'], type: 'file' }),
        row('g', 'a/b', { parentId: 'd' as FileRow['id'], type: 'file' }),
      ]),
    )
    const bash = new Bash({ fs, cwd: '/' })
    const find = await bash.exec('find /%2E%2E /%2E')
    expect(find.exitCode).toBe(0)
    expect(find.stdout.split('\n').filter(Boolean).sort()).toEqual([
      '/%2E',
      '/%2E%2E',
      '/%2E%2E/a%2Fb',
      '/%2E%2E/x.txt',
    ])
    const ls = await bash.exec('ls /%2E%2E')
    expect(ls.stdout.split('\n').filter(Boolean)).toEqual(['a%2Fb', 'x.txt'])
    fs.destroy()
  })

  it('are shown by the documented rule', () => {
    expect(safeName('.')).toBe('%2E')
    expect(safeName('..')).toBe('%2E%2E')
    expect(safeName('a/b')).toBe('a%2Fb')
    expect(safeName('x\0y')).toBe('x%00y')
    expect(safeName('back\\slash')).toBe('back%5Cslash')
    expect(safeName('50%/x')).toBe('50%25%2Fx')
    const long = safeName(TWO_MB)
    expect(long).toBe(`${'n'.repeat(240)}…`)
  })

  it('can be renamed and removed by their safe name; writes store valid names only', async () => {
    const fs = withRows(
      rawRows([row('d', '..'), row('f', 'a/b', { type: 'file' }), row('g', 'x\0y', { type: 'file' })]),
    )
    const writes: unknown[] = []
    fs.doc.getArray(FILES_TABLE_KEY).observe((event) => {
      if (!event.transaction.local) return
      for (const d of event.changes.delta) if (d.insert) writes.push(...(d.insert as unknown[]))
    })
    await fs.mv('/%2E%2E', '/parent')
    expect(fs.table.get('d' as FileRow['id'])?.name).toBe('parent')
    // A write that keeps the name (content and size) stores the safe name instead of the invalid one.
    await fs.writeFile('/a%2Fb', 'hello')
    expect(await fs.readFile('/a%2Fb')).toBe('hello')
    expect(fs.table.get('f' as FileRow['id'])?.name).toBe('a%2Fb')
    await fs.rm('/x%00y')
    expect(fs.table.get('g' as FileRow['id'])?.trashedAt).not.toBeNull()
    fs.table.flush()
    expect(writes.length).toBeGreaterThan(0)
    for (const entry of writes) {
      const name = Array.isArray(entry) ? entry[3] : (entry as { val: FileRow }).val.name
      expect(nameProblem(name as string)).toBeUndefined()
    }
    expect((await fs.readdir('/')).filter((n) => !['bin', 'dev', 'proc', 'tmp', 'usr'].includes(n))).toEqual([
      'a%2Fb',
      'parent',
    ])
    fs.destroy()
  })

  it('a safe name that equals a real sibling is suffixed like any duplicate', async () => {
    const fs = withRows(rawRows([row('x', '.', { createdAt: 5 }), row('y', '%2E', { createdAt: 1 })]))
    const root = (await fs.readdir('/')).filter((n) => !['bin', 'dev', 'proc', 'tmp', 'usr'].includes(n))
    expect(root).toEqual(['%2E', '%2E (1)'])
    expect(fs.index.lookup('/%2E')).toBe('y')
    fs.destroy()
  })

  it('every replica shows the same valid, distinct names in any delivery order (property)', async () => {
    const nameArb = fc.oneof(
      fc.constantFrom('.', '..', 'a/b', 'a%2Fb', '%2E', 'x\0', '\\', 'a', 'a'),
      fc.string({ maxLength: 6 }).filter((s) => s.length > 0),
      fc.constantFrom('z'.repeat(256), `${'y'.repeat(250)}/`),
    )
    const rowsArb = fc.array(
      fc.record({
        name: nameArb,
        parent: fc.nat(3),
        folder: fc.boolean(),
        createdAt: fc.nat(3),
      }),
      { minLength: 1, maxLength: 12 },
    )
    await fc.assert(
      fc.asyncProperty(rowsArb, fc.nat(), async (specs, cut) => {
        const rows = specs.map((s, i) =>
          row(`r${i}`, s.name, {
            parentId: s.parent === 0 || s.parent >= i ? null : (`r${s.parent}` as FileRow['id']),
            type: s.folder ? 'folder' : 'file',
            createdAt: s.createdAt,
          }),
        )
        // One update per row: replica one gets them in order, replica two in reverse from \`cut\` on.
        const updates = rows.map((r) => rawRows([r]))
        const k = cut % updates.length
        const one = createFileSystem()
        for (const u of updates) Y.applyUpdate(one.doc, u)
        const two = createFileSystem()
        for (const u of [...updates.slice(k).reverse(), ...updates.slice(0, k)]) Y.applyUpdate(two.doc, u)
        const a = await walk(one)
        expect(await walk(two)).toEqual(a)
        expect(a).toHaveLength(rows.length)
        for (const p of a) for (const part of p.split('/').slice(1)) expect(nameProblem(part)).toBeUndefined()
        one.destroy()
        two.destroy()
      }),
      { seed: 26, numRuns: 200 },
    )
  })
})
