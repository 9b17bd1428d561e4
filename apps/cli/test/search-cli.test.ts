// `yfs search`: human output and --json against a running server, exit codes like grep.
import { connectWorkspace } from '@yfs/client'
import { startTestServer, type TestServer } from '@yfs/server/testing'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createProgram } from '../src/cli.js'

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
