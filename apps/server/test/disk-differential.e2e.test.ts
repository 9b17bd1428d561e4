// The disk-differential property (@yfs/core/testing) on clients of a real server: random calls
// through one @yfs/client connection (or one peer on plain y-websocket providers), with the
// Markdown codec (moves between .md and other names convert), answer as a real folder does, and
// once stored the tree read through a second connection is the folder's (core runs it locally,
// in a batch and on replicas in packages/core/test/disk-differential.property.test.ts).
import { connectWorkspace } from '@yfs/client'
import { checkAgainstDisk, fuzzParameters, snapshotFileSystem, waitFor } from '@yfs/core/testing'
import { markdownCodec } from '@yfs/markdown'
import { afterAll, beforeAll, it } from 'vitest'
import { sameState, startTestServer, type TestServer } from './helpers.js'
import { plainPeer } from './plain-peer.js'

let t: TestServer
let run = 0

beforeAll(async () => {
  t = await startTestServer()
})
afterAll(async () => {
  await t.close()
})

it('a server-connected client answers and ends like a real folder', { timeout: 120_000 }, async () => {
  await checkAgainstDisk(async () => {
    // A fresh workspace per sequence, written through one connection and read through another.
    const workspace = `differential-${run++}`
    const tokens = await t.workspace(workspace)
    const writer = await connectWorkspace({
      url: t.url,
      workspace,
      token: tokens.write,
      fs: { codecs: [markdownCodec] },
    })
    const reader = await connectWorkspace({
      url: t.url,
      workspace,
      token: tokens.write,
      fs: { codecs: [markdownCodec] },
    })
    return {
      writer: writer.fs,
      reader: reader.fs,
      settle: async () => {
        await writer.fs.flushTruncations()
        await writer.flush()
        await waitFor(() => sameState(writer.fs.doc, reader.fs.doc), "the writer's rows on the reader")
      },
      close: async () => {
        await writer.close()
        await reader.close()
      },
    }
  }, fuzzParameters(150))
})

it("two peers on plain y-websocket providers (the design's wiring) do the same", {
  timeout: 180_000,
}, async () => {
  await checkAgainstDisk(async () => {
    const workspace = `differential-plain-${run++}`
    const tokens = await t.workspace(workspace)
    const writer = await plainPeer(t, tokens.write, { workspace, codecs: [markdownCodec] })
    const reader = await plainPeer(t, tokens.write, { workspace, codecs: [markdownCodec] })
    return {
      writer: writer.fs,
      reader: reader.fs,
      // y-websocket acknowledges nothing: the reader has it all once it reads what the writer does.
      settle: async () => {
        await writer.fs.flushTruncations()
        const expected = JSON.stringify(await snapshotFileSystem(writer.fs))
        await waitFor(
          async () => JSON.stringify(await snapshotFileSystem(reader.fs)) === expected,
          "the writer's tree on the reader",
        )
      },
      close: async () => {
        writer.close()
        reader.close()
      },
    }
  }, fuzzParameters(60))
})
