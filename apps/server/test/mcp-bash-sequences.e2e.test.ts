// Random sequences of bash calls through the server's /mcp `bash` tool (the agent's path: a
// worker thread, the session's client, a write batch per call), with pauses between them: each
// call prints what the same script prints on just-bash's InMemoryFs, reports no merge (the agent
// alone writes: an own append once made the next write "[merged] … someone else edited it"), and
// a person's client then reads the files the reference holds.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { connectWorkspace, type WorkspaceConnection } from '@yfs/client'
import type { YjsFileSystem } from '@yfs/core'
import { fuzzParameters, snapshotFileSystem, waitFor } from '@yfs/core/testing'
import { markdownCodec } from '@yfs/markdown'
import fc from 'fast-check'
import { Bash, type IFileSystem, InMemoryFs } from 'just-bash'
import { afterAll, beforeAll, it } from 'vitest'
import { call, contents, execBesideAnother, FILES } from './bash-calls.js'
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

/** A workspace with an agent on /mcp (its `bash` tool) and a person's client (Markdown codec). */
async function agentAndPerson(workspace: string) {
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
  const connect = () =>
    connectWorkspace({ url: t.url, workspace, token: write, fs: { codecs: [markdownCodec] } })
  return { agent, bash, person: await connect(), connect }
}

it("an agent's bash calls through /mcp print and leave what they do on InMemoryFs", {
  timeout: 300_000,
}, async () => {
  const { runs, seed, path } = fuzzParameters(40)
  await fc.assert(
    fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 10 }), async (calls) => {
      const { agent, bash, person } = await agentAndPerson(`agent-sequence-${run++}`)
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

it("an agent's calls through /mcp and a person's bash on a client, at the same time, converge", {
  timeout: 300_000,
}, async () => {
  // Each side's files as bytes (base64), the agent's read through its own bash tool.
  const personView = (fs: IFileSystem) =>
    Promise.all(
      FILES.map(
        async (f) =>
          `${f}:${await fs.readFileBuffer(f).then(
            (b) => Buffer.from(b).toString('base64'),
            () => '-',
          )}`,
      ),
    )
  const agentScript = FILES.map(
    (f) => `if [ -f ${f} ]; then echo "${f}:$(base64 -w0 ${f})"; else echo "${f}:-"; fi`,
  ).join('; ')
  const { runs, seed, path } = fuzzParameters(40)
  const calls = fc.array(call, { minLength: 1, maxLength: 8 })
  await fc.assert(
    fc.asyncProperty(calls, calls, async (agentCalls, personCalls) => {
      const { agent, bash, person, connect } = await agentAndPerson(`agent-and-person-${run++}`)
      let fresh: WorkspaceConnection | undefined
      const tried = `agent: ${JSON.stringify(agentCalls)}\nperson: ${JSON.stringify(personCalls)}`
      try {
        await bash('mkdir /d')
        await waitFor(() => person.fs.exists('/d'), '/d on the person')
        await Promise.all([
          (async () => {
            for (const { script, pause } of agentCalls) {
              await bash(script)
              await new Promise((resolve) => setTimeout(resolve, pause))
            }
          })(),
          (async () => {
            for (const { script, pause } of personCalls) {
              await execBesideAnother(person.fs, script)
              await new Promise((resolve) => setTimeout(resolve, pause))
            }
            await person.fs.flushTruncations()
            await person.flush()
          })(),
        ])
        fresh = await connect()
        const freshFs = fresh.fs
        const tree = async (fs: YjsFileSystem) => JSON.stringify(await snapshotFileSystem(fs))
        await waitFor(
          async () => (await tree(freshFs)) === (await tree(person.fs)),
          `a fresh client's tree is the person's\n${tried}`,
        )
        const want = (await personView(person.fs)).join('\n')
        let seen = ''
        await waitFor(async () => {
          seen = (await bash(agentScript)).stdout.trim()
          return seen === want
        }, `the agent's files are the person's\n${tried}\nperson:\n${want}`).catch((error: Error) => {
          throw new Error(`${error.message}\nagent:\n${seen}`)
        })
      } finally {
        await agent.close()
        await person.close()
        await fresh?.close()
      }
    }),
    { numRuns: runs, seed, path },
  )
})
