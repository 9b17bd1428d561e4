/**
 * The `IFileSystem` contract: what every filesystem yfs hands to just-bash
 * must do, as plain cases any test runner can run. The same cases run on
 * just-bash's `InMemoryFs` (the reference), a local `YjsFileSystem`, two
 * replicas in sync, and a client of a real server — so a behaviour that
 * differs anywhere fails in the one place it differs.
 *
 * A case writes through `env.writer`, calls `env.settle()` where another
 * replica would wait for the network, and reads back through `env.reader`
 * (the same filesystem on a single one). Errors are compared by their POSIX
 * code in the message, as just-bash reports them to scripts.
 */
import type { IFileSystem } from 'just-bash'

export interface ContractEnv {
  writer: IFileSystem
  reader: IFileSystem
  /** Resolves once everything written through `writer` is visible through `reader`. */
  settle(): Promise<void>
}

export interface ContractCase {
  name: string
  run(env: ContractEnv): Promise<void>
}

function fail(message: string): never {
  throw new Error(`contract: ${message}`)
}

function equal(actual: unknown, expected: unknown, what: string): void {
  const a = JSON.stringify(actual)
  const e = JSON.stringify(expected)
  if (a !== e) fail(`${what}: expected ${e}, got ${a}`)
}

/** `fn` must reject with `code` in its message (and the path, where one is given). */
async function rejects(fn: () => Promise<unknown>, code: string, path?: string): Promise<void> {
  let error: unknown
  try {
    await fn()
  } catch (e) {
    error = e
  }
  if (error === undefined) fail(`expected ${code}${path ? ` for ${path}` : ''}, but it succeeded`)
  const message = error instanceof Error ? error.message : String(error)
  if (!message.includes(code)) fail(`expected ${code}, got: ${message}`)
  if (path && !message.includes(path)) fail(`the error does not name ${path}: ${message}`)
}

const bytes = (b: Uint8Array) => Array.from(b)

/** Every byte value, twice, in a scrambled order: a binary file no text decoding survives. */
const BINARY = Uint8Array.from({ length: 512 }, (_, i) => (i * 167 + 13) % 256)

