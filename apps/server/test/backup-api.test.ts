// The backup API's rules over HTTP: who may back up (admin, read or write token of the
// workspace) and restore (admin, write token; never read), and what is refused with which status.
import { connectWorkspace } from '@yfs/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, startTestServer, type TestServer } from './helpers.js'

describe('backup API', () => {
  let t: TestServer
  let tokens: { write: string; read: string }
  let otherTokens: { write: string; read: string }
  let http: string
  let backup: Buffer

  const get = (ws: string, token?: string) =>
    fetch(`${http}/api/workspaces/${ws}/backup`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
    })
  const post = (ws: string, token: string | undefined, body: Uint8Array) =>
    fetch(`${http}/api/workspaces/${ws}/restore`, {
      method: 'POST',
      headers: token ? { authorization: `Bearer ${token}` } : {},
      body: new Uint8Array(body),
    })

  beforeAll(async () => {
    t = await startTestServer()
    http = `http://127.0.0.1:${t.port}`
    tokens = await t.workspace('team')
    otherTokens = await t.workspace('other')
    const ws = await connectWorkspace({ url: t.url, workspace: 'team', token: tokens.write })
    await ws.fs.writeFile('/a.txt', 'a\n')
    await ws.flush()
    await ws.close()
  })
  afterAll(() => t.close())

  it('backs up with the admin token or any token of the workspace', async () => {
    for (const token of [ADMIN_TOKEN, tokens.read, tokens.write]) {
      const r = await get('team', token)
      expect(r.status).toBe(200)
      expect(r.headers.get('content-type')).toBe('application/x-ndjson')
      backup = Buffer.from(await r.arrayBuffer())
    }
    expect(backup.toString().split('\n')[0]).toContain('"workspace":"team"')
    expect((await get('team')).status).toBe(401)
    expect((await get('team', 'yfs_unknown')).status).toBe(401)
    expect(await (await get('team', otherTokens.read)).json()).toMatchObject({ code: 'EACCES' })
    expect((await get('nope', ADMIN_TOKEN)).status).toBe(404)
  })

  it('restores with the admin token or a write token, never a read token, and never over documents', async () => {
    expect((await post('copy', tokens.write, backup)).status).toBe(403) // a token of team, not copy
    const readOnly = await post('other', otherTokens.read, backup)
    expect(readOnly.status).toBe(403)
    expect(await readOnly.json()).toMatchObject({ code: 'EACCES' })
    expect((await post('other', undefined, backup)).status).toBe(401)

    const made = await post('copy', ADMIN_TOKEN, backup)
    expect(made.status).toBe(201)
    expect(await made.json()).toMatchObject({ workspace: 'copy', documents: 2 })
    // The empty workspace `other` takes a restore with its write token.
    expect((await post('other', otherTokens.write, backup)).status).toBe(201)

    const again = await post('copy', ADMIN_TOKEN, backup)
    expect(again.status).toBe(409)
    expect(await again.json()).toMatchObject({ code: 'EEXIST' })
    const bad = await post('bad', ADMIN_TOKEN, backup.subarray(0, 40))
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ code: 'EINVAL' })
    expect(await t.store.hasWorkspace('bad')).toBe(false)
    expect((await post('bad/id', ADMIN_TOKEN, backup)).status).toBe(404)
  })
})
