// `yfs log` and `yfs undo` against a running server (an agent's session over /mcp) and a data folder.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { connectWorkspace } from '@yfs/client'
import { createSqliteStore } from '@yfs/server'
import { startTestServer, type TestServer } from '@yfs/server/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { yfs } from './run-cli.js'

describe('yfs log and yfs undo', () => {
  const dir = mkdtempSync(join(tmpdir(), 'yfs-activity-cli-'))
  const store = createSqliteStore({ file: join(dir, 'yfs.sqlite') })
  let t: TestServer
  let tokens: { write: string; read: string }
  let session = ''
  const server = () => ['--server', t.url, '--workspace', 'team']

  beforeAll(async () => {
    t = await startTestServer({ store })
    tokens = await t.workspace('team')
    const ws = await connectWorkspace({ url: t.url, workspace: 'team', token: tokens.write })
    await ws.fs.writeFile('/plan.txt', 'one\ntwo\n')
    await ws.close()
    const agent = new Client({ name: 'cli-test-agent', version: '1.0.0' })
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.port}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${tokens.write}` } },
      }),
    )
    await agent.callTool({
      name: 'edit_file',
      arguments: { path: 'vfs:///plan.txt', old_text: 'two', new_text: 'TWO' },
    })
    await agent.callTool({ name: 'bash', arguments: { script: 'mkdir /out && echo done > /out/report.txt' } })
    await agent.close()
  })
  afterAll(async () => {
    await t.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('lists the session newest first, as lines or JSON', async () => {
    const json = await yfs('log', ...server(), '--token', tokens.read, '--json')
    expect(json.code).toBe(0)
    const { entries } = JSON.parse(json.out) as { entries: { tool: string; who: string; session: string }[] }
    expect(entries.map((e) => [e.tool, e.who])).toEqual([
      ['bash', 'cli-test-agent'],
      ['edit_file', 'cli-test-agent'],
    ])
    session = entries[0]!.session
    const human = await yfs('log', ...server(), '--token', tokens.read, '--path', '/out')
    expect(human.out).toMatch(/session .* cli-test-agent {2}bash {2}ok {2}\+\/out \+\/out\/report\.txt\n$/)
    const edits = JSON.parse((await yfs('log', ...server(), '--token', tokens.read, '--edits', '--json')).out)
    expect(edits.edits).toEqual([])
    expect((await yfs('log', ...server(), '--token', tokens.read, '--session', 'nobody')).out).toBe(
      '(no activity)\n',
    )
  })

  it('undoes the session (dry run first); a read token cannot; an unknown session is an error', async () => {
    const dry = await yfs('undo', ...server(), '--token', tokens.write, '--session', session, '--dry-run')
    expect(dry.out).toContain('would revert 3 change(s) in 2 entries')
    const refused = await yfs('undo', ...server(), '--token', tokens.read, '--session', session)
    expect(refused.code).toBe(2)
    expect(refused.err).toContain('read-only')
    const unknown = await yfs('undo', ...server(), '--token', tokens.write, '--session', 'nope')
    expect(unknown.code).toBe(2)
    expect(unknown.err).toContain("no activity for session 'nope'")
    const done = await yfs('undo', ...server(), '--token', tokens.write, '--session', session, '--json')
    expect(done.code, done.err).toBe(0)
    expect(JSON.parse(done.out)).toMatchObject({ dry_run: false, conflicts: [] })
    const ws = await connectWorkspace({ url: t.url, workspace: 'team', token: tokens.read })
    try {
      expect(await ws.fs.exists('/out')).toBe(false)
      expect(await ws.fs.readFile('/plan.txt')).toBe('one\ntwo\n')
    } finally {
      await ws.close()
    }
  })

  it('reads and undoes through a data folder when no server runs on it', async () => {
    await t.server.close()
    const log = await yfs('log', '--data', dir, '--workspace', 'team', '--json')
    expect(log.code, log.err).toBe(0)
    const [undo] = (JSON.parse(log.out) as { entries: { tool: string; session: string; who: string }[] })
      .entries
    expect(undo).toMatchObject({ tool: 'undo', who: expect.stringMatching(/^cli:/) })
    // Undo the undo: the session's changes come back.
    const redo = await yfs('undo', '--data', dir, '--workspace', 'team', '--session', undo!.session)
    expect(redo.code, redo.err).toBe(0)
    expect(redo.out).toContain('reverted 3 change(s) in 1 entry')
    const again = await yfs('log', '--data', dir, '--workspace', 'team', '--limit', '1', '--json')
    expect(JSON.parse(again.out).entries[0]).toMatchObject({ tool: 'undo', status: 'ok' })
    expect((await yfs('log', '--data', dir, '--workspace', 'nope')).err).toContain("no workspace 'nope'")
    // Retention is the workspace's: set it, and the log is trimmed to it.
    const kept = await yfs('log', '--data', dir, '--workspace', 'team', '--keep-entries', '2', '--json')
    expect(kept.code, kept.err).toBe(0)
    expect(JSON.parse(kept.out)).toMatchObject({ retention: { max_entries: 2, max_age_days: 30 } })
    expect(JSON.parse(kept.out).entries).toHaveLength(2)
  })
})
