/**
 * Memory per idle workspace: connect `workspaces` clients, each to its own
 * workspace of `files` files with every content doc loaded, leave them idle,
 * and read the server's heap and RSS from /healthz before and after. Then
 * disconnect everyone and check that the server unloads every document.
 */
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { adminSetup } from '../../cli/test/spawn-server.js'

export interface IdleResult {
  workspaces: number
  files: number
  heapPerWorkspace: number
  rssPerWorkspace: number
  documentsWhileIdle: number
  documentsAfterLeave: number
}

interface Health {
  rssBytes: number
  heapUsedBytes: number
  documents: number
}

// Counts need the admin token (http/health.ts).
const health = async (http: string, admin: string) =>
  (await (
    await fetch(`${http}/healthz?gc=1`, { headers: { authorization: `Bearer ${admin}` } })
  ).json()) as Health

export async function benchIdleMemory(
  http: string,
  url: string,
  admin: string,
  workspaces: number,
  files: number,
): Promise<IdleResult> {
  const tokens: string[] = []
  for (let w = 0; w < workspaces; w++) {
    const token = await adminSetup(http, admin, `idle${w}`)
    tokens.push(token)
    const c = await connectWorkspace({ url, workspace: `idle${w}`, token })
    for (let i = 0; i < files; i++)
      await c.fs.writeFile(`/f${i}.md`, `# file ${i}\n\n${'text '.repeat(40)}\n`)
    await c.flush(30_000)
    await c.close()
  }
  await new Promise((r) => setTimeout(r, 3000)) // let the seeding clients' docs unload
  const before = await health(http, admin)
  const clients: WorkspaceConnection[] = []
  for (let w = 0; w < workspaces; w++) {
    const c = await connectWorkspace({ url, workspace: `idle${w}`, token: tokens[w]! })
    for (let i = 0; i < files; i++) await c.fs.readFile(`/f${i}.md`)
    clients.push(c)
  }
  await new Promise((r) => setTimeout(r, 1000))
  const idle = await health(http, admin)
  for (const c of clients) await c.close()
  const deadline = Date.now() + 15_000
  let after = await health(http, admin)
  while (after.documents > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200))
    after = await health(http, admin)
  }
  return {
    workspaces,
    files,
    heapPerWorkspace: (idle.heapUsedBytes - before.heapUsedBytes) / workspaces,
    rssPerWorkspace: (idle.rssBytes - before.rssBytes) / workspaces,
    documentsWhileIdle: idle.documents,
    documentsAfterLeave: after.documents,
  }
}