export const fileSystemContract: readonly ContractCase[] = [
  {
    name: 'writeFile then readFile returns the text, unicode included, and stat has its byte size',
    async run({ writer, reader, settle }) {
      const text = 'héllo wörld ✓ 𝄞\nline 2\n'
      await writer.writeFile('/c-text.txt', text)
      await settle()
      equal(await reader.readFile('/c-text.txt'), text, 'text')
      const st = await reader.stat('/c-text.txt')
      equal([st.isFile, st.isDirectory, st.isSymbolicLink], [true, false, false], 'kind')
      equal(st.size, new TextEncoder().encode(text).length, 'size')
    },
  },
  {
    name: 'binary content round-trips byte for byte',
    async run({ writer, reader, settle }) {
      await writer.writeFile('/c-bytes.bin', BINARY)
      await settle()
      equal(bytes(await reader.readFileBuffer('/c-bytes.bin')), bytes(BINARY), 'bytes')
      equal((await reader.stat('/c-bytes.bin')).size, BINARY.length, 'size')
    },
  },
  {
    name: 'writeFile replaces, appendFile appends (and creates)',
    async run({ writer, reader, settle }) {
      await writer.writeFile('/c-append.txt', 'one\n')
      await writer.writeFile('/c-append.txt', 'two\n')
      await writer.appendFile('/c-append.txt', 'three\n')
      await writer.appendFile('/c-append-new.txt', 'first\n')
      await settle()
      equal(await reader.readFile('/c-append.txt'), 'two\nthree\n', 'appended')
      equal(await reader.readFile('/c-append-new.txt'), 'first\n', 'created by append')
    },
  },
  {
    name: 'reading or writing where nothing is: ENOENT with the path; a folder as a file: EISDIR',
    async run({ writer }) {
      await rejects(() => writer.readFile('/c-missing.txt'), 'ENOENT', '/c-missing.txt')
      await rejects(() => writer.stat('/c-missing.txt'), 'ENOENT', '/c-missing.txt')
      await writer.mkdir('/c-dir-read')
      await rejects(() => writer.readFile('/c-dir-read'), 'EISDIR', '/c-dir-read')
    },
  },
  {
    name: 'writes POSIX refuses change nothing: under a missing folder ENOENT, onto a folder EISDIR',
    async run({ writer }) {
      await rejects(() => writer.writeFile('/c-no-dir/f.txt', 'x'), 'ENOENT', '/c-no-dir/f.txt')
      equal(await writer.exists('/c-no-dir'), false, 'no folder made')
      await writer.mkdir('/c-dir-write')
      await writer.writeFile('/c-dir-write/in.txt', 'kept')
      await rejects(() => writer.writeFile('/c-dir-write', 'x'), 'EISDIR', '/c-dir-write')
      equal(await writer.readFile('/c-dir-write/in.txt'), 'kept', 'the folder kept')
    },
  },
  {
    name: 'mkdir: recursive makes the chain and tolerates what exists; otherwise EEXIST / ENOENT',
    async run({ writer, reader, settle }) {
      await writer.mkdir('/c-mk/a/b/c', { recursive: true })
      await writer.mkdir('/c-mk/a/b', { recursive: true })
      await rejects(() => writer.mkdir('/c-mk/a'), 'EEXIST', '/c-mk/a')
      await rejects(() => writer.mkdir('/c-mk/x/y'), 'ENOENT', '/c-mk/x/y')
      await settle()
      equal((await reader.stat('/c-mk/a/b/c')).isDirectory, true, 'made')
      equal(await reader.readdir('/c-mk/a/b'), ['c'], 'listing')
    },
  },
  {
    name: 'readdir lists names sorted, with file types; a file is ENOTDIR',
    async run({ writer, reader, settle }) {
      await writer.mkdir('/c-ls/sub', { recursive: true })
      for (const name of ['b.txt', 'a.txt', 'C.txt', '_x']) await writer.writeFile(`/c-ls/${name}`, name)
      await writer.symlink('a.txt', '/c-ls/link')
      await settle()
      equal(await reader.readdir('/c-ls'), ['C.txt', '_x', 'a.txt', 'b.txt', 'link', 'sub'], 'names')
      if (reader.readdirWithFileTypes) {
        const kinds = (await reader.readdirWithFileTypes('/c-ls')).map((d) => [
          d.name,
          d.isFile ? 'f' : d.isDirectory ? 'd' : d.isSymbolicLink ? 'l' : '?',
        ])
        equal(
          kinds,
          [
            ['C.txt', 'f'],
            ['_x', 'f'],
            ['a.txt', 'f'],
            ['b.txt', 'f'],
            ['link', 'l'],
            ['sub', 'd'],
          ],
          'types',
        )
      }
      await rejects(() => reader.readdir('/c-ls/a.txt'), 'ENOTDIR', '/c-ls/a.txt')
    },
  },
  {
    name: 'rm: a file, a tree with recursive; a non-empty folder without it refused; force ignores the missing',
    async run({ writer, reader, settle }) {
      await writer.mkdir('/c-rm/t/u', { recursive: true })
      await writer.writeFile('/c-rm/t/u/f.txt', 'f')
      await writer.writeFile('/c-rm/g.txt', 'g')
      await rejects(() => writer.rm('/c-rm/t'), 'E')
      await writer.rm('/c-rm/g.txt')
      await writer.rm('/c-rm/t', { recursive: true })
      await writer.rm('/c-rm/nothing', { force: true })
      await rejects(() => writer.rm('/c-rm/nothing'), 'ENOENT', '/c-rm/nothing')
      await settle()
      equal(await reader.readdir('/c-rm'), [], 'emptied')
      equal(await reader.exists('/c-rm/t/u/f.txt'), false, 'tree gone')
    },
  },
  {
    name: 'cp copies a file, a tree with recursive, and leaves the source',
    async run({ writer, reader, settle }) {
      await writer.mkdir('/c-cp/src/in', { recursive: true })
      await writer.writeFile('/c-cp/src/in/f.txt', 'deep')
      await writer.writeFile('/c-cp/src/top.bin', BINARY)
      await writer.cp('/c-cp/src/in/f.txt', '/c-cp/one.txt')
      await writer.cp('/c-cp/src', '/c-cp/dst', { recursive: true })
      await settle()
      equal(await reader.readFile('/c-cp/one.txt'), 'deep', 'file copy')
      equal(await reader.readFile('/c-cp/dst/in/f.txt'), 'deep', 'tree copy')
      equal(bytes(await reader.readFileBuffer('/c-cp/dst/top.bin')), bytes(BINARY), 'binary copy')
      equal(await reader.readFile('/c-cp/src/in/f.txt'), 'deep', 'source kept')
      await writer.writeFile('/c-cp/one.txt', 'changed')
      await settle()
      equal(await reader.readFile('/c-cp/src/in/f.txt'), 'deep', 'copies are independent')
    },
  },
  {
    name: 'mv renames, moves into another folder, replaces a file at the target, carries a tree',
    async run({ writer, reader, settle }) {
      await writer.mkdir('/c-mv/a/inner', { recursive: true })
      await writer.mkdir('/c-mv/b')
      await writer.writeFile('/c-mv/a/f.txt', 'f')
      await writer.writeFile('/c-mv/a/inner/g.txt', 'g')
      await writer.writeFile('/c-mv/b/old.txt', 'old')
      await writer.mv('/c-mv/a/f.txt', '/c-mv/a/renamed.txt')
      await writer.mv('/c-mv/a/renamed.txt', '/c-mv/b/old.txt')
      await writer.mv('/c-mv/a/inner', '/c-mv/b/inner')
      await rejects(() => writer.mv('/c-mv/a/none', '/c-mv/b/none'), 'ENOENT', '/c-mv/a/none')
      await settle()
      equal(await reader.readFile('/c-mv/b/old.txt'), 'f', 'replaced')
      equal(await reader.readFile('/c-mv/b/inner/g.txt'), 'g', 'tree moved')
      equal(await reader.readdir('/c-mv/a'), [], 'source emptied')
    },
  },
  {
    name: 'mv onto itself: an existing path stays as it is, a missing one is ENOENT',
    async run({ writer, reader, settle }) {
      await writer.mkdir('/c-mv-self/dir', { recursive: true })
      await writer.writeFile('/c-mv-self/f.txt', 'kept')
      await writer.mv('/c-mv-self/f.txt', '/c-mv-self/f.txt')
      await writer.mv('/c-mv-self/dir', '/c-mv-self/dir/')
      await rejects(() => writer.mv('/c-mv-self/none', '/c-mv-self/none'), 'ENOENT', '/c-mv-self/none')
      await settle()
      equal(await reader.readFile('/c-mv-self/f.txt'), 'kept', 'the file moved onto itself')
      equal(await reader.readdir('/c-mv-self'), ['dir', 'f.txt'], 'nothing added or lost')
    },
  },
  {
    name: 'symlinks: readlink gives the target, lstat the link, stat and readFile follow it, realpath resolves',
    async run({ writer, reader, settle }) {
      await writer.mkdir('/c-ln/real', { recursive: true })
      await writer.writeFile('/c-ln/real/f.txt', 'through the link')
      await writer.symlink('real', '/c-ln/dir-link')
      await writer.symlink('/c-ln/real/f.txt', '/c-ln/file-link')
      await settle()
      equal(await reader.readlink('/c-ln/dir-link'), 'real', 'relative target')
      equal(await reader.readlink('/c-ln/file-link'), '/c-ln/real/f.txt', 'absolute target')
      equal((await reader.lstat('/c-ln/file-link')).isSymbolicLink, true, 'lstat')
      equal((await reader.stat('/c-ln/file-link')).isFile, true, 'stat follows')
      equal(await reader.readFile('/c-ln/dir-link/f.txt'), 'through the link', 'read through a folder link')
      equal(await reader.realpath('/c-ln/dir-link/f.txt'), '/c-ln/real/f.txt', 'realpath')
      await rejects(() => reader.readlink('/c-ln/real/f.txt'), 'EINVAL', '/c-ln/real/f.txt')
    },
  },
  {
    name: 'chmod and utimes show in stat',
    async run({ writer, reader, settle }) {
      await writer.writeFile('/c-meta.sh', '#!/bin/sh\n')
      await writer.chmod('/c-meta.sh', 0o755)
      const when = new Date('2024-02-03T04:05:06.000Z')
      await writer.utimes('/c-meta.sh', when, when)
      await settle()
      const st = await reader.stat('/c-meta.sh')
      equal(st.mode & 0o777, 0o755, 'mode')
      equal(st.mtime.getTime(), when.getTime(), 'mtime')
      await rejects(() => writer.chmod('/c-meta-missing', 0o600), 'ENOENT', '/c-meta-missing')
    },
  },
  {
    name: 'exists, getAllPaths and resolvePath agree with what was written',
    async run({ writer, reader, settle }) {
      await writer.mkdir('/c-paths/d', { recursive: true })
      await writer.writeFile('/c-paths/d/f.txt', 'x')
      await settle()
      equal(await reader.exists('/c-paths/d/f.txt'), true, 'exists')
      equal(await reader.exists('/c-paths/d/nope'), false, 'not there')
      const all = reader.getAllPaths()
      for (const p of ['/c-paths', '/c-paths/d', '/c-paths/d/f.txt'])
        if (!all.includes(p)) fail(`getAllPaths lacks ${p}`)
      equal(reader.resolvePath('/c-paths/d', '../d/./f.txt'), '/c-paths/d/f.txt', 'resolvePath')
      equal(reader.resolvePath('/c-paths', '/abs'), '/abs', 'absolute')
    },
  },
]
