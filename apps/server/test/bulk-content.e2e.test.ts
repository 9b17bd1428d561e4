// Batched content over the main doc's connection against a real server (SQLite, real sockets):
// writeTree stores many new docs per round trip (acknowledged = stored), a fresh client's
// grep -r fetches a folder's docs per round trip, results keep request order, ids the
// server refuses come back as refusals, read tokens may load but never store, and a damaged
// update refuses its whole batch with an error naming the file (nothing stored). Overwrites of
// files whose docs are not open go as bulk updates: built on a fetched or known state, with a
// version each, seen live by a peer holding the doc open, never losing a peer's edit.
import { connectWorkspace, createBulkChannel, type WorkspaceConnection } from '@yfs/client'
import type { FileId } from '@yfs/core'
import { markdownCodec } from '@yfs/markdown'
import { isPackedBulkMessage } from '@yfs/protocol'
import fc from 'fast-check'
import { Bash } from 'just-bash'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import * as Y from 'yjs'
import {
  contentText,
  linesText,
  replaceLine,
  startTestServer,
  type TestServer,
  textInsertOn,
  waitFor,
  writeLine,
} from './helpers.js'
import { decodeFrame, statelessFrame } from './raw-socket.js'

/** `c` reads `want` at `path` and its row says `want`'s size, within the wait's bound. */
async function readsWithSize(c: WorkspaceConnection, name: string, path: string, want: string) {
  let read = ''
  let size = -1
  await waitFor(
    async () => {
      read = await c.fs.readFile(path)
      size = (await c.fs.stat(path)).size
      return read === want && size === Buffer.byteLength(want)
    },
    () => `${path} on ${name} at ${JSON.stringify(want)}: it reads ${JSON.stringify(read)} of ${size} bytes`,
  )
}

/** Each of `paths`' rows on `c` says `want`'s size (read without reading the file). */
async function rowsGiveSize(c: WorkspaceConnection, paths: string[], want: string) {
  for (const path of paths)
    await waitFor(
      async () => (await c.fs.stat(path)).size === Buffer.byteLength(want),
      async () =>
        `${path}'s row at ${Buffer.byteLength(want)} bytes (it says ${(await c.fs.stat(path)).size})`,
    )
}

/** Each of `paths` reaches `expected`'s lines in the peer's open `docs` and on each of `writers`. */
async function linesEverywhere(
  paths: string[],
  expected: string[][],
  docs: Y.Doc[],
  writers: WorkspaceConnection[],
) {
  for (const [f, path] of paths.entries()) {
    const want = linesText(expected[f]!)
    const ytext = docs[f]!.getText('text')
    await waitFor(() => ytext.toString() === want, `${path} in the peer's doc at ${JSON.stringify(want)}`)
    // What each writer reads, and the size its row says (a write whose row lost still changed the content).
    for (const [w, writer] of writers.entries()) await readsWithSize(writer, `writer ${w}`, path, want)
  }
}

const STATELESS = 5

/**
 * The `ws` WebSocket, recording the stateless payloads this client sends; with `olderServer`, the
 * server's stateless replies reach the client as a server of the version before packed bulk
 * messages wrote them (no `readsPacked`).
 */
function bulkWatchingWebSocket(olderServer: boolean) {
  const sent: string[] = []
  const statelessOf = (bytes: Uint8Array) => {
    const frame = decodeFrame(bytes)
    return frame.type === STATELESS ? { docName: frame.docName, payload: frame.text ?? '' } : undefined
  }
  class BulkWatchingWebSocket extends WebSocket {
    constructor(...args: ConstructorParameters<typeof WebSocket>) {
      super(...args)
      this.on('error', () => undefined)
    }
    override send(data: Parameters<WebSocket['send']>[0], ...rest: unknown[]): void {
      const view = data as ArrayBufferView
      const found = statelessOf(new Uint8Array(view.buffer, view.byteOffset, view.byteLength))
      if (found) sent.push(found.payload)
      ;(super.send as (...a: unknown[]) => void)(data, ...rest)
    }
    // ws hands every listener a frame through `emit('message', data, isBinary)`.
    override emit(event: string | symbol, ...args: unknown[]): boolean {
      if (olderServer && event === 'message') {
        const data = args[0] as ArrayBuffer | Uint8Array
        const found = statelessOf(data instanceof Uint8Array ? data : new Uint8Array(data))
        if (found) {
          const bytes = statelessFrame(found.docName, found.payload.replace(',"readsPacked":true', ''))
          args[0] =
            data instanceof Uint8Array
              ? Buffer.from(bytes)
              : bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
        }
      }
      return super.emit(event, ...args)
    }
  }
  /** The bulk messages sent, by format, in order. */
  const formats = () =>
    sent.filter((p) => p.startsWith('{"v":"yfs.bulk.')).map((p) => (isPackedBulkMessage(p) ? 'packed' : 'v1'))
  return { WebSocket: BulkWatchingWebSocket, formats }
}

