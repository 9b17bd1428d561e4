import { gunzipSync, gzipSync } from 'node:zlib'
import { Bash } from 'just-bash'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { FsError } from '../errors.js'
import { createFileSystem, type YjsFileSystem } from './yjs-file-system.js'

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (error) {
    if (error instanceof FsError) return `${error.code} ${error.message}`
    throw error
  }
  return 'ok'
}

async function seeded(): Promise<YjsFileSystem> {
  const fs = createFileSystem()
  await fs.mkdir('/dir/sub', { recursive: true })
  await fs.writeFile('/dir/a.txt', 'alpha\n')
  await fs.writeFile('/file.txt', 'hello')
  return fs
}

describe('YjsFileSystem errors carry POSIX codes and Node-style messages', () => {
  it('readFile', async () => {
    const fs = await seeded()
    expect(await code(fs.readFile('/missing'))).toBe(
      "ENOENT ENOENT: no such file or directory, open '/missing'",
    )
    expect(await code(fs.readFile('/dir'))).toBe(
      "EISDIR EISDIR: illegal operation on a directory, read '/dir'",
    )
    expect(await code(fs.readFile('/file.txt/x'))).toBe(
      "ENOTDIR ENOTDIR: not a directory, open '/file.txt/x'",
    )
    expect(await code(fs.readFile('/a\0b'))).toMatch(/^ENOENT .*null byte/)
  })
  it('writeFile', async () => {
    const fs = await seeded()
    expect(await code(fs.writeFile('/nodir/x.txt', 'x'))).toBe(
      "ENOENT ENOENT: no such file or directory, write '/nodir/x.txt'",
    )
    expect(await code(fs.writeFile('/dir', 'x'))).toMatch(/^EISDIR /)
    expect(await code(fs.writeFile('/file.txt/x', 'x'))).toMatch(/^ENOTDIR /)
    expect(await code(fs.writeFile('/dir/bad\\name', 'x'))).toMatch(/^EINVAL .*cannot contain/)
  })
  it('appendFile', async () => {
    const fs = await seeded()
    expect(await code(fs.appendFile('/dir', 'x'))).toMatch(/^EISDIR /)
    expect(await code(fs.appendFile('/none/x', 'x'))).toMatch(/^ENOENT /)
    await fs.appendFile('/file.txt', ' world')
    await fs.appendFile('/new.txt', 'created')
    expect(await fs.readFile('/file.txt')).toBe('hello world')
    expect(await fs.readFile('/new.txt')).toBe('created')
    expect((await fs.stat('/file.txt')).size).toBe(11)
  })
  it('mkdir', async () => {
    const fs = await seeded()
    expect(await code(fs.mkdir('/dir'))).toBe("EEXIST EEXIST: directory already exists, mkdir '/dir'")
    expect(await code(fs.mkdir('/file.txt'))).toBe("EEXIST EEXIST: file already exists, mkdir '/file.txt'")
    expect(await code(fs.mkdir('/x/y'))).toBe("ENOENT ENOENT: no such file or directory, mkdir '/x/y'")
    expect(await code(fs.mkdir('/file.txt/y'))).toMatch(/^ENOTDIR /)
    expect(await code(fs.mkdir('/dir', { recursive: true }))).toBe('ok')
    expect(await code(fs.mkdir('/x/y/z', { recursive: true }))).toBe('ok')
    expect(await fs.readdir('/x/y')).toEqual(['z'])
  })
  it('readdir', async () => {
    const fs = await seeded()
    expect(await code(fs.readdir('/missing'))).toBe(
      "ENOENT ENOENT: no such file or directory, scandir '/missing'",
    )
    expect(await code(fs.readdir('/file.txt'))).toBe("ENOTDIR ENOTDIR: not a directory, scandir '/file.txt'")
    expect(await fs.readdir('/dir')).toEqual(['a.txt', 'sub'])
    expect(await fs.readdir('/')).toEqual(['bin', 'dev', 'dir', 'file.txt', 'proc', 'tmp', 'usr'])
    const typed = await fs.readdirWithFileTypes('/dir')
    expect(typed).toEqual([
      { name: 'a.txt', isFile: true, isDirectory: false, isSymbolicLink: false },
      { name: 'sub', isFile: false, isDirectory: true, isSymbolicLink: false },
    ])
  })
  it('rm', async () => {
    const fs = await seeded()
    expect(await code(fs.rm('/missing'))).toBe("ENOENT ENOENT: no such file or directory, rm '/missing'")
    expect(await code(fs.rm('/missing', { force: true }))).toBe('ok')
    expect(await code(fs.rm('/dir'))).toBe("ENOTEMPTY ENOTEMPTY: directory not empty, rm '/dir'")
    await fs.rm('/dir', { recursive: true })
    expect(await fs.exists('/dir/a.txt')).toBe(false)
    expect(fs.trash.list().map((t) => t.name)).toEqual(['dir'])
  })
  it('cp', async () => {
    const fs = await seeded()
    expect(await code(fs.cp('/missing', '/x'))).toMatch(/^ENOENT .*cp '\/missing'/)
    expect(await code(fs.cp('/dir', '/dir2'))).toBe("EISDIR EISDIR: is a directory, cp '/dir'")
    expect(await code(fs.cp('/dir', '/dir/sub/copy', { recursive: true }))).toMatch(/^EINVAL .*into itself/)
    await fs.cp('/dir', '/dir2', { recursive: true })
    expect(await fs.readFile('/dir2/a.txt')).toBe('alpha\n')
    await fs.writeFile('/dir2/a.txt', 'changed')
    expect(await fs.readFile('/dir/a.txt')).toBe('alpha\n')
  })
  it('cp -r and mv of a folder into itself through a symlink: EINVAL, nothing copied or moved', async () => {
    const fs = await seeded()
    await fs.writeFile('/dir/inner.txt', 'inner')
    await fs.symlink('/dir', '/link')
    const before = fs.getAllPaths().sort()
    expect(await code(fs.cp('/dir', '/link/copy', { recursive: true }))).toMatch(
      /^EINVAL .*into itself, '\/link\/copy'/,
    )
    expect(await code(fs.mv('/dir', '/link/moved'))).toMatch(/^EINVAL .*into itself, '\/link\/moved'/)
    expect(fs.getAllPaths().sort()).toEqual(before)
    expect(await fs.readFile('/dir/inner.txt')).toBe('inner')
    // Through the symlink to somewhere else it is an ordinary copy and move.
    await fs.mkdir('/elsewhere')
    await fs.symlink('/elsewhere', '/there')
    await fs.cp('/dir', '/there/copy', { recursive: true })
    await fs.mv('/dir', '/there/moved')
    expect(await fs.readFile('/elsewhere/copy/inner.txt')).toBe('inner')
    expect(await fs.readFile('/elsewhere/moved/inner.txt')).toBe('inner')
  })
  it('mv', async () => {
    const fs = await seeded()
    expect(await code(fs.mv('/missing', '/x'))).toMatch(/^ENOENT /)
    expect(await code(fs.mv('/dir', '/dir/sub/x'))).toMatch(/^EINVAL .*into itself/)
    expect(await code(fs.mv('/file.txt', '/dir'))).toBe(
      "EISDIR EISDIR: illegal operation on a directory, rename '/file.txt' -> '/dir'",
    )
    expect(await code(fs.mv('/dir', '/file.txt'))).toMatch(/^ENOTDIR .*rename '\/dir' -> '\/file.txt'/)
    await fs.mkdir('/full/inner', { recursive: true })
    expect(await code(fs.mv('/dir', '/full'))).toMatch(/^ENOTEMPTY /)
    expect(await code(fs.mv('/file.txt', '/nowhere/f'))).toMatch(/^ENOENT /)
    expect(await code(fs.mv('/nowhere', '/nowhere'))).toMatch(/^ENOENT .*rename '\/nowhere'/)
    expect(await code(fs.mv('/file.txt', '/dir/bad\\'))).toMatch(/^EINVAL /)
    const id = fs.index.lookup('/dir')
    await fs.mv('/dir', '/moved')
    expect(fs.index.lookup('/moved')).toBe(id)
    expect(await fs.readFile('/moved/a.txt')).toBe('alpha\n')
    // Replacing a file keeps the replaced one in the trash.
    await fs.writeFile('/other.txt', 'other')
    await fs.mv('/other.txt', '/file.txt')
    expect(await fs.readFile('/file.txt')).toBe('other')
    expect(fs.trash.list().map((t) => t.name)).toContain('file.txt')
  })
  it('stat and lstat read the row, not the content', async () => {
    const fs = await seeded()
    expect(await code(fs.stat('/missing'))).toBe("ENOENT ENOENT: no such file or directory, stat '/missing'")
    expect(await code(fs.lstat('/missing'))).toBe(
      "ENOENT ENOENT: no such file or directory, lstat '/missing'",
    )
    const st = await fs.stat('/file.txt')
    expect(st).toMatchObject({
      isFile: true,
      isDirectory: false,
      isSymbolicLink: false,
      size: 5,
      mode: 0o644,
    })
    expect((await fs.stat('/dir')).mode).toBe(0o755)
    // Stable identity: the same inode on every replica, different per file, kept across renames.
    const ino = (await fs.stat('/file.txt')).ino
    expect(typeof ino).toBe('number')
    expect(ino).not.toBe((await fs.stat('/dir/a.txt')).ino)
    await fs.mv('/file.txt', '/renamed.txt')
    expect((await fs.stat('/renamed.txt')).ino).toBe(ino)
    await fs.mv('/renamed.txt', '/file.txt')
    expect((await fs.stat('/')).isDirectory).toBe(true)
    expect(fs.pool.peek(fs.index.lookup('/file.txt')!)).toBeDefined() // still warm from the write
    fs.pool.evictIdle(true)
    await fs.stat('/file.txt')
    expect(fs.pool.peek(fs.index.lookup('/file.txt')!)).toBeUndefined()
  })
  it('chmod and utimes are stored on the row', async () => {
    const fs = await seeded()
    await fs.chmod('/file.txt', 0o600)
    await fs.utimes('/file.txt', new Date(0), new Date(1_000_000))
    const st = await fs.stat('/file.txt')
    expect(st.mode).toBe(0o600)
    expect(st.mtime.getTime()).toBe(1_000_000)
    expect(await code(fs.chmod('/missing', 0o600))).toMatch(/^ENOENT .*chmod/)
    expect(await code(fs.utimes('/missing', new Date(), new Date()))).toMatch(/^ENOENT /)
  })
  it('symlinks: create, read through, lstat, readlink, loops', async () => {
    const fs = await seeded()
    await fs.symlink('/dir', '/link')
    await fs.symlink('a.txt', '/dir/rel')
    expect(await fs.readFile('/link/a.txt')).toBe('alpha\n')
    expect(await fs.readFile('/dir/rel')).toBe('alpha\n')
    expect((await fs.lstat('/link')).isSymbolicLink).toBe(true)
    expect((await fs.stat('/link')).isDirectory).toBe(true)
    expect(await fs.readlink('/link')).toBe('/dir')
    expect(await fs.realpath('/link/a.txt')).toBe('/dir/a.txt')
    expect(await code(fs.readlink('/file.txt'))).toMatch(/^EINVAL /)
    expect(await code(fs.symlink('/x', '/link'))).toBe("EEXIST EEXIST: file already exists, symlink '/link'")
    await fs.symlink('/loop2', '/loop1')
    await fs.symlink('/loop1', '/loop2')
    expect(await code(fs.readFile('/loop1'))).toMatch(/^ELOOP /)
    await fs.writeFile('/dir/rel', 'through the link')
    expect(await fs.readFile('/dir/a.txt')).toBe('through the link')
    expect(await code(fs.link('/file.txt', '/hard'))).toMatch(/^ENOSYS /)
  })
  it('exists is false for bad input instead of throwing', async () => {
    const fs = await seeded()
    expect(await fs.exists('/file.txt')).toBe(true)
    expect(await fs.exists('/file.txt/x')).toBe(false)
    expect(await fs.exists('/a\0')).toBe(false)
  })
})

