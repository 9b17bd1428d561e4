/**
 * A scripted agent session over MCP (write_file, edit_file, apply_patch, bash
 * with mkdir, mv, rm and sed -i) on one replica while a person types on
 * another: the activity log holds one entry per call with the right
 * versions, undo restores the state before the session except the person's
 * lines (reported as a conflict), and undoing the undo brings the session's
 * state back. Real filesystem replicas, real MCP client and server.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { type ActivityEntry, attachActivityLog, createFileSystem } from '@yfs/core'
import { createReplicaNetwork, typeInto } from '@yfs/core/testing'
import { markdownCodec } from '@yfs/markdown'
import { afterEach, describe, expect, it } from 'vitest'
import { createMcpSession } from '../mcp/server.js'
import type { StoreProvider } from '../mcp/stores.js'
import { createToolRegistry } from '../registry.js'

interface CallResult {
  isError?: boolean
  structuredContent: Record<string, unknown>
  content: { text: string }[]
}

const cleanup: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const fn of cleanup.splice(0)) await fn()
})

async function setup() {
  const net = createReplicaNetwork(2, {
    codecs: [markdownCodec],
    clock: () => Date.now,
    author: (i) => (i === 0 ? 'agent' : 'alice'),
  })
  const [agentFs, personFs] = [net.replicas[0]!.fs, net.replicas[1]!.fs]
  const stores: StoreProvider = { createPrivate: () => agentFs, open: () => agentFs, list: () => ['team'] }
  const connect = async (name: string) => {
    const session = await createMcpSession({ stores, store: 'team' })
    const [a, b] = InMemoryTransport.createLinkedPair()
    await session.server.connect(a)
    const client = new Client({ name, version: '1.0.0' })
    await client.connect(b)
    cleanup.push(() => client.close())
    const call = async (tool: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name: tool, arguments: args })) as unknown as CallResult
      await net.syncAll()
      return r
    }
    return { session, call }
  }
  cleanup.push(() => net.destroy())
  return { net, agentFs, personFs, connect }
}

describe('activity log and undo over MCP', () => {
  it('logs a session, undoes it keeping a person’s lines, and undoes the undo', async () => {
    const { net, agentFs, personFs, connect } = await setup()
    // The workspace before the session (written straight, not through the tools: not logged).
    await agentFs.writeFile('/notes.txt', 'alpha\nbeta\ngamma\ndelta\n')
    await agentFs.writeFile('/old.txt', 'old\n')
    await agentFs.writeFile('/gone.txt', 'g\n')
    await agentFs.mkdir('/keep')
    await agentFs.writeFile('/keep/x.txt', 'x\n')
    await net.syncAll()
    const initial = await snapshot(personFs)

    const agent = await connect('claude-test')
    const ok = async (tool: string, args: Record<string, unknown>) => {
      const r = await agent.call(tool, args)
      expect(r.isError, `${tool}: ${r.content[0]?.text}`).toBeFalsy()
      return r
    }
    await ok('write_file', { path: 'vfs:///notes.txt', content: 'ALPHA\nbeta\ngamma\ndelta\n' })
    // The person edits the line the agent just wrote, and adds a line of their own.
    await typeInto(personFs, '/notes.txt', 'ALPHA', ' (alice)')
    await typeInto(personFs, '/notes.txt', 'beta\n', 'person line\n')
    await net.syncAll()
    await ok('edit_file', { path: 'vfs:///notes.txt', old_text: 'delta', new_text: 'DELTA' })
    await ok('apply_patch', {
      patch: '--- a/notes.txt\n+++ b/notes.txt\n@@ -4,1 +4,1 @@\n-gamma\n+GAMMA\n',
    })
    await ok('bash', {
      script:
        "mkdir -p /new/dir && echo hi > /new/dir/f.txt && mv /old.txt /moved.txt && rm /gone.txt && sed -i 's/x/X/' /keep/x.txt",
    })
    await ok('write_file', { path: 'vfs:///src/a.txt', content: 'one\ntwo\n' })
    const failed = await agent.call('read_file', { path: 'vfs:///missing.txt' })
    expect(failed.isError).toBe(true)

    const sessionState = await snapshot(personFs)
    expect(sessionState['/notes.txt']).toBe('ALPHA (alice)\nbeta\nperson line\nGAMMA\nDELTA\n')

    // The log, as the other replica sees it.
    const log = attachActivityLog(personFs.doc)
    const entries = log.list({ session: agent.session.session }).reverse()
    expect(entries.map((e) => [e.tool, e.status, e.who])).toEqual([
      ['write_file', 'ok', 'claude-test'],
      ['edit_file', 'ok', 'claude-test'],
      ['apply_patch', 'ok', 'claude-test'],
      ['bash', 'ok', 'claude-test'],
      ['write_file', 'ok', 'claude-test'],
      ['read_file', 'error', 'claude-test'],
    ])
    expect(entries[5]!.error).toBe('ENOENT')
    // Contents are summarised, never stored whole.
    expect(entries[0]!.args.content).toEqual({ size: 23, sha256: expect.any(String) })
    const byPath = (e: ActivityEntry) => Object.fromEntries(e.files.map((f) => [f.path, f]))
    // Versions: `before` is what the call started from (the person's edits included), `after` what it left.
    const edit = byPath(entries[1]!)['/notes.txt']!
    expect(await personFs.readVersion('/notes.txt', edit.before!)).toBe(
      'ALPHA (alice)\nbeta\nperson line\ngamma\ndelta\n',
    )
    expect(await personFs.readVersion('/notes.txt', edit.after!)).toBe(
      'ALPHA (alice)\nbeta\nperson line\ngamma\nDELTA\n',
    )
    const first = byPath(entries[0]!)['/notes.txt']!
    expect(await personFs.readVersion('/notes.txt', first.before!)).toBe('alpha\nbeta\ngamma\ndelta\n')
    expect(await personFs.readVersion('/notes.txt', first.after!)).toBe('ALPHA\nbeta\ngamma\ndelta\n')
    const patch = byPath(entries[2]!)['/notes.txt']!
    expect(patch.before).toBe(edit.after)
    const bash = byPath(entries[3]!)
    expect(bash['/new']).toMatchObject({ type: 'folder', created: true })
    expect(bash['/new/dir']).toMatchObject({ type: 'folder', created: true })
    expect(bash['/new/dir/f.txt']).toMatchObject({ type: 'file', created: true, after: expect.any(String) })
    expect(bash['/moved.txt']).toMatchObject({ from: '/old.txt' })
    expect(bash['/moved.txt']!.after).toBeUndefined()
    expect(bash['/gone.txt']).toMatchObject({ deleted: true, before: expect.any(String) })
    expect(await personFs.readVersion('/keep/x.txt', bash['/keep/x.txt']!.after!)).toBe('X\n')
    expect(byPath(entries[4]!)['/src']).toMatchObject({ created: true, type: 'folder' })
    expect(byPath(entries[4]!)['/src/a.txt']).toMatchObject({ created: true })

    // A reviewer (another MCP client) looks, tries a dry run, then undoes the session.
    const reviewer = await connect('reviewer')
    const listed = await reviewer.call('activity', { session: agent.session.session })
    expect((listed.structuredContent.entries as unknown[]).length).toBe(6)
    // People's edits of those files, from their history, in the same listing.
    const withEdits = await reviewer.call('activity', { session: agent.session.session, include_edits: true })
    expect(withEdits.structuredContent.edits).toEqual(
      expect.arrayContaining([expect.objectContaining({ who: 'alice', path: 'vfs:///notes.txt' })]),
    )
    const dry = await reviewer.call('undo', { session: agent.session.session, dry_run: true })
    expect(dry.isError).toBeFalsy()
    expect(await snapshot(personFs)).toEqual(sessionState)
    const undone = await reviewer.call('undo', { session: agent.session.session })
    expect(undone.isError, undone.content[0]?.text).toBeFalsy()
    const { dry_run: _d, ...dryReport } = dry.structuredContent
    const { dry_run: _u, ...undoReport } = undone.structuredContent
    expect(dryReport).toEqual(undoReport)
    // Everything is as before the session, except the person's lines.
    expect(await snapshot(personFs)).toEqual({
      ...initial,
      '/notes.txt': 'ALPHA (alice)\nbeta\nperson line\ngamma\ndelta\n',
    })
    const conflicts = undoReport.conflicts as { path: string; lines: unknown[]; session_version: string }[]
    expect(conflicts).toEqual([
      expect.objectContaining({
        path: 'vfs:///notes.txt',
        lines: [{ start: 1, count: 1 }],
        session_version: first.after,
      }),
    ])

    // The undo is an entry of the reviewer's session; undoing it brings the session's state back.
    const [undoEntry] = log.list({ session: reviewer.session.session, limit: 1 })
    expect(undoEntry).toMatchObject({ tool: 'undo', who: 'reviewer', status: 'ok' })
    const redo = await reviewer.call('undo', { entry: undoEntry!.id })
    expect(redo.isError, redo.content[0]?.text).toBeFalsy()
    expect(redo.structuredContent.conflicts).toEqual([])
    expect(await snapshot(personFs)).toEqual(sessionState)
  })

  it('reports bad input instead of failing', async () => {
    const { agentFs, net, connect } = await setup()
    const agent = await connect('a')
    const unknown = await agent.call('undo', { session: 'no-such-session' })
    expect(unknown.isError).toBe(true)
    expect(unknown.content[0]!.text).toContain("no activity for session 'no-such-session'")
    expect((await agent.call('undo', {})).content[0]!.text).toContain('either session or entry')

    // A file the session created, deleted for good since: reported, not a crash.
    await agent.call('write_file', { path: 'vfs:///tmp-file.txt', content: 'x\n' })
    await agent.call('write_file', { path: 'vfs:///kept.txt', content: 'k\n' })
    await agentFs.rm('/tmp-file.txt')
    agentFs.trash.empty()
    await net.syncAll()
    const r = await agent.call('undo', { session: agent.session.session })
    expect(r.isError, r.content[0]?.text).toBeFalsy()
    expect(r.structuredContent.conflicts).toEqual([
      expect.objectContaining({ path: 'vfs:///tmp-file.txt', reason: expect.stringContaining('for good') }),
    ])
    expect(await agentFs.exists('/kept.txt')).toBe(false)

    // A read-only workspace (what a read token opens) can list the activity but not undo.
    const readOnly = createFileSystem({ doc: agentFs.doc, readOnly: true, codecs: [markdownCodec] })
    cleanup.push(() => readOnly.destroy())
    const viewer = createToolRegistry(readOnly)
    const listed = await viewer.execute('activity', {})
    expect(listed.isError).toBeFalsy()
    expect((listed.structuredContent.entries as unknown[]).length).toBeGreaterThan(0)
    const refused = await viewer.execute('undo', { session: agent.session.session })
    expect(refused.isError).toBe(true)
    expect(refused.structuredContent.error).toMatchObject({ code: 'EACCES' })
  })
})

/** Every live file's text by path. */
async function snapshot(fs: import('@yfs/core').YjsFileSystem): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const path of fs.getAllPaths().sort()) {
    const st = await fs.stat(path)
    out[path] = st.isDirectory ? '<dir>' : await fs.readFile(path)
  }
  return out
}
