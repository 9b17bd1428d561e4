// yfs ls, tree, stat, cat, history, diff, restore, trash and checkpoint on a data-folder workspace:
// each prints what the agents' tool of the same job says (or its JSON), and fails with exit 1 and
// the POSIX code for a missing path; a read-only command runs with a read token.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectWorkspace } from '@yfs/client'
import { createSqliteStore } from '@yfs/server'
import { startTestServer, type TestServer } from '@yfs/server/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { yfs } from './run-cli.js'

describe('yfs file commands', () => {
  const data = mkdtempSync(join(tmpdir(), 'yfs-file-commands-'))
  const at = ['--data', data, '--workspace', 'demo']

  beforeAll(async () => {
    const store = createSqliteStore({ file: join(data, 'yfs.sqlite') })
    await store.createWorkspace('demo')
    await store.close()
    const r = await yfs(
      'bash',
      ...at,
      'mkdir -p /src/lib && printf "one\\ntwo\\n" > /src/plan.txt && echo x > /src/lib/a.ts',
    )
    expect(r.code).toBe(0)
  })
  afterAll(() => rmSync(data, { recursive: true, force: true }))

  it('ls, tree, stat and cat show the tree and the bytes', async () => {
    expect((await yfs('ls', '/src', ...at)).out).toMatch(/lib\/[\s\S]*plan\.txt/)
    expect((await yfs('tree', '/', '--depth', '3', ...at)).out).toContain('a.ts')
    const stat = JSON.parse((await yfs('stat', '/src/plan.txt', ...at, '--json')).out)
    expect(stat).toMatchObject({ type: 'file', size: 8 })
    expect((await yfs('cat', '/src/plan.txt', ...at)).out).toBe('one\ntwo\n')
    const missing = await yfs('cat', '/nope.txt', ...at)
    expect(missing.code).toBe(1)
    expect(missing.err).toContain('ENOENT')
  }, 120_000)

  it('history, diff and restore: a version comes back as a new one', async () => {
    expect((await yfs('bash', ...at, 'echo three >> /src/plan.txt')).code).toBe(0)
    const versions = JSON.parse((await yfs('history', '/src/plan.txt', ...at, '--json')).out).versions as {
      id: string
      size: number
      author: string
    }[]
    expect(versions.length).toBeGreaterThanOrEqual(2)
    // Versions made from a terminal are signed by its user.
    expect(versions.at(-1)!.author).toMatch(/^cli:/)
    const first = versions.find((v) => v.size === 8)!.id
    expect((await yfs('diff', '/src/plan.txt', first, ...at)).out).toContain('+three')
    expect((await yfs('restore', '/src/plan.txt', first, ...at)).code).toBe(0)
    expect((await yfs('cat', '/src/plan.txt', ...at)).out).toBe('one\ntwo\n')
  }, 120_000)

  it('trash lists and restores; checkpoint creates, lists and restores', async () => {
    expect((await yfs('bash', ...at, 'rm /src/lib/a.ts')).code).toBe(0)
    const listed = await yfs('trash', ...at, '--json')
    expect(listed.code).toBe(0)
    const trashId = String(JSON.stringify(JSON.parse(listed.out)).match(/"(?:trash_id|id)":"?([^",}]+)/)?.[1])
    expect((await yfs('trash', '--restore', trashId, ...at)).code).toBe(0)
    expect((await yfs('cat', '/src/lib/a.ts', ...at)).out).toBe('x\n')

    expect((await yfs('checkpoint', 'before cleanup', ...at)).code).toBe(0)
    const list = JSON.parse((await yfs('checkpoint', '--list', ...at, '--json')).out) as {
      id: string
      label: string
    }[]
    const mine = list.find((k) => k.label === 'before cleanup')!
    expect(mine).toBeTruthy()
    expect((await yfs('bash', ...at, 'rm -r /src/lib')).code).toBe(0)
    expect((await yfs('checkpoint', '--restore', mine.id, ...at)).code).toBe(0)
    expect((await yfs('cat', '/src/lib/a.ts', ...at)).out).toBe('x\n')
  }, 120_000)
})

describe('yfs file commands against a running server', () => {
  let t: TestServer
  let tokens: { write: string; read: string }
  const at = (token: string) => ['--server', t.url, '--workspace', 'team', '--token', token]

  beforeAll(async () => {
    t = await startTestServer()
    tokens = await t.workspace('team')
    const ws = await connectWorkspace({ url: t.url, workspace: 'team', token: tokens.write })
    await ws.fs.mkdir('/docs')
    await ws.fs.writeFile('/docs/plan.txt', 'Plan\n')
    await ws.fs.writeFile('/docs/plan.txt', 'Plan\n\nShip it.\n')
    await ws.close()
  })
  afterAll(() => t.close())

  it('read commands work with a read token; a change needs a write token', async () => {
    const read = at(tokens.read)
    expect((await yfs('ls', '/docs', ...read)).out).toContain('plan.txt')
    expect((await yfs('tree', '/', ...read)).out).toContain('plan.txt')
    expect((await yfs('cat', '/docs/plan.txt', ...read)).out).toBe('Plan\n\nShip it.\n')
    expect(JSON.parse((await yfs('stat', '/docs/plan.txt', ...read, '--json')).out)).toMatchObject({
      type: 'file',
    })
    const versions = JSON.parse((await yfs('history', '/docs/plan.txt', ...read, '--json')).out).versions as {
      id: string
    }[]
    expect(versions.length).toBeGreaterThanOrEqual(2)
    expect((await yfs('diff', '/docs/plan.txt', versions[0]!.id, ...read)).out).toContain('+Ship it.')
    const refused = await yfs('checkpoint', 'label', ...read)
    expect(refused.code).not.toBe(0)
    expect(`${refused.err}`).toMatch(/EACCES|EROFS|read/i)

    const write = at(tokens.write)
    expect((await yfs('checkpoint', 'on the server', ...write)).code).toBe(0)
    expect((await yfs('restore', '/docs/plan.txt', versions[0]!.id, ...write)).code).toBe(0)
    const ws = await connectWorkspace({ url: t.url, workspace: 'team', token: tokens.read })
    try {
      expect(await ws.fs.readFile('/docs/plan.txt')).toBe('Plan\n')
      expect(ws.fs.checkpoints().map((c) => c.label)).toContain('on the server')
    } finally {
      await ws.close()
    }
  }, 120_000)
})