describe('content', () => {
  it('binary files round trip byte-exact through readFileBuffer, cp and mv', async () => {
    const fs = createFileSystem()
    const bytes = new Uint8Array(4096)
    for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 256
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0xff, 0xfe])
    await fs.writeFile('/random.bin', bytes)
    await fs.writeFile('/image.png', png)
    expect(await fs.readFileBuffer('/random.bin')).toEqual(bytes)
    await fs.cp('/random.bin', '/copy.bin')
    await fs.mv('/image.png', '/moved.png')
    expect(await fs.readFileBuffer('/copy.bin')).toEqual(bytes)
    expect(await fs.readFileBuffer('/moved.png')).toEqual(png)
    expect((await fs.stat('/copy.bin')).size).toBe(4096)
    expect(await fs.readFile('/moved.png', 'base64')).toBe(btoa(String.fromCharCode(...png)))
    // Text written over a binary file makes it text again.
    await fs.writeFile('/copy.bin', 'now text')
    expect(await fs.readFile('/copy.bin')).toBe('now text')
  })
  it('every Uint8Array subclass and view is stored byte-exact, also on a peer', async () => {
    const fs = createFileSystem()
    const gz = gzipSync('hello\n'.repeat(100))
    const backing = new Uint8Array([9, 9, 0, 1, 2, 0xff, 9, 9])
    class Bytes extends Uint8Array {}
    const reused = Buffer.from([0, 0xfe, 7])
    const cases: [string, Uint8Array, number[]][] = [
      ['/x.gz', gz, [...gz]],
      ['/pooled.bin', Buffer.from([0, 0xc3, 0x28]), [0, 0xc3, 0x28]], // Buffer.from uses a shared pool (offset)
      ['/sub.bin', backing.subarray(2, 6), [0, 1, 2, 0xff]],
      ['/view.bin', new Uint8Array(new DataView(backing.buffer, 1, 4).buffer, 1, 4), [9, 0, 1, 2]],
      ['/class.bin', Bytes.from([0xff, 0, 0xff]), [0xff, 0, 0xff]],
      ['/reused.bin', reused, [0, 0xfe, 7]],
      ['/text-buffer.txt', Buffer.from('plain text\n'), [...Buffer.from('plain text\n')]],
    ]
    for (const [path, bytes] of cases) await fs.writeFile(path, bytes)
    reused.fill(1) // the caller reusing its buffer must not change the file
    await fs.appendFile('/pooled.bin', Buffer.from([0xff]))
    cases[1]![2].push(0xff)
    // DataView and other typed arrays are what Node's fs.writeFile takes too.
    await fs.writeFile('/dataview.bin', new DataView(backing.buffer, 2, 3) as unknown as Uint8Array)
    cases.push(['/dataview.bin', new Uint8Array(), [0, 1, 2]])
    const peer = createFileSystem()
    Y.applyUpdate(peer.doc, Y.encodeStateAsUpdate(fs.doc))
    for (const [path, , expected] of cases) {
      expect([...(await fs.readFileBuffer(path))], path).toEqual(expected)
      expect((await fs.stat(path)).size, path).toBe(expected.length)
      const id = fs.index.lookup(path)!
      const [mine, theirs] = [await fs.pool.acquire(id), await peer.pool.acquire(id)]
      Y.applyUpdate(theirs.doc, Y.encodeStateAsUpdate(mine.doc))
      mine.release()
      theirs.release()
      expect([...(await peer.readFileBuffer(path))], path).toEqual(expected)
    }
    expect(gunzipSync(await peer.readFileBuffer('/x.gz')).toString()).toBe('hello\n'.repeat(100))
    expect(await fs.readFile('/text-buffer.txt')).toBe('plain text\n')
  })
  it('memory mode: a new file reads back from its seed without building its doc, then from the cache', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/a.txt', 'héllo')
    await fs.writeFile('/b.bin', new Uint8Array([0, 1, 2]))
    const [a, b] = [fs.index.lookup('/a.txt')!, fs.index.lookup('/b.bin')!]
    expect(fs.index.plaintext.has(a)).toBe(false) // held once, by the seed
    expect(await fs.readFile('/a.txt')).toBe('héllo')
    expect(fs.pool.isSeeded(a)).toBe(true)
    expect(fs.index.plaintext.get(a)).toBe('héllo')
    expect(await new Bash({ fs, cwd: '/' }).exec('grep -l é /a.txt').then((r) => r.stdout)).toBe('/a.txt\n')
    // Binary content is read from its doc, built on that first read.
    expect([...(await fs.readFileBuffer('/b.bin'))]).toEqual([0, 1, 2])
    expect(fs.pool.isSeeded(b)).toBe(false)
    // An overwrite builds the doc from the seed first (its first version), then writes.
    await fs.writeFile('/a.txt', 'bye')
    expect(fs.pool.isSeeded(a)).toBe(false)
    expect(await fs.readFile('/a.txt')).toBe('bye')
    expect((await fs.history('/a.txt')).length).toBe(2)
  })
  it('utf-8 text keeps its characters and byte size', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/u.txt', 'héllo 😀\n')
    expect(await fs.readFile('/u.txt')).toBe('héllo 😀\n')
    expect((await fs.stat('/u.txt')).size).toBe(new TextEncoder().encode('héllo 😀\n').length)
    expect(await fs.readFileBuffer('/u.txt')).toEqual(new TextEncoder().encode('héllo 😀\n'))
  })
  it('a whole-file write only changes what differs', async () => {
    const fs = createFileSystem()
    const lines = Array.from({ length: 200 }, (_, i) => `line ${i}\n`)
    await fs.writeFile('/f.txt', lines.join(''))
    const id = fs.index.lookup('/f.txt')!
    const handle = await fs.pool.acquire(id)
    const updates: Uint8Array[] = []
    handle.doc.on('update', (u: Uint8Array) => updates.push(u))
    lines[100] = 'changed\n'
    await fs.writeFile('/f.txt', lines.join(''))
    handle.release()
    expect(await fs.readFile('/f.txt')).toBe(lines.join(''))
    expect(updates.length).toBe(1)
    // The edit plus its history entry; rewriting the 1.6 KB file would be far larger.
    expect(updates[0]!.byteLength).toBeLessThan(300)
  })
  it('an append is one update (the text and its version), and its text is read back from the cache', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/log.txt', 'a\n')
    const id = fs.index.lookup('/log.txt')!
    const handle = await fs.pool.acquire(id)
    const updates: Uint8Array[] = []
    handle.doc.on('update', (u: Uint8Array) => updates.push(u))
    const versionsBefore = (await fs.history('/log.txt')).length
    await fs.appendFile('/log.txt', 'b\n')
    expect(updates.length).toBe(1)
    // A peer applying that one update has the text and the version.
    const peer = new Y.Doc()
    Y.applyUpdate(peer, Y.encodeStateAsUpdate(handle.doc, Y.encodeStateVector(peer)))
    expect(peer.getText('text').toString()).toBe('a\nb\n')
    expect((await fs.history('/log.txt')).length).toBe(versionsBefore + 1)
    expect(fs.index.plaintext.lookup(id, 4)).toBe('a\nb\n')
    handle.release()
    expect(await fs.readFile('/log.txt')).toBe('a\nb\n')
  })

  it('an editor edit straight on the doc updates the row size', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/e.txt', 'abc')
    const handle = await fs.pool.acquire(fs.index.lookup('/e.txt')!)
    handle.doc.getText('text').insert(3, 'def')
    await Promise.resolve()
    expect((await fs.stat('/e.txt')).size).toBe(6)
    expect(await fs.readFile('/e.txt')).toBe('abcdef')
    handle.release()
  })
})

