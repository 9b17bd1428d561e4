/**
 * The local layer, /tmp above all: it exists in every view, stays on its
 * instance, follows the workspace's POSIX rules and limits (as its own
 * quota), reports FsErrors, and files cross between it and the workspace
 * with cp and mv.
 */
import { Bash } from 'just-bash'
import { describe, expect, it } from 'vitest'
import * as Y from 'yjs'
import { FsError } from '../errors.js'
import { isLocalPath, SYSTEM_ROOTS, TMP_PATH } from './local-layer.js'
import { createFileSystem } from './yjs-file-system.js'

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (error) {
    if (error instanceof FsError) return `${error.code} ${error.message}`
    throw error
  }
  return 'ok'
}

describe('isLocalPath', () => {
  it('is true for the local folders and below, false for the workspace', () => {
    expect(SYSTEM_ROOTS).toContain('tmp')
    expect(TMP_PATH).toBe('/tmp')
    for (const p of [
      '/tmp',
      '/tmp/',
      '/tmp/a/b',
      '/dev/null',
      '/bin/ls',
      '/proc/self',
      '/usr/bin',
      '//tmp/x',
    ])
      expect(isLocalPath(p), p).toBe(true)
    for (const p of ['/', '/tmpfile', '/src/tmp', '/tmp2/x', '/a/../src', 'src/tmp'])
      expect(isLocalPath(p), p).toBe(false)
    expect(isLocalPath('/src/../tmp/x')).toBe(true)
  })
})

