// The IFileSystem contract (@yfs/core/testing) on clients of a real server: written through one
// @yfs/client connection, read through another (core runs it on InMemoryFs, a local YjsFileSystem
// and two replicas in packages/core/test/file-system-contract.test.ts).
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import { type ContractEnv, fileSystemContract, waitFor } from '@yfs/core/testing'
import { afterAll, beforeAll, describe, it } from 'vitest'
import { sameState, startTestServer, type TestServer } from './helpers.js'

describe('IFileSystem contract: server-connected clients', () => {
  let t: TestServer
  const open: WorkspaceConnection[] = []
  let run = 0

  beforeAll(async () => {
    t = await startTestServer()
  })
  afterAll(async () => {
    for (const c of open) await c.close()
    await t.close()
  })

  // A fresh workspace per case: the writer's changes are stored (flush), then the reader's main
  // doc holds the same state (its content docs load from the server when read).
  async function env(): Promise<ContractEnv> {
    const workspace = `contract-${run++}`
    const tokens = await t.workspace(workspace)
    const writer = await connectWorkspace({ url: t.url, workspace, token: tokens.write })
    const reader = await connectWorkspace({ url: t.url, workspace, token: tokens.write })
    open.push(writer, reader)
    return {
      writer: writer.fs,
      reader: reader.fs,
      settle: async () => {
        await writer.flush()
        await waitFor(() => sameState(writer.fs.doc, reader.fs.doc), "the writer's rows on the reader")
      },
    }
  }

  for (const c of fileSystemContract) it(c.name, async () => c.run(await env()))
})
