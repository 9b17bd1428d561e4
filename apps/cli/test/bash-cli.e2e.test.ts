// `yfs bash`: a script run once (its output and exit code), and the prompt fed on stdin (cd, a
// write, a failing line, exit), against a running server; the writes reach another client.
import { fileURLToPath } from 'node:url'
import { connectWorkspace } from '@yfs/client'
import { spawnProcess } from '@yfs/core/testing'
import { startTestServer, type TestServer } from '@yfs/server/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const BIN = fileURLToPath(new URL('../bin/yfs.cjs', import.meta.url))

async function yfs(args: string[], stdin = ''): Promise<{ out: string; err: string; code: number | null }> {
  const p = spawnProcess(process.execPath, [BIN, ...args])
  p.child.stdin!.end(stdin)
  const code = await p.exited
  return { out: p.stdout(), err: p.stderr(), code }
}

describe('yfs bash', () => {
  let t: TestServer
  let token: string
  const at = () => ['--server', t.url, '--token', token, '--workspace', 'team']

  beforeAll(async () => {
    t = await startTestServer()
    token = (await t.workspace('team')).write
  })
  afterAll(() => t.close())

  it('runs a script once, prints its output and exits with its exit code', async () => {
    const ok = await yfs(['bash', ...at(), 'mkdir -p /d && echo hello > /d/a.txt && cat /d/a.txt'])
    expect(ok).toMatchObject({ out: 'hello\n', code: 0 })
    const failed = await yfs(['bash', ...at(), 'cat /nope.txt; exit 3'])
    expect(failed.code).toBe(3)
    expect(failed.err).toContain('/nope.txt')
    const json = await yfs(['bash', ...at(), '--json', 'ls /d'])
    expect(JSON.parse(json.out)).toMatchObject({ stdout: 'a.txt\n', exit_code: 0 })
  }, 120_000)

  it('the prompt keeps its folder across lines, reports a bad cd, and exits with the last code', async () => {
    const lines = ['cd /d', 'pwd', 'echo from the prompt > b.txt', 'cd /missing', 'cat b.txt', 'exit']
    const r = await yfs(['bash', ...at()], `${lines.join('\n')}\n`)
    expect(r.out).toContain('/d\n')
    expect(r.out).toContain('from the prompt\n')
    expect(r.err).toContain('cd: /missing: No such file or directory')
    expect(r.code).toBe(0)
    const other = await connectWorkspace({ url: t.url, workspace: 'team', token })
    try {
      expect(await other.fs.readFile('/d/b.txt')).toBe('from the prompt\n')
    } finally {
      await other.close()
    }
  }, 120_000)

  it('says why a workspace cannot be opened (exit 2)', async () => {
    const r = await yfs(['bash', '--server', t.url, '--token', 'wrong', '--workspace', 'team', 'ls'])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/^yfs bash: /)
  }, 120_000)
})
