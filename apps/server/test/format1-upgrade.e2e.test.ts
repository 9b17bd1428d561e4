// Existing workspaces keep working (issue 22): a workspace stored by yfs before rows merged per
// field group (test/fixtures/format1-workspace.sqlite: whole-row entries, main doc and content
// docs in SQLite, written by a real server and client; see make-format1-workspace.ts) loads
// unchanged with today's code, its rows are upgraded as they are written, and upgraded rows merge
// concurrent actions per group.
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { FILES_TABLE_KEY } from '@yfs/core'
import { markdownCodec } from '@yfs/markdown'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { createSqliteStore } from '../src/persistence/sqlite-store.js'
import { startTestServer, type TestServer, waitFor } from './helpers.js'

const FIXTURE = fileURLToPath(new URL('./fixtures/format1-workspace.sqlite', import.meta.url))
const WS = 'legacy'

describe('a workspace stored before per-group rows', () => {
  let dir: string
  let t: TestServer
  let token: string
  const open: WorkspaceConnection[] = []
  const connect = async () => {
    const c = await connectWorkspace({ url: t.url, workspace: WS, token, fs: { codecs: [markdownCodec] } })
    open.push(c)
    return c
  }
  /** The stored main doc's row entries of `id`, as the store holds them now. */
  const storedEntries = async (id: string) => {
    const doc = new Y.Doc()
    Y.applyUpdate(doc, (await t.store.load(WS, WS))!)
    return doc
      .getArray<unknown>(FILES_TABLE_KEY)
      .toArray()
      .filter((e) => Array.isArray(e) && e[1] === id) as unknown[][]
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'yfs-format1-'))
    const file = join(dir, 'yfs.sqlite')
    copyFileSync(FIXTURE, file)
    const store = createSqliteStore({ file })
    t = await startTestServer({ store })
    token = await store.createToken(WS, 'write')
  })
  afterAll(async () => {
    for (const c of open) await c.close()
    await t.close()
    await t.store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('loads unchanged: tree, contents, modes, symlink, trash', async () => {
    const c = await connect()
    const { fs } = c
    expect(
      fs
        .getAllPaths()
        .filter((p) => !/^\/(bin|usr|dev|proc|tmp)(\/|$)/.test(p))
        .sort(),
    ).toEqual([
      '/',
      '/bin.dat',
      '/docs',
      '/docs/moved.txt',
      '/docs/notes',
      '/docs/notes/plan.txt',
      '/docs/readme.md',
      '/plan-link',
      '/src',
      '/src/main.ts',
      '/src/run.sh',
    ])
    expect(await fs.readFile('/docs/notes/plan.txt')).toBe('line 1\nline 2 edited\nline 3\n')
    expect(await fs.readFile('/docs/readme.md')).toBe(
      '---\ntitle: Legacy\ntags: [a, b]\n---\n\n# Legacy\n\nSome *rich* text.\n',
    )
    expect(await fs.readFile('/docs/moved.txt')).toBe('moved once\n')
    expect([...(await fs.readFileBuffer('/bin.dat'))]).toEqual([0, 1, 2, 255, 254])
    expect((await fs.stat('/src/run.sh')).mode & 0o777).toBe(0o755)
    expect(await fs.readlink('/plan-link')).toBe('/docs/notes/plan.txt')
    expect(await fs.readFile('/plan-link')).toBe('line 1\nline 2 edited\nline 3\n')
    expect(fs.trash.list().map((e) => e.name)).toEqual(['trashed.txt'])
    expect((await fs.stat('/docs/notes/plan.txt')).size).toBe('line 1\nline 2 edited\nline 3\n'.length)
    // Nothing was rewritten by loading it: every stored row entry is still a whole-row one.
    const id = fs.index.lookup('/docs/notes/plan.txt')!
    for (const e of await storedEntries(id)) expect(e.length).toBeLessThanOrEqual(13)
  })

  it('rows are upgraded as they are written, and read back by a fresh client', async () => {
    const a = await connect()
    const id = a.fs.index.lookup('/src/main.ts')!
    await a.fs.chmod('/src/main.ts', 0o600)
    await a.flush()
    // The chmod's entry carries group stamps (18 slots): the other groups keep their older stamps.
    await waitFor(async () => (await storedEntries(id)).some((e) => e.length === 18), 'an upgraded entry')
    const b = await connect()
    expect((await b.fs.stat('/src/main.ts')).mode & 0o777).toBe(0o600)
    expect(await b.fs.readFile('/src/main.ts')).toBe('export const x = 1\n')
  })

  it('an upgraded row merges a rename on one client with a concurrent edit on another', async () => {
    const a = await connect()
    const b = await connect()
    await a.flush()
    await b.flush()
    // Neither hears of the other until both have acted.
    const aDone = a.fs.mv('/docs/notes/plan.txt', '/docs/notes/renamed.txt')
    const bDone = b.fs.writeFile('/docs/notes/plan.txt', 'line 1\nline 2 edited\nline 3\nline 4 by b\n')
    await Promise.all([aDone, bDone])
    await Promise.all([a.flush(), b.flush()])
    const fresh = await connect()
    for (const c of [a, b, fresh])
      await waitFor(
        async () =>
          (await c.fs.exists('/docs/notes/renamed.txt')) &&
          (await c.fs.readFile('/docs/notes/renamed.txt')).includes('line 4 by b'),
        'the rename and the edit, both',
      )
    expect(await fresh.fs.exists('/docs/notes/plan.txt')).toBe(false)
    expect((await fresh.fs.stat('/docs/notes/renamed.txt')).size).toBe(
      'line 1\nline 2 edited\nline 3\nline 4 by b\n'.length,
    )
  })
})
