// Workspace ids that are names of Object.prototype (`constructor`, `toString`, …): Hocuspocus
// looks document names up in plain objects, so such a workspace would be unusable. They are
// refused where workspaces are made (admin API, CLI, stores) and as document names, and a socket
// naming one is closed without disturbing anyone else.
import { connectWorkspace } from '@yfs/client'
import { parseDocName } from '@yfs/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isValidWorkspaceId, workspaceIdProblem } from '../src/persistence/document-store.js'
import { ADMIN_TOKEN, startTestServer, type TestServer } from './helpers.js'
import { authFrame, openRawSocket } from './raw-socket.js'

// Every own property of Object.prototype that the id pattern would otherwise accept.
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).filter((n) =>
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(n),
)

describe('workspace ids named like Object.prototype members', () => {
  let t: TestServer
  let token: string

  beforeAll(async () => {
    t = await startTestServer()
    token = (await t.workspace('ok')).write
  })
  afterAll(() => t.close())

  it('are not valid ids or document names', () => {
    expect(PROTOTYPE_NAMES).toEqual(
      expect.arrayContaining(['constructor', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf']),
    )
    for (const id of [...PROTOTYPE_NAMES, '__proto__', '__defineGetter__']) {
      expect(isValidWorkspaceId(id), id).toBe(false)
      expect(parseDocName(id), id).toBeUndefined()
      expect(parseDocName(`${id}/V1StGXR8_Z5jdHi`), id).toBeUndefined()
    }
    expect(workspaceIdProblem('constructor')).toMatch(/reserved/)
    // Only the exact names: ids that merely contain or resemble them are fine.
    for (const id of ['Constructor', 'constructors', 'my-toString', 'proto'])
      expect(isValidWorkspaceId(id)).toBe(true)
  })

  it('are refused by the admin API with a 400 that says why', async () => {
    for (const id of PROTOTYPE_NAMES) {
      const res = await fetch(`http://127.0.0.1:${t.port}/api/workspaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ id }),
      })
      expect(res.status, id).toBe(400)
      expect(((await res.json()) as { error: string }).error, id).toMatch(/reserved/)
    }
    expect(await t.store.listWorkspaces()).toEqual(['ok'])
  })

  it('are refused by the stores (`yfs workspace create`: apps/cli/test/workspace-cli.test.ts)', async () => {
    await expect(t.store.createWorkspace('constructor')).rejects.toThrow(RangeError)
  })

  it('a socket naming one is closed; the server and other clients carry on', async () => {
    for (const name of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const raw = await openRawSocket(t.url)
      raw.send(authFrame(name, token))
      // Hocuspocus keeps per-document state in plain objects: the socket guard refuses these names
      // before Hocuspocus sees them. Only this socket is closed.
      expect(await raw.closed, name).toEqual({ code: 4400, reason: 'invalid document name' })
      const yws = await openRawSocket(`${t.url}/yws/${name}?token=${token}`)
      expect(await yws.closed, name).toEqual({ code: 4401, reason: 'invalid document name' })
    }
    const health = await fetch(`http://127.0.0.1:${t.port}/healthz`)
    expect(health.status).toBe(200)
    const c = await connectWorkspace({ url: t.url, workspace: 'ok', token })
    try {
      await c.fs.writeFile('/after.txt', 'still fine')
      await c.flush()
      expect(await c.fs.readdir('/')).toContain('after.txt')
    } finally {
      await c.close()
    }
  })
})