describe('trash', () => {
  it('restores to the old place, to the root when the folder is gone, and empties for good', async () => {
    const fs = await seeded()
    await fs.rm('/dir/a.txt')
    const [entry] = fs.trash.list()
    expect(entry).toMatchObject({ name: 'a.txt', originalPath: '/dir/a.txt' })
    expect(fs.trash.restore(entry!.id)).toBe('/dir/a.txt')
    expect(await fs.readFile('/dir/a.txt')).toBe('alpha\n')
    await fs.rm('/dir/a.txt')
    await fs.rm('/dir', { recursive: true })
    const file = fs.trash.list().find((t) => t.name === 'a.txt')!
    expect(fs.trash.restore(file.id)).toBe('/a.txt')
    expect(fs.trash.empty()).toBe(2) // dir and dir/sub
    expect(fs.trash.list()).toEqual([])
    expect(await fs.readFile('/a.txt')).toBe('alpha\n')
  })
  it('restore picks a free name when the old one is taken', async () => {
    const fs = await seeded()
    await fs.rm('/file.txt')
    await fs.writeFile('/file.txt', 'new')
    expect(fs.trash.restore(fs.trash.list()[0]!.id)).toBe('/file (1).txt')
  })
})

describe('limits change nothing when violated', () => {
  it('EFBIG, ENOSPC, ENAMETOOLONG, EINVAL depth', async () => {
    const fs = createFileSystem({
      limits: { maxFileSize: 10, maxTotalSize: 15, maxNameLength: 8, maxPathDepth: 3, maxNodeCount: 6 },
    })
    expect(await code(fs.writeFile('/big', '12345678901'))).toMatch(/^EFBIG /)
    await fs.writeFile('/a', '1234567890')
    expect(await code(fs.writeFile('/b', '123456'))).toMatch(/^ENOSPC /)
    expect(await code(fs.writeFile('/a', '12345678901'))).toMatch(/^EFBIG /)
    expect(await fs.readFile('/a')).toBe('1234567890')
    expect(await code(fs.writeFile('/toolongname', 'x'))).toMatch(/^ENAMETOOLONG /)
    expect(await code(fs.mkdir('/d1/d2/d3/d4', { recursive: true }))).toMatch(/^EINVAL .*deeper/)
    expect(await fs.exists('/d1')).toBe(false)
    expect(await fs.exists('/b')).toBe(false)
    expect(await code(fs.mkdir('/m1/m2/m3', { recursive: true }))).toBe('ok') // 4 nodes now
    expect(await code(fs.mkdir('/n1/n2/n3', { recursive: true }))).toMatch(/^ENOSPC /)
    expect(await fs.exists('/n1')).toBe(false)
    await fs.mkdir('/x1')
    await fs.mkdir('/x2')
    expect(await code(fs.mkdir('/x3'))).toMatch(/^ENOSPC /)
    expect(fs.index.nodeCount).toBe(6)
  })
})