describe('/tmp', () => {
  it('exists in every view, also a fresh peer and a read-only one, and is listed at the root', async () => {
    const a = createFileSystem()
    const b = createFileSystem({ readOnly: true })
    for (const fs of [a, b]) {
      expect((await fs.stat('/tmp')).isDirectory).toBe(true)
      expect(await fs.readdir('/')).toContain('tmp')
      expect(await fs.readdir('/tmp')).toEqual([])
    }
    // The read-only workspace still has scratch space.
    await b.writeFile('/tmp/scratch.txt', 'x')
    expect(await b.readFile('/tmp/scratch.txt')).toBe('x')
    const r = await new Bash({ fs: a, cwd: '/' }).exec('ls -d /tmp && test -d /tmp && echo yes')
    expect(r.stdout).toBe('/tmp\nyes\n')
  })

  it('is local to its instance: nothing reaches the doc, a peer has its own', async () => {
    const a = createFileSystem()
    await a.mkdir('/tmp/work/deep', { recursive: true })
    await a.writeFile('/tmp/work/out.txt', 'scratch')
    await a.writeFile('/tmp/bin.dat', new Uint8Array([0, 1, 0xff]))
    await a.writeFile('/kept.txt', 'shared')
    const b = createFileSystem()
    Y.applyUpdate(b.doc, Y.encodeStateAsUpdate(a.doc))
    expect([...a.table.rows()].map((row) => row.name)).toEqual(['kept.txt'])
    expect(await b.readdir('/tmp')).toEqual([])
    expect(await a.readdir('/tmp')).toEqual(['bin.dat', 'work'])
    expect(await a.readFileBuffer('/tmp/bin.dat')).toEqual(new Uint8Array([0, 1, 0xff]))
    expect(a.index.allPaths()).toEqual(['/kept.txt'])
    expect(a.getAllPaths()).toContain('/tmp/work/out.txt')
  })

  it('follows POSIX like the workspace: no implicit parents, FsErrors with codes', async () => {
    const fs = createFileSystem()
    await fs.writeFile('/tmp/f', 'x')
    expect(await code(fs.writeFile('/tmp/nodir/f', 'x'))).toBe(
      "ENOENT ENOENT: no such file or directory, open '/tmp/nodir/f'",
    )
    expect(await code(fs.writeFile('/tmp/f/g', 'x'))).toMatch(/^(ENOTDIR|ENOENT) /)
    expect(await code(fs.appendFile('/tmp/nodir/f', 'x'))).toMatch(/^ENOENT /)
    expect(await code(fs.mkdir('/tmp/a/b'))).toMatch(/^ENOENT /)
    expect(await code(fs.mkdir('/tmp/f'))).toMatch(/^EEXIST /)
    expect(await code(fs.writeFile('/tmp', 'x'))).toMatch(/^EISDIR /)
    expect(await code(fs.readFile('/tmp/missing'))).toBe(
      "ENOENT ENOENT: no such file or directory, open '/tmp/missing'",
    )
    expect(await code(fs.writeFile('/tmp/bad\\name', 'x'))).toMatch(/^EINVAL /)
    expect(await code(fs.symlink('/tmp/f', '/tmp/nodir/l'))).toMatch(/^ENOENT /)
    await fs.mkdir('/tmp/d/e', { recursive: true })
    await fs.writeFile('/tmp/d/e/x', 'x')
    expect(await code(fs.rm('/tmp/d'))).toMatch(/^ENOTEMPTY /)
    expect(await code(fs.mv('/tmp/f', '/tmp/d'))).toMatch(/^EISDIR /)
    expect(await code(fs.mv('/tmp/d', '/tmp/f'))).toMatch(/^ENOTDIR /)
    expect(await code(fs.mv('/tmp/d', '/tmp/d/e/inside'))).toMatch(/^EINVAL /)
    expect(await code(fs.mv('/tmp', '/tmp2'))).toMatch(/^(EBUSY|EACCES) /)
    expect(await code(fs.mv('/tmp/f', '/dev/f'))).toMatch(/^EACCES /)
    expect(await fs.exists('/tmp/a')).toBe(false)
  })

  it('rm -rf /tmp empties it and keeps it', async () => {
    const fs = createFileSystem()
    const r = await new Bash({ fs, cwd: '/' }).exec(
      'mkdir -p /tmp/x/y && echo a > /tmp/x/y/f && rm -rf /tmp; ls -a /tmp; test -d /tmp && echo kept',
    )
    expect(r.stdout).toBe('.\n..\nkept\n')
    expect(await fs.readdir('/tmp')).toEqual([])
  })

  it('obeys the limits as its own quota, changes nothing when they are hit, and frees space on rm', async () => {
    const fs = createFileSystem({
      limits: { maxFileSize: 10, maxTotalSize: 15, maxNameLength: 8, maxPathDepth: 4, maxNodeCount: 5 },
    })
    expect(await code(fs.writeFile('/tmp/big', '12345678901'))).toMatch(/^EFBIG .*'\/tmp\/big'/)
    await fs.writeFile('/tmp/a', '1234567890')
    expect(await code(fs.writeFile('/tmp/b', '123456'))).toMatch(/^ENOSPC /)
    expect(await code(fs.appendFile('/tmp/a', '1'))).toMatch(/^EFBIG /)
    expect(await code(fs.writeFile('/tmp/a', new Uint8Array(11)))).toMatch(/^EFBIG /)
    expect(await fs.readFile('/tmp/a')).toBe('1234567890')
    expect(await fs.exists('/tmp/b')).toBe(false)
    // The workspace has its own quota: /tmp being full does not stop it.
    await fs.writeFile('/w.txt', '12345')
    expect(await code(fs.writeFile('/tmp/toolongname', 'x'))).toMatch(/^ENAMETOOLONG /)
    expect(await code(fs.mkdir('/tmp/d1/d2/d3/d4', { recursive: true }))).toMatch(/^EINVAL .*deeper/)
    expect(await fs.exists('/tmp/d1')).toBe(false)
    await fs.mkdir('/tmp/d1/d2', { recursive: true }) // 3 nodes
    await fs.symlink('/tmp/a', '/tmp/l') // 4
    await fs.writeFile('/tmp/e', '') // 5
    expect(await code(fs.writeFile('/tmp/f', ''))).toMatch(/^ENOSPC .*nodes/)
    expect(await code(fs.mkdir('/tmp/g'))).toMatch(/^ENOSPC /)
    expect(await code(fs.cp('/w.txt', '/tmp/w.txt'))).toMatch(/^ENOSPC /)
    await fs.rm('/tmp/d1', { recursive: true })
    await fs.rm('/tmp/a')
    await fs.writeFile('/tmp/b', '123456789')
    await fs.writeFile('/tmp/c', '123456')
    expect(await code(fs.writeFile('/tmp/c', '1234567'))).toMatch(/^ENOSPC /)
    // A write through a symlink counts against the file it lands in.
    await fs.symlink('/tmp/c', '/tmp/l2')
    await fs.writeFile('/tmp/l2', '12')
    expect(await fs.readFile('/tmp/c')).toBe('12')
    await fs.writeFile('/tmp/b', '1234567890')
    expect(await code(fs.writeFile('/tmp/l2', '123456'))).toMatch(/^ENOSPC /)
  })

  it('scripts run there: awk and split output, gzip pipes, tar round trips with binary files', async () => {
    const fs = createFileSystem()
    await fs.mkdir('/data')
    await fs.writeFile('/data/a.csv', 'x,1\ny,2\nx,3\n')
    const binary = new Uint8Array(300).map((_, i) => (i * 37) % 256)
    await fs.writeFile('/data/bin.dat', binary)
    const bash = new Bash({ fs, cwd: '/' })
    const run = async (script: string) => {
      const r = await bash.exec(script)
      expect(r.stderr, script).toBe('')
      expect(r.exitCode, script).toBe(0)
      return r.stdout
    }
    expect(await run(`awk -F, '{ print > "/tmp/out" }' /data/a.csv && cat /tmp/out`)).toBe('x,1\ny,2\nx,3\n')
    expect(await run(`awk -F, '{ print $2 > ("/tmp/" $1 ".txt") }' /data/a.csv && cat /tmp/x.txt`)).toBe(
      '1\n3\n',
    )
    expect(
      await run('split -l 1 /data/a.csv /tmp/chunk_ && ls /tmp/ | grep chunk && cat /tmp/chunk_ab'),
    ).toBe('chunk_aa\nchunk_ab\nchunk_ac\ny,2\n')
    expect(await run('cat /data/a.csv | gzip > /tmp/a.gz && gzip -dc /tmp/a.gz | wc -l')).toBe('3\n')
    expect(await run('rg -z y /tmp/a.gz')).toBe('y,2\n')
    expect(
      await run(
        'cd /data && tar czf /tmp/b.tgz a.csv bin.dat && mkdir /tmp/x && tar xzf /tmp/b.tgz -C /tmp/x && ls /tmp/x',
      ),
    ).toBe('a.csv\nbin.dat\n')
    expect(await fs.readFileBuffer('/tmp/x/bin.dat')).toEqual(binary)
    expect(
      await run('mkdir -p /tmp/s/t && for i in 1 2 3; do echo $i > /tmp/s/t/$i; done; cat /tmp/s/t/*'),
    ).toBe('1\n2\n3\n')
    // Results go from /tmp into the workspace (mv across layers) and scratch is cleaned up.
    expect(
      await run('mv /tmp/x.txt /data/x.txt && cp -r /tmp/x /data/unpacked && rm -rf /tmp/* && ls /data /tmp'),
    ).toBe('/data:\na.csv\nbin.dat\nunpacked\nx.txt\n\n/tmp:\n')
    expect(await fs.readFileBuffer('/data/unpacked/bin.dat')).toEqual(binary)
    expect(await fs.readFile('/data/x.txt')).toBe('1\n3\n')
    expect(fs.index.allPaths()).toEqual([
      '/data',
      '/data/a.csv',
      '/data/bin.dat',
      '/data/unpacked',
      '/data/unpacked/a.csv',
      '/data/unpacked/bin.dat',
      '/data/x.txt',
    ])
  })

  it('cp and mv cross between /tmp and the workspace; a replaced workspace file goes to the trash', async () => {
    const fs = createFileSystem()
    await fs.mkdir('/src/lib', { recursive: true })
    await fs.writeFile('/src/lib/a.ts', 'a')
    await fs.writeFile('/src/b.bin', new Uint8Array([0, 9]))
    await fs.symlink('lib/a.ts', '/src/link')
    await fs.cp('/src', '/tmp/src', { recursive: true })
    expect(await fs.readdir('/tmp/src')).toEqual(['b.bin', 'lib', 'link'])
    expect(await fs.readlink('/tmp/src/link')).toBe('lib/a.ts')
    expect(await fs.readFile('/tmp/src/link')).toBe('a')
    await fs.writeFile('/tmp/src/lib/a.ts', 'changed in tmp')
    await fs.mv('/tmp/src/lib/a.ts', '/src/lib/a.ts')
    expect(await fs.readFile('/src/lib/a.ts')).toBe('changed in tmp')
    expect(fs.trash.list().map((t) => t.originalPath)).toEqual(['/src/lib/a.ts'])
    expect(await fs.exists('/tmp/src/lib/a.ts')).toBe(false)
    await fs.mv('/src/lib', '/tmp/lib')
    expect(await fs.exists('/src/lib')).toBe(false)
    expect(await fs.readFile('/tmp/lib/a.ts')).toBe('changed in tmp')
    await fs.mv('/tmp/lib', '/src/lib2')
    expect(await fs.readFile('/src/lib2/a.ts')).toBe('changed in tmp')
    expect(await fs.readdir('/tmp')).toEqual(['src'])
    expect(await code(fs.mv('/tmp/missing', '/src/x'))).toMatch(/^ENOENT /)
    expect(await code(fs.mv('/tmp/src', '/src/b.bin'))).toMatch(/^ENOTDIR /)
    expect(await code(fs.mv('/tmp/src/b.bin', '/src/lib2'))).toMatch(/^EISDIR /)
    expect(await code(fs.mv('/tmp/src/b.bin', '/nodir/b.bin'))).toMatch(/^ENOENT /)
    expect(await fs.readFileBuffer('/tmp/src/b.bin')).toEqual(new Uint8Array([0, 9]))
    const ro = createFileSystem({ readOnly: true })
    Y.applyUpdate(ro.doc, Y.encodeStateAsUpdate(fs.doc))
    await ro.writeFile('/tmp/x', 'x')
    expect(await code(ro.mv('/tmp/x', '/x'))).toMatch(/^EACCES /)
    expect(await code(ro.mv('/src/b.bin', '/tmp/b.bin'))).toMatch(/^EACCES /)
    expect(await code(ro.cp('/tmp/x', '/x'))).toMatch(/^EACCES /)
    // Copying out of a read-only workspace into /tmp is fine (this peer has the row, not the content doc).
    await ro.cp('/src/b.bin', '/tmp/b.bin')
    expect((await ro.stat('/tmp/b.bin')).isFile).toBe(true)
  })
})
