// Random sequences of bash calls through the server's /mcp `bash` tool (the agent's path: a
// worker thread, the session's client, a write batch per call), with pauses between them: each
// call prints what the same script prints on just-bash's InMemoryFs, reports no merge (the agent
// alone writes: an own append once made the next write "[merged] … someone else edited it"), and
// a person's client then reads the files the reference holds.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { connectWorkspace } from '@yfs/client'
import { fuzzParameters, waitFor } from '@yfs/core/testing'
import { markdownCodec } from '@yfs/markdown'
import fc from 'fast-check'
import { Bash, InMemoryFs } from 'just-bash'
import { afterAll, beforeAll, it } from 'vitest'
import { call, contents } from './bash-calls.js'
import { startTestServer, type TestServer } from './helpers.js'

let t: TestServer
let run = 0
beforeAll(async () => {
  t = await startTestServer()
})
afterAll(async () => {
  await t.close()
})

interface BashResult {
  stdout: string
  exit_code: number
  merges?: unknown[]
}

it("an agent's bash calls through /mcp print and leave what they do on InMemoryFs", {
  timeout: 300_000,
}, async () => {
  const { runs, seed, path } = fuzzParameters(40)
  await fc.assert(
    fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 10 }), async (calls) => {
      const workspace = `agent-sequence-${run++}`
      const { write } = await t.workspace(workspace)
      const agent = new Client({ name: 'sequence', version: '1.0.0' })
      await agent.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.port}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${write}` } },
        }),
      )
      const bash = async (script: string) =>
        (
          (await agent.callTool({ name: 'bash', arguments: { script } })) as unknown as {
            structuredContent: BashResult
          }
        ).structuredContent
      const person = await connectWorkspace({
        url: t.url,
        workspace,
        token: write,
        fs: { codecs: [markdownCodec] },
      })
      try {
        const reference = new InMemoryFs()
        await reference.mkdir('/d')
        await bash('mkdir /d')
        const log: string[] = []
        for (const { script, pause } of calls) {
          const expected = await new Bash({ fs: reference, cwd: '/' }).exec(script)
          const got = await bash(script)
          log.push(`${JSON.stringify(script)} → ${JSON.stringify([got.stdout, got.exit_code, got.merges])}`)
          if (
            got.stdout !== expected.stdout ||
            got.exit_code !== expected.exitCode ||
            got.merges !== undefined
          )
            throw new Error(
              `${log.join('\n')}\nexpected ${JSON.stringify([expected.stdout, expected.exitCode])}, no merge`,
            )
          await new Promise((resolve) => setTimeout(resolve, pause))
        }
        // A tool call's result means stored: the person's client gets the rows, then reads the contents.
        const want = JSON.stringify(await contents(reference))
        await waitFor(
          async () => JSON.stringify(await contents(person.fs)) === want,
          `the files on a person's client:\n${log.join('\n')}\n${want}`,
        )
      } finally {
        await agent.close()
        await person.close()
      }
    }),
    { numRuns: runs, seed, path },
  )
})