describe('bulk content messages', () => {
  let t: TestServer
  let tokens: { write: string; read: string }
  // Each test's connections, closed after it: each holds the workspace's whole main doc and index.
  const open: WorkspaceConnection[] = []
  const connect = async (
    token: string,
    fs?: Parameters<typeof connectWorkspace>[0]['fs'],
    workspace = 'bulk',
  ) => {
    const c = await connectWorkspace({ url: t.url, workspace, token, fs })
    open.push(c)
    return c
  }
  /**
   * A writer whose bulk loads (with `seen.load`) and bulk updates (with `seen.update`) go through a
   * channel of its own, each request's ids shown to the hook first (and to `seen.loaded`, what each
   * load got: the ids that came back without their state, still at the head the writer held);
   * `fs`: its filesystem's options.
   */
  const writerWithChannel = async (
    fs: Parameters<typeof connect>[1],
    seen: {
      load?: (ids: string[]) => void
      loaded?: (unchanged: string[], states: string[]) => void
      update?: (ids: string[]) => void
    },
  ) => {
    let channel: ReturnType<typeof createBulkChannel> | undefined
    const { load, loaded, update } = seen
    const writer = await connect(tokens.write, {
      ...fs,
      ...((load || loaded) && {
        loadContent: async (ids: string[], since?: readonly (string | undefined)[]) => {
          load?.(ids)
          if (!since) return channel!.load(ids)
          const got = await channel!.loadSince(ids, since)
          loaded?.(
            ids.filter((_, k) => got[k] && got[k].state === undefined),
            ids.filter((_, k) => got[k]?.state !== undefined),
          )
          return got
        },
      }),
      ...(update && {
        updateContent: (docs: { id: string; update: Uint8Array; base?: string }[]) => {
          update(docs.map((d) => d.id))
          return channel!.update(docs)
        },
      }),
    })
    channel = createBulkChannel(writer.main, { timeoutMs: 10_000 })
    return { writer, channel }
  }
  /**
   * `reader` saw `lines` at every path (each a file of 20 lines); `peer` changes the first line,
   * then `reader` writes its change of the last line: each write must merge both, with no conflict.
   */
  const peerEditThenReaderWrite = async (
    peer: WorkspaceConnection,
    reader: WorkspaceConnection,
    paths: string[],
    lines: string[],
    names: { peer: string; reader: string },
  ) => {
    const theirs = [...lines]
    theirs[0] = `line 0 by ${names.peer}\n`
    for (const path of paths) await peer.fs.writeFile(path, theirs.join(''))
    await peer.flush()
    for (const path of paths)
      await waitFor(
        async () => (await reader.fs.stat(path)).size === theirs.join('').length,
        `the peer's edit of ${path}`,
      )
    const ours = [...lines]
    ours[19] = `line 19 by ${names.reader}\n`
    const both = [...theirs]
    both[19] = ours[19]
    for (const path of paths) {
      const report = await reader.fs.write(path, ours.join(''))
      expect(report.merged).toBe(true)
      expect(report.conflicts).toEqual([])
      expect(await reader.fs.readFile(path)).toBe(both.join(''))
    }
  }

  beforeAll(async () => {
    t = await startTestServer()
    tokens = await t.workspace('bulk')
  })
  afterEach(async () => {
    for (const c of open.splice(0)) await c.close()
  })
  afterAll(async () => {
    await t.close()
  })

  it('writeTree of 100,000 files through a client works, and a fresh client reads them', async () => {
    // A workspace of its own: every later test's clients would load its 100,000 rows.
    const huge = await t.workspace('huge')
    const a = await connect(huge.write, undefined, 'huge')
    const n = 100_000
    // 100 folders of 1,000 files: more than one random-bytes call can number (16,384), in one call.
    await a.fs.writeTree(
      Array.from({ length: n }, (_, i) => ({ path: `/huge/d${i % 100}/f${i}.txt`, content: `${i}\n` })),
    )
    await a.flush()
    const b = await connect(huge.write, undefined, 'huge')
    expect(b.fs.getAllPaths().filter((p) => p.startsWith('/huge/') && p.endsWith('.txt')).length).toBe(n)
    for (const i of [0, 16_384, 65_536, n - 1])
      expect(await b.fs.readFile(`/huge/d${i % 100}/f${i}.txt`)).toBe(`${i}\n`)
  }, 180_000)

  it('writeTree stores new files in batches; a fresh client greps them with batched loads', async () => {
    const a = await connect(tokens.write)
    const entries = Array.from({ length: 300 }, (_, i) => ({
      path: `/tree/d${i % 3}/f${i}.txt`,
      content: `file ${i}${i % 50 === 0 ? ' needle' : ''}\n`,
    }))
    await a.fs.writeTree(entries)
    // Only the main doc is connected: no content doc was opened one by one.
    expect(a.openDocuments).toBe(0)
    await a.flush()

    const b = await connect(tokens.write)
    const out = await new Bash({ fs: b.fs, cwd: '/' }).exec('grep -rl needle /tree | sort')
    expect(out.stdout.split('\n').filter(Boolean)).toEqual(
      entries
        .filter((e) => e.content.includes('needle'))
        .map((e) => e.path)
        .sort(),
    )
    expect(b.openDocuments).toBe(0)
    expect(b.fs.index.plaintext.size).toBe(300)
    // A later edit on a reaches b through the row entry (its cached text is dropped).
    await a.fs.writeFile('/tree/d0/f0.txt', 'changed\n')
    await a.flush()
    await waitFor(async () => (await b.fs.readFile('/tree/d0/f0.txt')) === 'changed\n', "a's edit on b")
  })

  it('a whole-file write after a peer edited a file writeTree stored here merges, never replaces', async () => {
    const a = await connect(tokens.write)
    const b = await connect(tokens.write)
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}\n`)
    await a.fs.writeTree([{ path: '/seen/f.txt', content: lines.join('') }])
    await a.flush()
    expect(a.openDocuments).toBe(0)
    // b edits the first line; a, which never opened the doc, writes its own edit of the last line.
    await waitFor(() => b.fs.exists('/seen/f.txt'), 'the file on b')
    await peerEditThenReaderWrite(b, a, ['/seen/f.txt'], lines, { peer: 'b', reader: 'a' })
  })

  it('a whole-file write after a peer edited a file read here without opening its doc merges, never replaces', async () => {
    const a = await connect(tokens.write)
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}\n`)
    await a.fs.writeTree([
      { path: '/read/f.txt', content: lines.join('') },
      { path: '/read/g.txt', content: lines.join('') },
    ])
    await a.flush()
    const b = await connect(tokens.write)
    await waitFor(() => b.fs.exists('/read/g.txt'), 'the files on b')
    // b reads both through one batched fetch (no doc opened), then reads g again from its cache.
    expect(await b.fs.readFile('/read/f.txt')).toBe(lines.join(''))
    expect(await b.fs.readFile('/read/g.txt')).toBe(lines.join(''))
    expect(b.openDocuments).toBe(0)
    // a edits the first line of each; b, which saw the old text, writes its edit of the last line.
    await peerEditThenReaderWrite(a, b, ['/read/f.txt', '/read/g.txt'], lines, { peer: 'a', reader: 'b' })
  })

  it("binary files written here or fetched read back without opening their docs; a peer's overwrite is read, not the bytes kept", async () => {
    const bytesOf = (seed: number, length: number) =>
      Uint8Array.from({ length }, (_, i) => (i * 31 + seed * 17 + (i >> 8)) & 0xff)
    const a = await connect(tokens.write)
    const files = [0, 1, 2].map((i) => ({ path: `/blobs/f${i}.bin`, content: bytesOf(i, 3000 + i * 1000) }))
    await a.fs.writeTree(files)
    // Written in a batch, read back before the batch is stored (a `tar -x` of what `tar -c` just wrote).
    const archive = bytesOf(9, 200_000)
    await a.fs.batch(async () => {
      await a.fs.writeFile('/blobs/archive.tar', archive)
      expect(await a.fs.readFileBuffer('/blobs/archive.tar')).toEqual(archive)
    })
    for (const { path, content } of files) expect(await a.fs.readFileBuffer(path)).toEqual(content)
    expect(a.openDocuments).toBe(0)
    await a.flush()

    // Fetched with their folder in one load, not opened one by one.
    const b = await connect(tokens.write)
    await waitFor(() => b.fs.exists('/blobs/archive.tar'), 'the files on b')
    for (const { path, content } of files) expect(await b.fs.readFileBuffer(path)).toEqual(content)
    expect(await b.fs.readFileBuffer('/blobs/archive.tar')).toEqual(archive)
    expect(b.openDocuments).toBe(0)
    // What a reader gets is its own: changing it changes nothing kept.
    const got = await b.fs.readFileBuffer('/blobs/f0.bin')
    got.fill(0)
    expect(await b.fs.readFileBuffer('/blobs/f0.bin')).toEqual(files[0]!.content)

    // a overwrites one (same size) and writes text over another: b reads what a wrote.
    const next = bytesOf(5, 3000)
    await a.fs.writeFile('/blobs/f0.bin', next)
    await a.fs.writeFile('/blobs/f1.bin', 'text now\n')
    await a.flush()
    await waitFor(
      async () => (await b.fs.readFileBuffer('/blobs/f0.bin')).every((x, i) => x === next[i]),
      "a's overwrite on b",
    )
    await waitFor(async () => (await b.fs.readFile('/blobs/f1.bin')) === 'text now\n', "a's text on b")
  })

  it('bulk requests go packed once the server said it reads them, never to a server that did not; both read back alike', async () => {
    const files = (dir: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({ path: `/${dir}/f${i}.txt`, content: `${dir} ${i}\n` }))
    const connectWatched = async (olderServer: boolean) => {
      const watch = bulkWatchingWebSocket(olderServer)
      const c = await connectWorkspace({
        url: t.url,
        workspace: 'bulk',
        token: tokens.write,
        WebSocket: watch.WebSocket,
      })
      open.push(c)
      return { c, formats: watch.formats }
    }
    for (const olderServer of [false, true]) {
      const dir = olderServer ? 'older' : 'packed'
      const { c: writer, formats: written } = await connectWatched(olderServer)
      // Two stores: the first before any reply (v1), the second after one.
      await writer.fs.writeTree(files(`${dir}1`, 20))
      await writer.fs.writeTree([
        ...files(`${dir}2`, 20),
        { path: `/${dir}2/b.bin`, content: new Uint8Array([0, 1, 255]) },
      ])
      await writer.flush()
      const { c: reader, formats: read } = await connectWatched(olderServer)
      await waitFor(() => reader.fs.exists(`/${dir}2/b.bin`), 'the rows on the reader')
      // Two loads (one folder each), then the reader's own store.
      const out = await new Bash({ fs: reader.fs, cwd: '/' }).exec(
        `cat /${dir}1/*.txt /${dir}2/*.txt | wc -l`,
      )
      expect(out.stdout.trim()).toBe('40')
      expect(await reader.fs.readFileBuffer(`/${dir}2/b.bin`)).toEqual(new Uint8Array([0, 1, 255]))
      await reader.fs.writeTree(files(`${dir}3`, 5))
      await reader.flush()
      for (const formats of [written(), read()]) {
        expect(formats.length).toBeGreaterThanOrEqual(2)
        expect(formats[0]).toBe('v1')
        if (olderServer) expect(formats).not.toContain('packed')
        else expect(formats.slice(1)).toEqual(formats.slice(1).map(() => 'packed'))
      }
      expect(await writer.fs.readFile(`/${dir}3/f4.txt`)).toBe(`${dir}3 4\n`)
    }
  })

  it('a read served from text cached when the doc closed here is the base of the next write', async () => {
    const a = await connect(tokens.write)
    // maxIdle 0: b's docs close as soon as they are released; their text stays cached.
    const b = await connect(tokens.write, { maxIdle: 0 })
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}\n`)
    await b.fs.mkdir('/closed')
    await b.fs.writeFile('/closed/f.txt', lines.join(''))
    await b.flush()
    const id = b.fs.index.lookup('/closed/f.txt')!
    expect(b.openDocuments).toBe(0)
    expect(b.fs.index.plaintext.snapshotOf(id)).toBeDefined()
    expect(await b.fs.readFile('/closed/f.txt')).toBe(lines.join(''))
    await waitFor(() => a.fs.exists('/closed/f.txt'), 'the file on a')
    await peerEditThenReaderWrite(a, b, ['/closed/f.txt'], lines, { peer: 'a', reader: 'b' })
  })

  it('reads without the doc open, peer edits and whole-file writes of other lines or paragraphs never lose one (property)', async () => {
    const codecs = [markdownCodec]
    const a = await connect(tokens.write, { codecs })
    // maxIdle 0: the reader's docs close as soon as released, so its reads come from fetches and the cache.
    const b = await connect(tokens.write, { maxIdle: 0, codecs })
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 4, max: 12 }),
        // Per unit (a line of text, a paragraph of Markdown): 0 nobody edits it, 1 the peer does, 2 the reader does.
        fc.array(fc.constantFrom(0, 1, 2), { minLength: 12, maxLength: 12 }),
        // How the reader saw the file: in a batched fetch, or from text cached when its doc closed.
        fc.constantFrom('fetch', 'closed'),
        fc.constantFrom('txt', 'md'),
        async (n, who, how, ext) => {
          const path = `/prop/r${run++}/f.${ext}`
          const unit = (i: number, by: string) => (ext === 'md' ? `${by} ${i}.\n\n` : `${by} ${i}\n`)
          const text = (units: string[]) => (ext === 'md' ? `${units.join('').trimEnd()}\n` : units.join(''))
          const lines = Array.from({ length: n }, (_, i) => unit(i, 'line'))
          const writer = how === 'fetch' ? a : b
          await writer.fs.mkdir(path.slice(0, path.lastIndexOf('/')), { recursive: true })
          await writer.fs.writeFile(path, text(lines))
          await writer.flush()
          await waitFor(() => b.fs.exists(path), `${path} on the reader`)
          expect(await b.fs.readFile(path)).toBe(text(lines))
          expect(b.openDocuments).toBe(0)
          const theirs = lines.map((l, i) => (who[i] === 1 ? unit(i, 'peer') : l))
          await waitFor(() => a.fs.exists(path), `${path} on the peer`)
          await a.fs.writeFile(path, text(theirs))
          await a.flush()
          const size = (await a.fs.stat(path)).size
          await waitFor(async () => (await b.fs.stat(path)).size === size, `the peer's edit of ${path}`)
          const ours = lines.map((l, i) => (who[i] === 2 ? unit(i, 'reader') : l))
          const report = await b.fs.write(path, text(ours))
          const both = lines.map((l, i) =>
            who[i] === 1 ? unit(i, 'peer') : who[i] === 2 ? unit(i, 'reader') : l,
          )
          expect(await b.fs.readFile(path)).toBe(text(both))
          expect(report.conflicts).toEqual([])
          // The reader's copy closed at once (maxIdle 0) and lingers until the server acknowledged
          // the write: wait for that, as the next run counts the reader's open documents.
          await b.flush()
        },
      ),
      { numRuns: 40 },
    )
  })

  it('writeTree stores Markdown files in the batch too, as the codec normalises them, with one version each', async () => {
    const md = await connect(tokens.write, { codecs: [markdownCodec] })
    const entries = Array.from({ length: 40 }, (_, i) => ({
      path: `/notes/n${i}.md`,
      content: `# Note ${i}\n\n* item ${i}\n\n\n\ntext   with  spaces\n`,
    }))
    await md.fs.writeTree([...entries, { path: '/notes/plain.txt', content: 'plain\n' }])
    expect(md.openDocuments).toBe(0)
    const written = await md.fs.readFile('/notes/n7.md')
    // What a reader gets is the codec's output, as for a file written on its own.
    await md.fs.writeFile('/single.md', entries[7]!.content)
    expect(written).toBe(await md.fs.readFile('/single.md'))
    expect((await md.fs.stat('/notes/n7.md')).size).toBe(new TextEncoder().encode(written).byteLength)
    await md.flush()

    const fresh = await connect(tokens.write, { codecs: [markdownCodec] })
    expect(await fresh.fs.readFile('/notes/n7.md')).toBe(written)
    // One read fetched the folder's other files with it (a small folder: whole), Markdown
    // included, and opened no doc.
    expect(fresh.openDocuments).toBe(0)
    expect(fresh.fs.index.plaintext.size).toBe(entries.length + 1)
    expect(await fresh.fs.readFile('/notes/plain.txt')).toBe('plain\n')
    const history = await fresh.fs.history('/notes/n39.md')
    expect(history.map((v) => [v.reason, v.codec])).toEqual([['write', 'markdown']])
    // An edit after the load reaches the other client (the stored doc is a normal content doc).
    await fresh.fs.writeFile('/notes/n0.md', '# Changed\n')
    await fresh.flush()
    await waitFor(
      async () => (await md.fs.readFile('/notes/n0.md')) === '# Changed\n',
      'the edit on the other client',
    )
  })

  it("an agent's cp -r of a folder stores the copies in batches", async () => {
    const a = await connect(tokens.write)
    await a.fs.writeTree(
      Array.from({ length: 200 }, (_, i) => ({
        path: `/cpsrc/d${i % 4}/f${i}.txt`,
        content: `copy me ${i}\n`,
      })),
    )
    await a.flush()
    const agent = await connect(tokens.write)
    const out = await new Bash({ fs: agent.fs, cwd: '/' }).exec('cp -r /cpsrc /cpdst && echo done')
    expect(out.stdout + out.stderr).toBe('done\n')
    // Sources came in per folder, copies went in batches: no content doc was opened one by one.
    expect(agent.openDocuments).toBe(0)
    await agent.flush()
    const b = await connect(tokens.write)
    expect(await b.fs.readFile('/cpdst/d3/f199.txt')).toBe('copy me 199\n')
    expect((await b.fs.readdir('/cpdst/d0')).length).toBe(50)
  })

  it("a batch's overwrites of files whose docs are not open go as bulk updates, with a version each", async () => {
    const a = await connect(tokens.write)
    const paths = Array.from({ length: 300 }, (_, i) => `/upd/d${i % 3}/f${i}.txt`)
    await a.fs.writeTree(paths.map((path, i) => ({ path, content: `line ${i}\n` })))
    await a.flush()
    // A peer holds one doc open: the update reaches it live.
    const peer = await connect(tokens.write)
    await waitFor(() => peer.fs.exists(paths[7]!), 'the files on the peer')
    const held = await peer.fs.pool.acquire(peer.fs.index.lookup(paths[7]!)! as FileId)
    try {
      const writer = await connect(tokens.write)
      await waitFor(() => writer.fs.exists(paths[299]!), 'the files on the writer')
      let before!: Awaited<ReturnType<typeof writer.fs.saveVersion>>
      await writer.fs.batch(async () => {
        // As an agent's activity entry asks it: the version before the batch's write, without the doc.
        before = await writer.fs.saveVersion(paths[0]!)
        for (const [i, path] of paths.entries()) {
          expect(await writer.fs.readFile(path)).toBe(`line ${i}\n`)
          await writer.fs.writeFile(path, `LINE ${i}\n`)
        }
        // Written again before it was sent: one change on the first base.
        await writer.fs.writeFile(paths[1]!, 'again\n')
      })
      // No doc was opened one by one: states came per folder, changes went in bulk.
      expect(writer.openDocuments).toBe(0)
      await writer.flush()
      await waitFor(() => held.doc.getText('text').toString() === 'LINE 7\n', 'the update in the open doc')
      const fresh = await connect(tokens.write)
      for (const i of [0, 2, 150, 299]) expect(await fresh.fs.readFile(paths[i]!)).toBe(`LINE ${i}\n`)
      expect(await fresh.fs.readFile(paths[1]!)).toBe('again\n')
      const history = await fresh.fs.history(paths[0]!)
      expect(history.map((v) => v.reason)).toEqual(['write', 'write'])
      expect(history[0]!.id).toBe(before.id)
      expect(await fresh.fs.history(paths[1]!)).toHaveLength(3)
    } finally {
      held.release()
    }
  })

  it('a file overwritten twice in a batch before its update went goes as one change from the state the first write built on', async () => {
    const a = await connect(tokens.write)
    const paths = ['/twice/a.txt', '/twice/b.txt']
    await a.fs.writeTree(paths.map((path) => ({ path, content: 'first\n' })))
    await a.flush()
    const writer = await connect(tokens.write)
    await waitFor(() => writer.fs.exists(paths[1]!), 'the files on the writer')
    await writer.fs.batch(async () => {
      // Back to back, well within the batch's send delay: the second builds on the first's pending state.
      await writer.fs.writeFile(paths[0]!, 'second\n')
      await writer.fs.writeFile(paths[0]!, 'third\n')
      await writer.fs.writeFile(paths[1]!, 'second\n')
    })
    expect(writer.openDocuments).toBe(0)
    await writer.flush()
    const fresh = await connect(tokens.write)
    expect(await fresh.fs.readFile(paths[0]!)).toBe('third\n')
    expect(await fresh.fs.readFile(paths[1]!)).toBe('second\n')
    const history = await fresh.fs.history(paths[0]!)
    expect(history.map((v) => v.size)).toEqual([6, 7, 6])
  })

  /** Two writers: `a` made `path` with `content`, `b` has read it (so its state is known to b). */
  async function readByTwo(path: string, content: string) {
    const a = await connect(tokens.write)
    await a.fs.writeTree([{ path, content }])
    await a.flush()
    const b = await connect(tokens.write)
    await waitFor(() => b.fs.exists(path), 'the file on b')
    expect(await b.fs.readFile(path)).toBe(content)
    return { a, b }
  }

  it("an overwrite without the doc builds on every announced change: a peer's edit is merged, not lost", async () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}\n`)
    // b's state of the file is known (fetched with its read); a then edits the first line.
    const { a, b } = await readByTwo('/updmerge/f.txt', lines.join(''))
    const theirs = [`line 0 by a\n`, ...lines.slice(1)]
    await a.fs.writeFile('/updmerge/f.txt', theirs.join(''))
    await a.flush()
    await waitFor(
      async () => (await b.fs.stat('/updmerge/f.txt')).size === theirs.join('').length,
      "a's edit announced on b",
    )
    const ours = [...lines.slice(0, 19), 'line 19 by b\n']
    let report!: Awaited<ReturnType<typeof b.fs.write>>
    await b.fs.batch(async () => {
      report = await b.fs.write('/updmerge/f.txt', ours.join(''))
    })
    expect(b.openDocuments).toBe(0)
    expect(report.merged).toBe(true)
    const both = [`line 0 by a\n`, ...lines.slice(1, 19), 'line 19 by b\n'].join('')
    expect(await b.fs.readFile('/updmerge/f.txt')).toBe(both)
    await b.flush()
    await waitFor(async () => (await a.fs.readFile('/updmerge/f.txt')) === both, 'the merge on a')
  })

  it("a 'before' version read off a state, then a peer's edit, then the write: built on the newer state", async () => {
    const lines = Array.from({ length: 10 }, (_, i) => `line ${i}\n`)
    const { a, b } = await readByTwo('/updbefore/f.txt', lines.join(''))
    const theirs = ['line 0 by a\n', ...lines.slice(1)].join('')
    const ours = [...lines.slice(0, 9), 'line 9 by b\n'].join('')
    await b.fs.batch(async () => {
      // The agent's "before" version: read off the state b knows (its scratch doc is kept for a write).
      const before = await b.fs.saveVersion('/updbefore/f.txt')
      expect(before.size).toBe(lines.join('').length)
      await a.fs.writeFile('/updbefore/f.txt', theirs)
      await a.flush()
      await waitFor(
        async () => (await b.fs.stat('/updbefore/f.txt')).size === theirs.length,
        "a's edit announced on b",
      )
      // The write builds on the state with a's edit, not on the doc kept from the version read.
      await b.fs.writeFile('/updbefore/f.txt', ours)
    })
    expect(b.openDocuments).toBe(0)
    const both = ['line 0 by a\n', ...lines.slice(1, 9), 'line 9 by b\n'].join('')
    expect(await b.fs.readFile('/updbefore/f.txt')).toBe(both)
    await b.flush()
    await waitFor(async () => (await a.fs.readFile('/updbefore/f.txt')) === both, 'the merge on a')
  })

  it("a batch's first fetch in a folder takes the file alone to write it, a few of a big folder's files to read: one file's edit loads 1 state, its read 16, not 256", async () => {
    const a = await connect(tokens.write)
    const paths = Array.from({ length: 300 }, (_, i) => `/fetch1/f${i}.txt`)
    await a.fs.writeTree(paths.map((path, i) => ({ path, content: `line ${i}\n` })))
    await a.flush()
    // The writer asks for states through its own channel (counted); it holds no doc between writes.
    const asked: number[] = []
    const { writer } = await writerWithChannel({ maxIdle: 0 }, { load: (ids) => asked.push(ids.length) })
    await waitFor(() => writer.fs.exists(paths[299]!), 'the files on the writer')
    // As `sed -i` does it, each call its own batch (an agent's tool call).
    const edit = (path: string) =>
      writer.fs.batch(async () => {
        await writer.fs.writeFile(path, (await writer.fs.readFile(path)).replace('line', 'LINE'))
      })

    // An agent's edit of one file in a call of its own: read then written, that file's state and
    // 15 others (the write builds on the state the read fetched); written blind, its state alone.
    await edit(paths[7]!)
    await writer.fs.batch(() => writer.fs.writeFile(paths[8]!, 'changed\n'))
    expect(asked).toEqual([16, 1])
    // Written blind again in a later call (its text cached here): its state alone again.
    await writer.fs.batch(() => writer.fs.writeFile(paths[8]!, 'changed again\n'))
    expect(asked).toEqual([16, 1, 1])
    // In a small folder too (a read would fetch it whole); a second write there fetches the rest.
    const small = Array.from({ length: 100 }, (_, i) => `/fetch1small/f${i}.txt`)
    await a.fs.writeTree(small.map((path, i) => ({ path, content: `line ${i}\n` })))
    await a.flush()
    await waitFor(() => writer.fs.exists(small[99]!), 'the small folder on the writer')
    asked.length = 0
    await writer.fs.batch(async () => {
      await writer.fs.writeFile(small[5]!, 'five\n')
      await writer.fs.writeFile(small[6]!, 'six\n')
    })
    expect(asked).toEqual([1, 99])
    expect(writer.openDocuments).toBe(0)
    // Over the folder: the first file not fetched yet fetches the others (256 at most per request).
    asked.length = 0
    await writer.fs.batch(async () => {
      for (const path of paths) {
        const text = await writer.fs.readFile(path)
        await writer.fs.writeFile(path, text.replace('line', 'LINE'))
      }
    })
    // The first file's text was read with paths[7]'s: its write fetches its state alone, the next the rest.
    expect(asked[0]).toBe(1)
    expect(asked.length).toBeLessThanOrEqual(3)
    expect(asked.reduce((x, y) => x + y, 0)).toBeGreaterThanOrEqual(299)
    expect(writer.openDocuments).toBe(0)
    await writer.flush()
    const fresh = await connect(tokens.write)
    expect(await fresh.fs.readFile(paths[7]!)).toBe('LINE 7\n')
    expect(await fresh.fs.readFile(paths[8]!)).toBe('changed again\n')
    expect(await fresh.fs.readFile(paths[299]!)).toBe('LINE 299\n')

    // A read of one file fetches 16 too; the first read of a file not among them fetches the rest.
    const reader = await connect(tokens.write)
    await waitFor(() => reader.fs.exists(paths[299]!), 'the files on the reader')
    const cached = reader.fs.index.plaintext.size
    expect(await reader.fs.readFile(paths[1]!)).toBe('LINE 1\n')
    expect(reader.fs.index.plaintext.size).toBe(cached + 16)
    expect(await reader.fs.readFile(paths[250]!)).toBe('LINE 250\n')
    expect(reader.fs.index.plaintext.size).toBeGreaterThan(cached + 200)
    expect(reader.openDocuments).toBe(0)
  })

  it("a file edited call after call alone (an agent's `sed -i` of one file) is written through its doc from the second call on, two files in turn too: no fetch of a whole state per call, a peer's edit between calls kept", async () => {
    const a = await connect(tokens.write)
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i}\n`)
    const others = Array.from({ length: 5 }, (_, i) => `/again/g${i}.txt`)
    await a.fs.writeTree([
      { path: '/again/f.txt', content: lines.join('') },
      { path: '/again/h.txt', content: lines.join('') },
      ...others.map((path) => ({ path, content: 'other\n' })),
    ])
    await a.flush()
    // The writer's loads and bulk updates go through its own channel (counted); its pool keeps docs warm (the default).
    const loaded: number[] = []
    const updated: number[] = []
    const { writer } = await writerWithChannel(
      {},
      { load: (ids) => loaded.push(ids.length), update: (ids) => updated.push(ids.length) },
    )
    await waitFor(() => writer.fs.exists(others[4]!), 'the files on the writer')
    // As an agent's tool call: one batch, read then written; flushed as the call's end waits.
    const edit = async (path: string, from: RegExp, to: string) => {
      await writer.fs.batch(async () => {
        await writer.fs.writeFile(path, (await writer.fs.readFile(path)).replace(from, to))
      })
      await writer.flush()
    }

    // The first call goes in bulk, on the file's fetched state (its read fetched the small folder whole).
    await edit('/again/f.txt', /line 19/, 'line 19 v1')
    expect({ loaded, updated, open: writer.openDocuments }).toEqual({ loaded: [7], updated: [1], open: 0 })
    // The file was the last call's only overwrite: the second opens its doc, which stays loaded.
    await edit('/again/f.txt', /line 19 v1/, 'line 19 v2')
    expect({ loaded, updated, open: writer.openDocuments }).toEqual({ loaded: [7], updated: [1], open: 1 })
    // A peer's edit between calls reaches the open doc live; the next calls build on it.
    await a.fs.writeFile(
      '/again/f.txt',
      (await a.fs.readFile('/again/f.txt')).replace('line 0', 'line 0 by a'),
    )
    await a.flush()
    await waitFor(
      async () => (await writer.fs.readFile('/again/f.txt')).startsWith('line 0 by a'),
      "a's edit on the writer",
    )
    for (let v = 3; v <= 10; v++) await edit('/again/f.txt', new RegExp(`line 19 v${v - 1}`), `line 19 v${v}`)
    // Nothing fetched or sent in bulk for it since: each call sent its change through the doc.
    expect({ loaded, updated, open: writer.openDocuments }).toEqual({ loaded: [7], updated: [1], open: 1 })
    const expected = ['line 0 by a\n', ...lines.slice(1, 19), 'line 19 v10\n'].join('')
    await waitFor(async () => (await a.fs.readFile('/again/f.txt')) === expected, 'the last edit on a')
    // Two files in turn: the other's first call goes in bulk, its next ones through its doc too.
    for (let v = 11; v <= 14; v++) {
      await edit('/again/h.txt', /line 5.*/, `line 5 v${v}`)
      await edit('/again/f.txt', /line 5.*/, `line 5 v${v}`)
    }
    expect({ updated, open: writer.openDocuments }).toEqual({ updated: [1, 1], open: 2 })
    const expectedF = expected.replace('line 5\n', 'line 5 v14\n')

    // A call overwriting more than a few files keeps the next call's overwrites in bulk.
    await writer.fs.batch(async () => {
      for (const path of others) await writer.fs.writeFile(path, 'changed\n')
    })
    await writer.fs.batch(() => writer.fs.writeFile(others[0]!, 'changed again\n'))
    await writer.flush()
    expect(updated).toEqual([1, 1, 5, 1])
    expect(writer.openDocuments).toBe(2)

    const fresh = await connect(tokens.write)
    expect(await fresh.fs.readFile('/again/f.txt')).toBe(expectedF)
    expect(await fresh.fs.readFile('/again/h.txt')).toBe(lines.join('').replace('line 5\n', 'line 5 v14\n'))
    expect(await fresh.fs.readFile(others[0]!)).toBe('changed again\n')
    // A version per write: the first, the writer's fourteen and a's one.
    expect(await fresh.fs.history('/again/f.txt')).toHaveLength(16)
  })

  it("a batch's overwrites of a big folder in glob order (`sed -i dir/*`) fetch each file's state once", async () => {
    const asked: string[] = []
    const { writer } = await writerWithChannel({ maxIdle: 0 }, { load: (ids) => asked.push(...ids) })
    // Written here (their texts cached, so reads fetch nothing), in an earlier batch.
    const paths = Array.from({ length: 700 }, (_, i) => `/once/f${i + 1}.txt`)
    await writer.fs.writeTree(paths.map((path, i) => ({ path, content: `line ${i + 1}\n` })))
    await writer.flush()
    // The folder's order is f1, f2, …; a glob's is f1, f10, f100, f101, …: each write's fetch takes
    // siblings in the folder's order while the writes before it are still being stored.
    const glob = [...paths].sort()
    await writer.fs.batch(async () => {
      for (const path of glob) await writer.fs.writeFile(path, (await writer.fs.readFile(path)).toUpperCase())
    })
    await writer.flush()
    expect(asked.length).toBeGreaterThan(0)
    expect(asked.length).toBe(new Set(asked).size)
    const fresh = await connect(tokens.write)
    for (const k of [0, 99, 699]) expect(await fresh.fs.readFile(paths[k]!)).toBe(`LINE ${k + 1}\n`)
  })

  it("a batch's overwrites of big files fetch a few states at a time, each once: every state fetched is still held when its write comes", async () => {
    // 70 files of 400 KiB: 28 MB of states, more than known-states.ts holds (24 MiB), and a
    // fetch brings a quarter of that at most. Fetched 256 at a time, the first were dropped
    // before their writes and fetched again, write after write.
    const a = await connect(tokens.write)
    const text = Array.from(
      { length: 8000 },
      (_, i) => `line ${i} of a big file.............................\n`,
    ).join('')
    const paths = Array.from({ length: 70 }, (_, i) => `/big-files/f${i}.txt`)
    await a.fs.writeTree(paths.map((path) => ({ path, content: text })))
    await a.flush()
    const loads: string[][] = []
    const { writer, channel } = await writerWithChannel({}, { load: (ids) => loads.push(ids) })
    await waitFor(() => writer.fs.exists(paths[69]!), 'the files on the writer')
    await writer.fs.batch(async () => {
      for (const path of paths) await writer.fs.writeFile(path, `${await writer.fs.readFile(path)}one more\n`)
    })
    await writer.flush()
    const ids = loads.flat()
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBe(70)
    expect(Math.max(...loads.map((l) => l.length))).toBeLessThanOrEqual(16)
    for (const path of [paths[0]!, paths[69]!]) expect(await a.fs.readFile(path)).toBe(`${text}one more\n`)
    channel.destroy()
  })

  it("a batch's overwrites without the doc and a peer typing in the open doc keep every line's last edit (property)", async () => {
    // maxIdle 0: the writer holds no doc between its writes, so they go as bulk updates (counted).
    let updated = 0
    const { writer, channel } = await writerWithChannel(
      { maxIdle: 0 },
      {
        update: (ids) => {
          updated += ids.length
        },
      },
    )
    const peer = await connect(tokens.write)
    await writer.fs.mkdir('/race')
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 3, max: 10 }),
        // In order: who edits (the writer its even lines, the peer its odd ones), which line, the pause after.
        fc.array(fc.record({ writer: fc.boolean(), k: fc.nat(4), pause: fc.constantFrom(0, 0, 2, 10, 30) }), {
          minLength: 1,
          maxLength: 8,
        }),
        async (n, steps) => {
          const path = `/race/r${run++}.txt`
          const lines = Array.from({ length: n }, (_, i) => `line ${i}`)
          await writer.fs.writeFile(path, linesText(lines))
          await writer.flush()
          await waitFor(() => peer.fs.exists(path), `${path} on the peer`)
          const handle = await peer.fs.pool.acquire(peer.fs.index.lookup(path)! as FileId)
          try {
            const expected = [...lines]
            await writer.fs.batch(async () => {
              for (const [s, step] of steps.entries()) {
                const own = step.writer ? 0 : 1
                const line = Math.min(own + 2 * step.k, n - 1 - ((n - 1 - own) % 2))
                const edit = `${step.writer ? 'writer' : 'peer'} ${s}`
                expected[line] = edit
                if (step.writer) await writeLine(writer, path, n, line, edit)
                else replaceLine(handle.doc, line, edit)
                if (step.pause > 0) await new Promise((done) => setTimeout(done, step.pause))
              }
            })
            await Promise.all([writer.flush(), peer.flush()])
            await linesEverywhere([path], [expected], [handle.doc], [writer])
          } finally {
            handle.release()
          }
        },
      ),
      { numRuns: 30 },
    )
    channel.destroy()
    expect(updated).toBeGreaterThan(0)
  })

  it("calls that edit the same few files, in bulk then through their docs, and a peer typing between and during them keep every line's last edit (property)", async () => {
    // The writer's pool keeps docs warm (the default): a file a recent call overwrote alone or
    // with few others is written through its doc in later calls, else in bulk (counted).
    let updated = 0
    const { writer, channel } = await writerWithChannel(
      {},
      {
        update: (ids) => {
          updated += ids.length
        },
      },
    )
    const peer = await connect(tokens.write)
    await writer.fs.mkdir('/calls')
    const n = 8
    let run = 0
    // Most docs the writer held open after a call: both ways of writing must have been taken.
    let opened = 0
    await fc.assert(
      fc.asyncProperty(
        // In order: who edits (the writer its even lines in a call of its own, the peer its odd
        // ones in its open doc), which files (the writer may edit several in one call), which line, the pause after.
        fc.array(
          fc.record({
            writer: fc.boolean(),
            files: fc.uniqueArray(fc.nat(5), { minLength: 1, maxLength: 6 }),
            k: fc.nat(3),
            pause: fc.constantFrom(0, 0, 2, 10),
          }),
          { minLength: 1, maxLength: 10 },
        ),
        async (steps) => {
          const paths = Array.from({ length: 6 }, (_, i) => `/calls/r${run}-${i}.txt`)
          run++
          const expected = paths.map(() => Array.from({ length: n }, (_, i) => `line ${i}`))
          await writer.fs.writeTree(paths.map((path, i) => ({ path, content: linesText(expected[i]!) })))
          await writer.flush()
          await waitFor(() => peer.fs.exists(paths[5]!), 'the files on the peer')
          const handles = await Promise.all(
            paths.map((path) => peer.fs.pool.acquire(peer.fs.index.lookup(path)! as FileId)),
          )
          try {
            for (const [s, step] of steps.entries()) {
              const line = (step.writer ? 0 : 1) + 2 * step.k
              const edit = `${step.writer ? 'writer' : 'peer'} ${s}`
              for (const f of step.files) expected[f]![line] = edit
              if (step.writer) {
                // An agent's call: each file read and written whole, its own line changed.
                await writer.fs.batch(async () => {
                  for (const f of step.files) await writeLine(writer, paths[f]!, n, line, edit)
                })
                await writer.flush()
                opened = Math.max(opened, writer.openDocuments)
              } else for (const f of step.files) replaceLine(handles[f]!.doc, line, edit)
              if (step.pause > 0) await new Promise((done) => setTimeout(done, step.pause))
            }
            await Promise.all([writer.flush(), peer.flush()])
            await linesEverywhere(
              paths,
              expected,
              handles.map((h) => h.doc),
              [writer],
            )
          } finally {
            for (const handle of handles) handle.release()
          }
        },
      ),
      { numRuns: 25 },
    )
    channel.destroy()
    expect(updated).toBeGreaterThan(0)
    expect(opened).toBeGreaterThan(0)
  })

  it("calls over the same files in bulk take the states they hold while the server's stay at the same heads; another agent's bulk calls and a peer's edits between and during them keep every line's last edit (property)", async () => {
    // Five or more files a call: they stay in bulk (rewritten-files.ts writes fewer through their docs).
    let unchanged = 0
    let loadedWhole = 0
    const loaded = (same: string[], whole: string[]) => {
      unchanged += same.length
      loadedWhole += whole.length
    }
    const agents = [await writerWithChannel({}, { loaded }), await writerWithChannel({}, { loaded })]
    const peer = await connect(tokens.write)
    const [first] = agents
    await first!.writer.fs.mkdir('/heads')
    // Lines 3k (the first agent's), 3k + 1 (the second's), 3k + 2 (the peer's): the last edit of each is known.
    const n = 12
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        // In order: who edits (an agent in a call over 5–8 files, the peer in its open doc), which
        // line of its own, and whether the next step starts before this one ends (during it).
        fc.array(
          fc.record({
            who: fc.constantFrom(0, 1, 2),
            files: fc.uniqueArray(fc.nat(7), { minLength: 5, maxLength: 8 }),
            peerFile: fc.nat(7),
            k: fc.nat(3),
            overlap: fc.boolean(),
          }),
          { minLength: 2, maxLength: 10 },
        ),
        async (steps) => {
          const paths = Array.from({ length: 8 }, (_, i) => `/heads/r${run}-${i}.txt`)
          run++
          const expected = paths.map(() => Array.from({ length: n }, (_, i) => `line ${i}`))
          await first!.writer.fs.writeTree(
            paths.map((path, i) => ({ path, content: linesText(expected[i]!) })),
          )
          await first!.writer.flush()
          for (const c of [agents[1]!.writer, peer])
            await waitFor(() => c.fs.exists(paths[7]!), 'the files on the others')
          const handles = await Promise.all(
            paths.map((path) => peer.fs.pool.acquire(peer.fs.index.lookup(path)! as FileId)),
          )
          try {
            // Each party's steps one after another; with `overlap` the next step (another
            // party's) starts before this one ends.
            const running: Promise<void>[] = [Promise.resolve(), Promise.resolve(), Promise.resolve()]
            for (const [s, step] of steps.entries()) {
              const line = step.who + 3 * step.k
              const edit = `${['first', 'second', 'peer'][step.who]} ${s}`
              await running[step.who]
              let next: Promise<void>
              const agent = agents[step.who]?.writer
              if (agent) {
                for (const f of step.files) expected[f]![line] = edit
                // An agent's call: each file read and written whole, its own line changed.
                next = agent.fs
                  .batch(async () => {
                    for (const f of step.files) await writeLine(agent, paths[f]!, n, line, edit)
                  })
                  .then(() => agent.flush())
              } else {
                expected[step.peerFile]![line] = edit
                replaceLine(handles[step.peerFile]!.doc, line, edit)
                next = peer.flush()
              }
              running[step.who] = next
              if (!step.overlap) await next
            }
            await Promise.all(running)
            await Promise.all([...agents.map(({ writer }) => writer.flush()), peer.flush()])
            await linesEverywhere(
              paths,
              expected,
              handles.map((h) => h.doc),
              agents.map(({ writer }) => writer),
            )
          } finally {
            for (const handle of handles) handle.release()
          }
        },
      ),
      { numRuns: 25 },
    )
    for (const { channel } of agents) channel.destroy()
    // Both paths: states held at the server's head, and whole states after another's change.
    expect(unchanged).toBeGreaterThan(0)
    expect(loadedWhole).toBeGreaterThan(0)
  }, 180_000)

  /**
   * Two agents write the same files whole in bulk, each its own line, neither holding the other's
   * write: the files (in `folder`) and the text that has both edits.
   */
  const twoAgentsRace = async (folder: string) => {
    const [a, b] = [await connect(tokens.write), await connect(tokens.write)]
    const n = 6
    const paths = Array.from({ length: 5 }, (_, i) => `${folder}/f${i}.txt`)
    await a.fs.writeTree(
      paths.map((path) => ({ path, content: linesText(Array.from({ length: n }, (_, i) => `line ${i}`)) })),
    )
    await a.flush()
    await waitFor(() => b.fs.exists(paths[4]!), 'the files on the second agent')
    // Both read every file; the second writes each whole, its own line changed, and holds its
    // batch open (its rows held) until the first has written and sent its rows and they reached
    // the second: neither write holds the other's, and the second's rows lose while held (a
    // peer's row superseded them before they were stored).
    const texts = async (c: WorkspaceConnection) => Promise.all(paths.map((path) => c.fs.readFile(path)))
    const writeAll = async (c: WorkspaceConnection, read: string[], line: number, edit: string) => {
      for (const [f, path] of paths.entries()) {
        const now = read[f]!.split('\n').slice(0, n)
        now[line] = edit
        await c.fs.writeFile(path, linesText(now))
      }
    }
    const [readA, readB] = [await texts(a), await texts(b)]
    // Everything of the first agent's main doc is on the second's: its rows arrived.
    const rowsArrived = () => {
      const onB = Y.decodeStateVector(Y.encodeStateVector(b.fs.doc))
      for (const [client, clock] of Y.decodeStateVector(Y.encodeStateVector(a.fs.doc)))
        if ((onB.get(client) ?? 0) < clock) return false
      return true
    }
    await b.fs.batch(async () => {
      await writeAll(b, readB, 4, 'second agent')
      // Each file twice: its row is newer than the second's even when both clocks run ahead of
      // the wall clock (after a big writeTree they may, and equal stamps would decide by value).
      await a.fs.batch(async () => {
        await writeAll(a, readA, 1, 'first draft')
        await writeAll(a, readA, 1, 'first agent')
      })
      await a.flush()
      await waitFor(rowsArrived, "the first agent's rows on the second")
    })
    await b.flush()
    const expected = Array.from({ length: n }, (_, i) => `line ${i}`)
    expected[1] = 'first agent'
    expected[4] = 'second agent'
    return { a, b, paths, want: linesText(expected) }
  }

  it("two agents' concurrent whole-file writes in bulk, no doc open anywhere: both edits kept, and every party's row gives the merged file's size", async () => {
    const { a, b, paths, want } = await twoAgentsRace('/both')
    const fresh = await connect(tokens.read)
    for (const path of paths) {
      await readsWithSize(a, 'the first agent', path, want)
      await readsWithSize(b, 'the second agent', path, want)
      await readsWithSize(fresh, 'a fresh client', path, want)
    }
  })

  it('two agents raced in bulk and neither reads again, nor does anyone with write access: the rows still give the merged size', async () => {
    const { paths, want } = await twoAgentsRace('/unread')
    // Only a reader with a read token looks, at the rows alone: the agents (each knowing only
    // its own write) must have fetched the merged state and announced it themselves.
    await rowsGiveSize(await connect(tokens.read), paths, want)
  })

  it('a client that loads the workspace after two agents raced, then reads the files, announces the merged size', async () => {
    const { paths, want } = await twoAgentsRace('/late')
    // Neither agent reads again (each knows only its own write); the losing rows were stored
    // before this client loaded the main doc, so no entry observer saw them arrive.
    const reader = await connect(tokens.write)
    for (const path of paths) expect(await reader.fs.readFile(path)).toBe(want)
    await rowsGiveSize(await connect(tokens.read), paths, want)
  })

  it('a reader that opens the merged file and lets its doc go before its check announces the merged size all the same', async () => {
    // Connected before the race, the reader sees both agents' rows arrive; its check comes late.
    // Neither agent reads again (each knows only its own write).
    const reader = await connect(tokens.write, { announceDelayMs: 1_000 })
    const { paths, want } = await twoAgentsRace('/evicted')
    for (const path of paths) await waitFor(() => reader.fs.exists(path), `${path} on the reader`)
    await waitFor(async () => (await reader.fs.readFile(paths[4]!)) === want, 'the merged text on the reader')
    for (const path of paths) expect(await reader.fs.readFile(path)).toBe(want)
    reader.fs.pool.evictIdle(true)
    await rowsGiveSize(await connect(tokens.read), paths, want)
  })

  it("an agent's calls over the same files load each state once: later calls hold it at the server's head, a peer's edit brings that file's alone", async () => {
    const loads: { unchanged: string[]; whole: string[] }[] = []
    const { writer: agent, channel } = await writerWithChannel(
      {},
      { loaded: (unchanged, whole) => loads.push({ unchanged, whole }) },
    )
    const paths = Array.from({ length: 6 }, (_, i) => `/heads-calls/f${i}.txt`)
    await agent.fs.writeTree(paths.map((path) => ({ path, content: 'a\nb\n' })))
    await agent.flush()
    const ids = paths.map((path) => agent.fs.index.lookup(path)!)
    const call = async (from: string, to: string) => {
      await agent.fs.batch(async () => {
        for (const path of paths)
          await agent.fs.writeFile(path, (await agent.fs.readFile(path)).replace(from, to))
      })
      await agent.flush()
    }
    // Its first call fetches the states (the store of writeTree gave no heads to hold).
    await call('a', 'A')
    expect(loads.flatMap((l) => l.whole).sort()).toEqual([...ids].sort())
    expect(loads.flatMap((l) => l.unchanged)).toEqual([])
    // The next ones: every state is the one it holds, at the head its own update made.
    loads.length = 0
    await call('b', 'B')
    await call('A', 'a')
    expect(loads.flatMap((l) => l.whole)).toEqual([])
    expect(loads.flatMap((l) => l.unchanged).sort()).toEqual([...ids, ...ids].sort())
    // A peer's edit of one file between calls: that state comes whole (once: read, then written
    // on), with the edit merged.
    const peer = await connect(tokens.write)
    await peer.fs.writeFile(paths[2]!, 'a\nB\npeer\n')
    await peer.flush()
    loads.length = 0
    await waitFor(
      async () => (await agent.fs.readFile(paths[2]!)).includes('peer'),
      "the peer's edit on the agent",
    )
    await call('B', 'b')
    expect(loads.flatMap((l) => l.whole)).toEqual([ids[2]])
    // (The call's write of it then asks again, since the head its read got: unchanged.)
    expect(loads.flatMap((l) => l.unchanged).sort()).toEqual([...ids].sort())
    for (const [i, path] of paths.entries()) {
      const want = i === 2 ? 'a\nb\npeer\n' : 'a\nb\n'
      expect(await agent.fs.readFile(path)).toBe(want)
      expect(await peer.fs.readFile(path)).toBe(want)
      // Every call a version, read back from the file's history on the peer.
      expect((await peer.fs.history(path)).length).toBe(i === 2 ? 6 : 5)
    }
    channel.destroy()
  })

  it('heads: a load since the head a client holds sends nothing, an update on it names the next head, anything else the whole state', async () => {
    const a = await connect(tokens.write)
    await a.fs.writeTree([{ path: '/heads-wire/f.txt', content: 'one\n' }])
    await a.flush()
    const id = a.fs.index.lookup('/heads-wire/f.txt')!
    const channel = createBulkChannel(a.main, { timeoutMs: 10_000 })
    const [first] = await channel.loadSince([id], [undefined])
    const head = first!.head!
    expect(head).toEqual(expect.any(String))
    // Still at that head: no state; asked since another (or a made-up one): the whole state and its head.
    expect(await channel.loadSince([id], [head])).toEqual([{ state: undefined, head }])
    for (const since of ['no such head', `${head}0`, 'x'.repeat(10_000)]) {
      const [got] = await channel.loadSince([id], [since])
      expect(got?.head).toBe(head)
      expect(contentText(got?.state)).toBe('one\n')
    }
    // An update made on the head names the next; one made on an older head (a change came between) none.
    const doc = new Y.Doc()
    Y.applyUpdate(doc, first!.state!)
    const sv = Y.encodeStateVector(doc)
    doc.getText('text').insert(4, 'two\n')
    const [next] = await channel.update([{ id, update: Y.encodeStateAsUpdate(doc, sv), base: head }])
    expect(next).toEqual(expect.any(String))
    expect(next).not.toBe(head)
    const sv2 = Y.encodeStateVector(doc)
    doc.getText('text').insert(8, 'three\n')
    const [stale] = await channel.update([{ id, update: Y.encodeStateAsUpdate(doc, sv2), base: head }])
    expect(stale).toBeUndefined()
    // That update moved the head past `next`: a load since `next` brings the whole state.
    const [after] = await channel.loadSince([id], [next])
    expect(after?.head).not.toBe(next)
    expect(contentText(after?.state)).toBe('one\ntwo\nthree\n')
    // A peer's edit through its open doc moves it too.
    const b = await connect(tokens.write)
    await b.fs.appendFile('/heads-wire/f.txt', 'four\n')
    await b.flush()
    const [afterPeer] = await channel.loadSince([id], [after!.head])
    expect(afterPeer?.head).not.toBe(after!.head)
    expect(contentText(afterPeer?.state)).toBe('one\ntwo\nthree\nfour\n')
    // A new doc stored in bulk gets its head (nothing was stored before it).
    const fresh = new Y.Doc()
    fresh.getText('text').insert(0, 'new\n')
    expect(await channel.store([{ id: 'headsnewfile0001', update: Y.encodeStateAsUpdate(fresh) }])).toEqual([
      expect.any(String),
    ])
    // A read token gets heads too; without `since` a load carries none (older clients).
    const r = await connect(tokens.read)
    const reader = createBulkChannel(r.main, { timeoutMs: 10_000 })
    const current = afterPeer!.head
    expect(await reader.loadSince([id], [current])).toEqual([{ state: undefined, head: current }])
    expect(await reader.load([id])).toEqual([expect.any(Uint8Array)])
    reader.destroy()
    channel.destroy()
  })

  it('a bulk update that cannot be sent (offline) goes through each doc and reaches the server on reconnect', async () => {
    const c = await connect(tokens.write)
    const paths = Array.from({ length: 12 }, (_, i) => `/updoff/f${i}.txt`)
    await c.fs.writeTree(paths.map((path) => ({ path, content: 'old\n' })))
    await c.flush()
    await c.fs.batch(async () => {
      for (const path of paths) {
        expect(await c.fs.readFile(path)).toBe('old\n')
        await c.fs.writeFile(path, 'new\n')
      }
      // The connection drops before the batch's update is sent: it falls back to the docs.
      c.socket.disconnect()
      await waitFor(() => !c.status().online, 'c offline')
    })
    expect(await c.fs.readFile(paths[3]!)).toBe('new\n')
    expect(c.status().unacknowledged).toBeGreaterThan(0)
    c.socket.connect()
    await c.flush()
    const fresh = await connect(tokens.write)
    for (const path of paths) expect(await fresh.fs.readFile(path)).toBe('new\n')
    expect((await fresh.fs.history(paths[0]!)).map((v) => v.reason)).toEqual(['write', 'write'])
  })

  it('an update is refused whole for a read token, a folder id or an invalid update, storing nothing', async () => {
    const a = await connect(tokens.write)
    await a.fs.writeTree([{ path: '/updref/f.txt', content: 'kept' }])
    await a.fs.mkdir('/updref/dir')
    await a.flush()
    const id = a.fs.index.lookup('/updref/f.txt')!
    const stored = await t.store.load('bulk', `bulk/${id}`)
    const change = textInsertOn(stored!, 4, ' forged')
    const r = await connect(tokens.read)
    const readChannel = createBulkChannel(r.main, { timeoutMs: 10_000 })
    await expect(readChannel.update([{ id, update: change }])).rejects.toThrow(/read-only token/)
    readChannel.destroy()
    const channel = createBulkChannel(a.main, { timeoutMs: 10_000 })
    await expect(
      channel.update([
        { id, update: change },
        { id: a.fs.index.lookup('/updref/dir')!, update: change },
      ]),
    ).rejects.toThrow(/not a file/)
    await expect(
      channel.update([
        { id, update: change },
        { id: 'otherfile000000', update: new Uint8Array([255, 255, 255]) },
      ]),
    ).rejects.toThrow(/invalid update for file otherfile000000/)
    await expect(
      channel.update([
        { id, update: change },
        { id, update: change },
      ]),
    ).rejects.toThrow(/updated twice/)
    expect(await t.store.load('bulk', `bulk/${id}`)).toEqual(stored)
    // A valid one is stored (acknowledged = stored) and read by a fresh client.
    await channel.update([{ id, update: change }])
    channel.destroy()
    const fresh = await connect(tokens.write)
    expect(await fresh.fs.readFile('/updref/f.txt')).toBe('kept forged')
  })

  it('a refused bulk update falls back to each doc: nothing is lost, and bulk updates pause', async () => {
    let calls = 0
    const refusing = await connect(tokens.write, {
      updateContent: async () => {
        calls++
        throw new Error('refused')
      },
    })
    const paths = Array.from({ length: 20 }, (_, i) => `/updfall/f${i}.txt`)
    await refusing.fs.writeTree(paths.map((path) => ({ path, content: 'old\n' })))
    await refusing.flush()
    refusing.fs.pool.evictIdle(true)
    await refusing.fs.batch(async () => {
      for (const path of paths.slice(0, 10)) await refusing.fs.writeFile(path, 'new\n')
    })
    expect(calls).toBe(1)
    // Paused: these open their docs at once.
    await refusing.fs.batch(async () => {
      for (const path of paths.slice(10)) await refusing.fs.writeFile(path, 'new\n')
    })
    expect(calls).toBe(1)
    await refusing.flush()
    const fresh = await connect(tokens.write)
    for (const path of paths) expect(await fresh.fs.readFile(path)).toBe('new\n')
    expect((await fresh.fs.history(paths[0]!)).length).toBe(2)
  })

  it('loads keep request order and refuse ids that are not files of the workspace', async () => {
    const a = await connect(tokens.write)
    await a.fs.writeTree([
      { path: '/order/x.txt', content: 'x' },
      { path: '/order/y.txt', content: 'y' },
    ])
    await a.flush()
    const [x, y, folder] = ['/order/x.txt', '/order/y.txt', '/order'].map((p) => a.fs.index.lookup(p)!)
    const channel = createBulkChannel(a.main, { timeoutMs: 10_000, maxIds: 2 })
    const states = await channel.load([y!, 'nosuchfile0000', x!, folder!])
    channel.destroy()
    const text = (s: Uint8Array | undefined) => {
      if (!s) return undefined
      const d = new Y.Doc()
      Y.applyUpdate(d, s)
      return d.getText('text').toString()
    }
    expect(states.map(text)).toEqual(['y', undefined, 'x', undefined])
  })

  it('a read token may load but not store; its writeTree is EACCES before anything is sent', async () => {
    const w = await connect(tokens.write)
    await w.fs.writeTree([{ path: '/ro/r.txt', content: 'readable' }])
    await w.flush()
    const r = await connect(tokens.read)
    expect(r.readOnly).toBe(true)
    const channel = createBulkChannel(r.main, { timeoutMs: 10_000 })
    const [state] = await channel.load([r.fs.index.lookup('/ro/r.txt')!])
    expect(state).toBeInstanceOf(Uint8Array)
    const doc = new Y.Doc()
    doc.getText('text').insert(0, 'forged')
    await expect(
      channel.store([{ id: 'forgedfile00000', update: Y.encodeStateAsUpdate(doc) }]),
    ).rejects.toThrow(/read-only token/)
    channel.destroy()
    await expect(r.fs.writeTree([{ path: '/ro/new.txt', content: 'x' }])).rejects.toMatchObject({
      code: 'EACCES',
    })
  })

  it('a store with an invalid update or a folder id stores nothing', async () => {
    const a = await connect(tokens.write)
    await a.fs.mkdir('/notafile')
    await a.flush()
    const channel = createBulkChannel(a.main, { timeoutMs: 10_000 })
    const good = new Y.Doc()
    good.getText('text').insert(0, 'good')
    const update = Y.encodeStateAsUpdate(good)
    await expect(
      channel.store([
        { id: 'goodfile0000000', update },
        { id: 'badfile00000000', update: new Uint8Array([255, 255, 255]) },
      ]),
    ).rejects.toThrow(/invalid update for file badfile00000000: not a Yjs update/)
    // An update that builds on changes it does not carry is no new document either.
    const before = Y.encodeStateVector(good)
    good.getText('text').insert(4, '!')
    await expect(
      channel.store([
        { id: 'goodfile0000000', update },
        { id: 'tailfile0000000', update: Y.encodeStateAsUpdate(good, before) },
      ]),
    ).rejects.toThrow(/invalid update for file tailfile0000000: depends on changes it does not carry/)
    await expect(channel.store([{ id: a.fs.index.lookup('/notafile')!, update }])).rejects.toThrow(
      /not a file/,
    )
    channel.destroy()
    expect(await t.store.load('bulk', 'bulk/goodfile0000000')).toBeUndefined()
    expect(await t.store.load('bulk', 'bulk/tailfile0000000')).toBeUndefined()
  })

  it('a damaged update in a batch stores nothing of it, or everything loadable (property)', async () => {
    const a = await connect(tokens.write)
    const channel = createBulkChannel(a.main, { timeoutMs: 10_000 })
    const doc = new Y.Doc({ gc: false })
    doc.getText('text').insert(0, 'some text of a file\n'.repeat(5))
    doc.getArray('versions').push([{ id: 'v1', snapshot: Y.encodeSnapshot(Y.snapshot(doc)) }])
    const valid = Y.encodeStateAsUpdate(doc)
    let run = 0
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(valid.byteLength - 1), fc.integer({ min: 0, max: 255 })), {
          minLength: 1,
          maxLength: 4,
        }),
        // Mostly whole updates with bytes changed (some still valid), sometimes cut short.
        fc.option(fc.integer({ min: 1, max: valid.byteLength - 1 }), { freq: 3 }),
        async (edits, cut) => {
          const damaged = valid.slice(0, cut ?? valid.byteLength)
          for (const [at, byte] of edits) if (at < damaged.byteLength) damaged[at] = byte
          const ids = [`propgood${String(run).padStart(7, '0')}`, `propbad${String(run).padStart(8, '0')}`]
          run++
          let refused: unknown
          await channel
            .store([
              { id: ids[0]!, update: valid },
              { id: ids[1]!, update: damaged },
            ])
            .catch((error: unknown) => {
              refused = error
            })
          const stored = await Promise.all(ids.map((id) => t.store.load('bulk', `bulk/${id}`)))
          if (refused) {
            expect(String(refused)).toMatch(new RegExp(`invalid update for file ${ids[1]}`))
            expect(stored).toEqual([undefined, undefined])
          } else
            for (const state of stored) {
              expect(state).toBeDefined()
              Y.applyUpdate(new Y.Doc({ gc: false }), state!)
            }
        },
      ),
      { seed: 15, numRuns: 60 },
    )
    channel.destroy()
    // The server still answers this connection and others.
    await a.fs.writeTree([{ path: '/after-fuzz.txt', content: 'ok' }])
    const b = await connect(tokens.write)
    expect(await b.fs.readFile('/after-fuzz.txt')).toBe('ok')
  })
})
