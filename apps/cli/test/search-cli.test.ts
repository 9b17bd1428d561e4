// `yfs search`: human output and --json against a running server and in a data folder, exit codes
// like grep (0 found, 1 nothing, 2 an error).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connectWorkspace } from '@yfs/client'
import { createSqliteStore } from '@yfs/server'
import { startTestServer, type TestServer } from '@yfs/server/testing'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createProgram } from '../src/cli.js'
import { yfs } from './run-cli.js'

describe('yfs search', () => {
  let t: TestServer
  let read: string
  beforeAll(async () => {
    t = await startTestServer()
    const tokens = await t.workspace('cli')
    read = tokens.read
    const ws = await connectWorkspace({ url: t.url, workspace: 'cli', token: tokens.write })
    await ws.fs.mkdir('/notes')
    await ws.fs.writeFile('/notes/plan.txt', 'the quarterly plan\nnothing\n')
    await ws.fs.writeFile('/notes/other.txt', 'a planet\n')
    await ws.close()
  })
  afterAll(async () => t.close())

  async function run(...args: string[]): Promise<{ out: string; code: number }> {
    let out = ''
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out += String(chunk)
      return true
    })
    const before = process.exitCode
    try {
      await createProgram()
        .exitOverride()
        .parseAsync([
          'node',
          'yfs',
          'search',
          '--server',
          t.url,
          '--workspace',
          'cli',
          '--token',
          read,
          ...args,
        ])
      return { out, code: Number(process.exitCode ?? 0) }
    } finally {
      spy.mockRestore()
      process.exitCode = before
    }
  }

  it('prints ranked hits with the match marked, or JSON', async () => {
    const human = await run('plan')
    expect(human.out).toBe(
      '/notes/plan.txt (1 matching line)\n  1:15: the quarterly «plan»\n/notes/other.txt (1 matching line)\n  1:3: a «plan»et\n1–2 of 2 files\n',
    )
    expect(human.code).toBe(0)
    const json = JSON.parse((await run('plan\\w+', '--regex', '--json')).out)
    expect(json).toMatchObject({ total: 1, hits: [{ path: '/notes/other.txt' }] })
    expect(await run('nowhere')).toEqual({ out: '(no matches)\n', code: 1 })
  })
})

describe('yfs search in a data folder (no server running)', () => {
  const data = mkdtempSync(join(tmpdir(), 'yfs-search-data-'))
  const at = ['--data', data, '--workspace', 'demo']
  beforeAll(async () => {
    const store = createSqliteStore({ file: join(data, 'yfs.sqlite') })
    await store.createWorkspace('demo')
    await store.close()
    const r = await yfs('bash', ...at, 'mkdir -p /notes && echo "the quarterly plan" > /notes/plan.txt')
    expect(r.code).toBe(0)
  }, 120_000)
  afterAll(() => rmSync(data, { recursive: true, force: true }))

  it('finds, ranks and pages as on a server, with the same exit codes', async () => {
    const hit = await yfs('search', 'quarterly', ...at)
    expect(hit).toMatchObject({ code: 0 })
    expect(hit.out).toContain('/notes/plan.txt (1 matching line)\n  1:5: the «quarterly» plan')
    expect(JSON.parse((await yfs('search', 'plan', ...at, '--json')).out)).toMatchObject({ total: 1 })
    expect((await yfs('search', 'nowhere', ...at)).code).toBe(1)
    const bad = await yfs('search', 'a(b', '--regex', ...at)
    expect(bad.code).toBe(2)
    expect(bad.err).toMatch(/position|regex/i)
    const missing = await yfs('search', 'x', '--data', data, '--workspace', 'ghost')
    expect(missing.code).toBe(2)
    expect(missing.err).toContain("no workspace 'ghost'")
  }, 120_000)
})
