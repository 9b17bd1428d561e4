// Random sequences of bash calls on a server-connected @yfs/client (`new Bash({ fs })` per call,
// as a library user or an agent's tool does), with pauses between them, print and leave what the
// same calls do on just-bash's InMemoryFs, and a second client reads the same tree; two clients
// (or two peers on plain y-websocket providers) running such calls at the same time converge. A call that
// takes longer than a few seconds is a hang: a file written in one call and rewritten in the next,
// after its content was sent, used to wait forever (host-timers.ts: just-bash skips `.then`
// callbacks registered in a script that has ended, and our bulk store's were).
import { connectWorkspace } from '@yfs/client'
import type { YjsFileSystem } from '@yfs/core'
import { fuzzParameters, snapshotFileSystem, waitFor } from '@yfs/core/testing'
import { markdownCodec } from '@yfs/markdown'
import fc from 'fast-check'
import { Bash, InMemoryFs } from 'just-bash'
import { afterAll, beforeAll, it } from 'vitest'
import { call, contents, execBesideAnother } from './bash-calls.js'
import { startTestServer, type TestServer } from './helpers.js'
import { plainPeer } from './plain-peer.js'

const CALL_LIMIT_MS = 8_000

let t: TestServer
let run = 0
beforeAll(async () => {
  t = await startTestServer()
})
afterAll(async () => {
  await t.close()
})

function withinLimit<T>(work: Promise<T>, what: () => string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer in ${CALL_LIMIT_MS} ms:\n${what()}`)), CALL_LIMIT_MS)
  })
  return Promise.race([work, limit]).finally(() => clearTimeout(timer))
}

/** A filesystem of the workspace as one kind of peer sees it; `settle` waits until the server has its changes. */
interface Peer {
  fs: YjsFileSystem
  settle(): Promise<void>
  close(): Promise<void>
}

async function checkSequences(connect: (workspace: string, token: string) => Promise<Peer>, ciRuns: number) {
  const { runs, seed, path } = fuzzParameters(ciRuns)
  await fc.assert(
    fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 12 }), async (calls) => {
      const workspace = `sequence-${run++}`
      const { write } = await t.workspace(workspace)
      const client = await connect(workspace, write)
      const reader = await connect(workspace, write)
      try {
        const reference = new InMemoryFs()
        await reference.mkdir('/d')
        await client.fs.mkdir('/d')
        const log: string[] = []
        for (const { script, pause } of calls) {
          const expected = await new Bash({ fs: reference, cwd: '/' }).exec(script)
          const got = await withinLimit(new Bash({ fs: client.fs, cwd: '/' }).exec(script), () =>
            [...log, script].join('\n'),
          )
          log.push(`${JSON.stringify(script)} → ${JSON.stringify([got.stdout, got.exitCode])}`)
          if (got.stdout !== expected.stdout || got.exitCode !== expected.exitCode)
            throw new Error(
              `${log.join('\n')}\nexpected ${JSON.stringify([expected.stdout, expected.exitCode])}`,
            )
          await new Promise((resolve) => setTimeout(resolve, pause))
        }
        // A truncation with no write after it is held until the command ends (held-truncations.ts).
        await client.fs.flushTruncations()
        await client.settle()
        const [want, have] = [await contents(reference), await contents(client.fs)]
        if (JSON.stringify(want) !== JSON.stringify(have))
          throw new Error(`${log.join('\n')}\nfiles: expected ${want.join(', ')}, got ${have.join(', ')}`)
        const written = JSON.stringify(await snapshotFileSystem(client.fs))
        await waitFor(
          async () => JSON.stringify(await snapshotFileSystem(reader.fs)) === written,
          'the tree on a second peer',
        )
      } finally {
        await client.close()
        await reader.close()
      }
    }),
    { numRuns: runs, seed, path },
  )
}

const clientPeer = async (workspace: string, token: string): Promise<Peer> => {
  const connection = await connectWorkspace({ url: t.url, workspace, token, fs: { codecs: [markdownCodec] } })
  return { fs: connection.fs, settle: () => connection.flush(), close: () => connection.close() }
}

const yWebsocketPeer = async (workspace: string, token: string): Promise<Peer> => {
  const peer = await plainPeer(t, token, { workspace, codecs: [markdownCodec] })
  // y-websocket acknowledges nothing: the other peer's wait is the barrier.
  return { fs: peer.fs, settle: async () => {}, close: async () => peer.close() }
}

it('bash calls on a connected client print and leave what they do on InMemoryFs', {
  timeout: 300_000,
}, async () => {
  await checkSequences(clientPeer, 120)
})

it("the same on peers of plain y-websocket providers (the design's wiring)", {
  timeout: 300_000,
}, async () => {
  await checkSequences(yWebsocketPeer, 60)
})

async function checkConcurrent(connect: (workspace: string, token: string) => Promise<Peer>, ciRuns: number) {
  const { runs, seed, path } = fuzzParameters(ciRuns)
  const calls = fc.array(call, { minLength: 1, maxLength: 8 })
  await fc.assert(
    fc.asyncProperty(calls, calls, async (callsOfA, callsOfB) => {
      const workspace = `concurrent-${run++}`
      const { write } = await t.workspace(workspace)
      const a = await connect(workspace, write)
      const b = await connect(workspace, write)
      try {
        await a.fs.mkdir('/d')
        await a.settle()
        await waitFor(() => b.fs.exists('/d'), '/d on the second peer')
        const work = async (peer: Peer, calls: typeof callsOfA) => {
          for (const { script, pause } of calls) {
            // A hang still fails the property.
            await withinLimit(execBesideAnother(peer.fs, script), () => script)
            await new Promise((resolve) => setTimeout(resolve, pause))
          }
          await peer.fs.flushTruncations()
          await peer.settle()
        }
        await Promise.all([work(a, callsOfA), work(b, callsOfB)])
        const trees = async () => [
          JSON.stringify(await snapshotFileSystem(a.fs)),
          JSON.stringify(await snapshotFileSystem(b.fs)),
        ]
        await waitFor(
          async () => {
            const [onA, onB] = await trees()
            return onA === onB
          },
          `both peers' trees alike after\n${JSON.stringify(callsOfA)}\n${JSON.stringify(callsOfB)}`,
        )
        const fresh = await connect(workspace, write)
        try {
          const [onA] = await trees()
          await waitFor(
            async () => JSON.stringify(await snapshotFileSystem(fresh.fs)) === onA,
            'the tree on a fresh peer',
          )
        } finally {
          await fresh.close()
        }
      } finally {
        await a.close()
        await b.close()
      }
    }),
    { numRuns: runs, seed, path },
  )
}

it('two clients running random bash calls at the same time converge, and a fresh client reads the same', {
  timeout: 300_000,
}, async () => {
  await checkConcurrent(clientPeer, 80)
})

it('two peers of plain y-websocket providers doing the same at the same time converge', {
  timeout: 300_000,
}, async () => {
  await checkConcurrent(yWebsocketPeer, 40)
})
