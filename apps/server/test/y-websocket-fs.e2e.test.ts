// The design's own wiring (issue 25): `createFileSystem` with one plain y-websocket
// `WebsocketProvider` per doc — the main doc `<workspace>`, content docs `<workspace>/<fileId>` —
// against `yfs serve`'s `/yws` path, nothing of @yfs/client. Two such peers exchange a new file,
// an edit, a rename, binary bytes and a just-bash script's files, and a fresh @yfs/client reads
// the same. (A new file's first
// write used to wait for its content doc's sync, which the server holds until the file's row
// exists, which core writes after the content: the two peers exchanged nothing.)
import { connectWorkspace } from '@yfs/client'
import { Bash } from 'just-bash'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer, waitFor } from './helpers.js'
import { plainPeer, WS } from './plain-peer.js'

describe('createFileSystem with plain y-websocket providers', () => {
  let t: TestServer
  let token: string

  beforeAll(async () => {
    t = await startTestServer()
    token = (await t.workspace(WS)).write
  })
  afterAll(() => t.close())

  it("two peers exchange a new file, an edit, a rename, binary bytes and a just-bash script's files; a fresh @yfs/client reads the same", async () => {
    const a = await plainPeer(t, token)
    const b = await plainPeer(t, token)
    try {
      // A new file: its first write finishes (it used to wait forever).
      await a.fs.writeFile('/hello.txt', 'hello from a\n')
      await waitFor(
        async () =>
          (await b.fs.exists('/hello.txt')) && (await b.fs.readFile('/hello.txt')) === 'hello from a\n',
        'the new file on b',
      )
      // An edit from the other peer.
      await b.fs.writeFile('/hello.txt', 'hello from a\nand from b\n')
      await waitFor(
        async () => (await a.fs.readFile('/hello.txt')) === 'hello from a\nand from b\n',
        'the edit on a',
      )
      // A rename.
      await a.fs.mkdir('/docs')
      await a.fs.mv('/hello.txt', '/docs/hello.txt')
      await waitFor(async () => b.fs.exists('/docs/hello.txt'), 'the rename on b')
      expect(await b.fs.exists('/hello.txt')).toBe(false)
      // Binary bytes.
      const bytes = new Uint8Array([0, 1, 2, 250, 255, 0, 7])
      await b.fs.writeFile('/docs/blob.bin', bytes)
      await waitFor(
        async () =>
          (await a.fs.exists('/docs/blob.bin')) &&
          (await a.fs.readFileBuffer('/docs/blob.bin')).byteLength === bytes.byteLength,
        'the bytes on a',
      )
      expect([...(await a.fs.readFileBuffer('/docs/blob.bin'))]).toEqual([...bytes])
      // just-bash on a peer, its defence in depth on (the default): the scripts' writes open
      // content docs, whose providers start timers, which the sandbox allows only outside scripts.
      const script = await new Bash({ fs: b.fs, cwd: '/' }).exec(
        'mkdir -p /sh && for i in 1 2; do echo "from bash $i" > /sh/f$i.txt; done; cat /docs/hello.txt >> /sh/f2.txt; sed -i s/bash/BASH/ /sh/f1.txt; cat /sh/f1.txt',
      )
      expect(script.stderr).toBe('')
      expect(script.stdout).toBe('from BASH 1\n')
      await waitFor(
        async () =>
          (await a.fs.exists('/sh/f2.txt')) &&
          (await a.fs.readFile('/sh/f2.txt')) === 'from bash 2\nhello from a\nand from b\n',
        "the script's files on a",
      )
      // A new file larger than the early-frame budget: its first content is one large update,
      // held while the server waits for the row.
      const big = 'x'.repeat(6 * 1024 * 1024)
      await a.fs.writeFile('/docs/big.txt', big)
      await waitFor(
        async () =>
          (await b.fs.exists('/docs/big.txt')) && (await b.fs.stat('/docs/big.txt')).size === big.length,
        'the big file on b',
        20_000,
      )

      const fresh = await connectWorkspace({ url: t.url, workspace: WS, token })
      try {
        expect(await fresh.fs.readFile('/docs/hello.txt')).toBe('hello from a\nand from b\n')
        expect([...(await fresh.fs.readFileBuffer('/docs/blob.bin'))]).toEqual([...bytes])
        expect(await fresh.fs.exists('/hello.txt')).toBe(false)
        expect(await fresh.fs.readFile('/sh/f1.txt')).toBe('from BASH 1\n')
      } finally {
        await fresh.close()
      }
    } finally {
      a.close()
      b.close()
    }
  })
  it('new files whose docs the pool evicts before their first sync still reach the server', async () => {
    // y-websocket acknowledges nothing, and a new file's doc syncs only once its row is stored
    // (after the batch): eight idle docs at most, so most are evicted before that.
    const a = await plainPeer(t, token, { maxIdle: 8 })
    const fresh = await connectWorkspace({ url: t.url, workspace: WS, token })
    try {
      await a.fs.mkdir('/evicted')
      await a.fs.batch(async () => {
        for (let i = 0; i < 40; i++) await a.fs.writeFile(`/evicted/f${i}.txt`, `line ${i}\n`)
      })
      const script = await new Bash({ fs: a.fs, cwd: '/' }).exec(
        'for i in $(seq 1 40); do echo "bash $i" > /evicted/g$i.txt; done',
      )
      expect(script.stderr).toBe('')
      const expected = new Map<string, string>()
      for (let i = 0; i < 40; i++) expected.set(`/evicted/f${i}.txt`, `line ${i}\n`)
      for (let i = 1; i <= 40; i++) expected.set(`/evicted/g${i}.txt`, `bash ${i}\n`)
      // The writer stays connected; everything arrives (it used to stay empty for good).
      await waitFor(
        async () => {
          fresh.fs.pool.evictIdle(true)
          for (const [path, text] of expected) {
            if (!(await fresh.fs.exists(path)) || (await fresh.fs.readFile(path)) !== text) return false
          }
          return true
        },
        "every file's content on a fresh client",
        20_000,
      )
    } finally {
      a.close()
      await fresh.close()
    }
  })
})