describe('system paths are local to each instance', () => {
  it('/dev/null, /bin stubs and /proc never reach the shared doc', async () => {
    const fs = createFileSystem()
    const bash = new Bash({ fs, cwd: '/' })
    const r = await bash.exec('echo x > /dev/null; which ls; ls /bin | head -2; echo shared > /s.txt')
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain('/bin/ls')
    const peer = createFileSystem()
    Y.applyUpdate(peer.doc, Y.encodeStateAsUpdate(fs.doc))
    expect(
      peer.getAllPaths().filter((p) => !p.match(/^\/(bin|usr|dev|proc|tmp)(\/|$)/) && p !== '/'),
    ).toEqual(['/s.txt'])
    expect([...peer.table.rows()].map((row) => row.name)).toEqual(['s.txt'])
  })
})

describe('two replicas', () => {
  it('show the same tree and contents after exchanging main and content docs', async () => {
    const a = createFileSystem()
    const b = createFileSystem()
    const bashA = new Bash({ fs: a, cwd: '/' })
    await bashA.exec(
      'mkdir -p /p/q && echo one > /p/q/1.txt && echo two > /p/2.txt && printf "\\x00\\x01" > /p/bin',
    )
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
    for (const row of a.table.rows()) {
      if (row.type !== 'file') continue
      const [ha, hb] = await Promise.all([a.pool.acquire(row.id), b.pool.acquire(row.id)])
      Y.applyUpdate(hb.doc, Y.encodeStateAsUpdate(ha.doc))
      ha.release()
      hb.release()
    }
    expect(b.index.allPaths()).toEqual(a.index.allPaths())
    expect(b.index.allPaths()).toEqual(['/p', '/p/2.txt', '/p/bin', '/p/q', '/p/q/1.txt'])
    for (const p of ['/p/q/1.txt', '/p/2.txt']) expect(await b.readFile(p)).toBe(await a.readFile(p))
    expect(await b.readFileBuffer('/p/bin')).toEqual(new Uint8Array([0, 1]))
    const r = await new Bash({ fs: b, cwd: '/' }).exec('grep -r o /p | sort')
    expect(r.stdout).toBe('/p/2.txt:two\n/p/q/1.txt:one\n')
  })
})

describe('events', () => {
  it('fire for local and remote changes with paths', async () => {
    const a = createFileSystem()
    const b = createFileSystem()
    const seen: string[] = []
    const off = b.watch((e) =>
      seen.push(`${e.origin} ${e.type} ${e.oldPath ? `${e.oldPath} -> ` : ''}${e.path}`),
    )
    const local: string[] = []
    a.watch((e) => local.push(`${e.origin} ${e.type} ${e.path}`))
    a.doc.on('update', (u: Uint8Array) => Y.applyUpdate(b.doc, u))
    await a.mkdir('/d')
    await a.writeFile('/d/f.txt', 'x')
    await a.writeFile('/d/f.txt', 'xy')
    await a.mv('/d', '/e')
    await a.rm('/e/f.txt')
    a.trash.restore(a.trash.list()[0]!.id)
    off()
    await a.writeFile('/after.txt', 'x')
    expect(seen).toEqual([
      'remote mkdir /d',
      'remote write /d/f.txt',
      'remote write /d/f.txt',
      'remote rename /d -> /e',
      'remote delete /e/f.txt',
      'remote restore /e/f.txt',
    ])
    expect(local[0]).toBe('local mkdir /d')
    expect(local.at(-1)).toBe('local write /after.txt')
  })
  it('fire for a rewrite of the same size within the same millisecond, whose mtime still moves on', async () => {
    const fs = createFileSystem({ clock: () => 1000 })
    await fs.writeFile('/f.txt', 'old')
    const events: string[] = []
    fs.watch((e) => events.push(`${e.type} ${e.path}`))
    await fs.writeFile('/f.txt', 'new')
    await fs.writeTree([{ path: '/f.txt', content: 'one' }])
    expect(events).toEqual(['write /f.txt', 'write /f.txt'])
    expect((await fs.stat('/f.txt')).mtime.getTime()).toBe(1002)
  })
})

describe('read-only mode', () => {
  it('refuses every change with EACCES and changes nothing, while reads and /dev/null work', async () => {
    const source = await seeded()
    const fs = createFileSystem({ readOnly: true })
    Y.applyUpdate(fs.doc, Y.encodeStateAsUpdate(source.doc))
    const before = Y.encodeStateVector(fs.doc)
    const attempts: Promise<unknown>[] = [
      fs.writeFile('/new.txt', 'x'),
      fs.appendFile('/file.txt', 'x'),
      fs.mkdir('/d2'),
      fs.rm('/file.txt'),
      fs.cp('/file.txt', '/copy.txt'),
      fs.mv('/file.txt', '/moved.txt'),
      fs.chmod('/file.txt', 0o600),
      fs.utimes('/file.txt', new Date(), new Date()),
      fs.symlink('/file.txt', '/link'),
      fs.transaction([{ type: 'mkdir', path: '/t' }]),
      fs.checkpoint('x'),
    ]
    for (const attempt of attempts) expect(await code(attempt)).toMatch(/^EACCES /)
    expect(() => fs.trash.empty()).toThrow(/EACCES/)
    expect(Y.encodeStateVector(fs.doc)).toEqual(before)
    expect(await fs.readdir('/dir')).toEqual(['a.txt', 'sub'])
    const bash = new Bash({ fs, cwd: '/' })
    const r = await bash.exec('echo gone > /dev/null; ls /dir')
    expect(r.stdout).toBe('a.txt\nsub\n')
    // just-bash does not turn EACCES from a redirection into stderr: the script fails with it.
    const failed = await bash.exec('echo nope > /x.txt').then(
      (res) => `${res.exitCode} ${res.stderr}`,
      (error: Error) => error.message,
    )
    expect(failed).toMatch(/EACCES|Permission denied/)
    expect(await fs.exists('/x.txt')).toBe(false)
  })
})
