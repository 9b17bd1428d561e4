/**
 * The bash worker's write-behind (fs-proxy.ts, run.ts): a write the worker knows succeeds goes
 * without waiting for the host, posted calls go together and the host runs them before any later
 * call; the worker stays within the workspace's limits and room; a posted write that fails anyway
 * stops the script and says so.
 */
import { MessageChannel } from 'node:worker_threads'
import { createFileSystem, FsError } from '@yfs/core'
import fc from 'fast-check'
import type { IFileSystem } from 'just-bash'
import { describe, expect, it } from 'vitest'
import { createJustBashBackend, type ExecResult } from '../exec-backend.js'
import { createFsProxy, createStatPrefetch, createWriteBehind } from './fs-proxy.js'
import type { FsMethod, WorkerToHost, WriteAllowance } from './protocol.js'
import { runInWorker } from './run.js'

const ALLOWANCE: WriteAllowance = {
  bytes: 1000,
  rows: 10,
  maxFileSize: 100,
  maxNameLength: 8,
  maxPathLength: 40,
  maxPathDepth: 3,
  localRoots: ['tmp'],
}

/** A write-behind whose run made the folder `/d` (empty) and listed nothing else. */
function madeFolder(allowance: WriteAllowance | undefined) {
  const known = createStatPrefetch(async () => [])
  known.changed('mkdir', '/d', '/d')
  known.listed('/d', [])
  return { known, writeBehind: createWriteBehind(allowance, known) }
}

type Workspace = ReturnType<typeof createFileSystem>

/** `fs` as a host whose `methods` are replaced (a slow disk, a peer acting meanwhile); its other members as they are. */
function withMethods(
  fs: Workspace,
  methods: Record<string, (...args: never[]) => Promise<unknown>>,
): IFileSystem {
  return new Proxy(fs, {
    get(target, key, receiver) {
      if (typeof key === 'string' && Object.hasOwn(methods, key)) return methods[key]
      const value = Reflect.get(target, key, receiver)
      return typeof value === 'function' ? value.bind(target) : value
    },
  }) as unknown as IFileSystem
}

/** Wait `ms`. */
const pause = (ms: number) => new Promise((done) => setTimeout(done, ms))

describe('write-behind: which writes go without waiting', () => {
  it('a new name in a folder the run made, then that file again; rows and bytes are counted', () => {
    const { known, writeBehind } = madeFolder({ ...ALLOWANCE, rows: 1, bytes: 10 })
    expect(writeBehind.take('writeFile', '/d/a', 'four')).toBe(4)
    known.changed('writeFile', '/d/a', '/d/a')
    known.wrote('/d/a', 4)
    // No row left for a second new file; the first one can still be overwritten and appended to.
    expect(writeBehind.take('writeFile', '/d/b', 'x')).toBeUndefined()
    expect(writeBehind.take('appendFile', '/d/a', 'ab')).toBe(6)
    // Bytes: 4 + 2 taken of 10; each write counts whole.
    expect(writeBehind.take('writeFile', '/d/a', 'five!')).toBeUndefined()
    expect(writeBehind.take('writeFile', '/d/a', 'four')).toBe(4)
  })

  it('never where the outcome is not known: unknown folders, unknown or folder entries, /tmp, a read-only run', () => {
    const { known, writeBehind } = madeFolder(ALLOWANCE)
    expect(writeBehind.take('writeFile', '/e/a', 'x')).toBeUndefined() // folder not made or seen
    known.listed('/d', ['sub', 'f'])
    expect(writeBehind.take('writeFile', '/d/f', 'x')).toBeUndefined() // listed by name only: kind unknown
    known.listed('/d', [
      { name: 'sub', isFile: false, isDirectory: true, isSymbolicLink: false },
      { name: 'l', isFile: true, isDirectory: false, isSymbolicLink: true },
      { name: 'f', isFile: true, isDirectory: false, isSymbolicLink: false },
    ])
    expect(writeBehind.take('writeFile', '/d/sub', 'x')).toBeUndefined()
    expect(writeBehind.take('writeFile', '/d/l', 'x')).toBeUndefined() // a symlink: written through
    expect(writeBehind.take('writeFile', '/d/f', 'x')).toBe(1) // a regular file of a listing
    known.changed('mkdir', '/tmp', '/tmp')
    known.listed('/tmp', [])
    expect(writeBehind.take('writeFile', '/tmp/a', 'x')).toBeUndefined() // its own quota
    // A file whose size the run does not know: an append could pass the file size limit.
    expect(writeBehind.take('appendFile', '/d/f', 'x')).toBeUndefined()
    expect(madeFolder(undefined).writeBehind.take('writeFile', '/d/a', 'x')).toBeUndefined()
  })

  it('never past a limit: name, path, depth, file size; a lone surrogate counts as more bytes, never fewer', () => {
    const { known, writeBehind } = madeFolder(ALLOWANCE)
    expect(writeBehind.take('writeFile', '/d/ninechars', 'x')).toBeUndefined()
    expect(writeBehind.take('writeFile', '/d/é1234567', 'x')).toBeUndefined() // 9 UTF-8 bytes
    expect(writeBehind.take('writeFile', '/d/a\\b', 'x')).toBeUndefined()
    expect(writeBehind.take('writeFile', '/d/a', 'x'.repeat(101))).toBeUndefined()
    expect(writeBehind.take('writeFile', '/d/a', 'é'.repeat(50))).toBe(100)
    expect(writeBehind.take('writeFile', '/d/b', '\ud800'.repeat(34))).toBeUndefined() // ≥ 102 bytes
    known.changed('mkdir', '/d/e/f', '/d/e/f')
    known.listed('/d/e/f', [])
    expect(writeBehind.take('writeFile', '/d/e/f/g', 'x')).toBeUndefined() // depth 4
    const short = madeFolder({ ...ALLOWANCE, maxPathLength: 10 }).writeBehind
    expect(short.take('writeFile', '/d/abcdefgh', 'x')).toBeUndefined() // 11 bytes
    expect(short.take('writeFile', '/d/abcdefg', 'x')).toBe(1)
  })

  it('an append onto a file whose size the host told (a stat, as `>> f` asks first) goes without waiting', async () => {
    const stat = (size: number, isSymbolicLink = false) => ({
      isFile: true,
      isDirectory: false,
      isSymbolicLink,
      size,
    })
    const { known, writeBehind } = madeFolder(ALLOWANCE)
    known.changed('appendFile', '/d/a', '/d/a') // made by the run; its size unknown
    expect(writeBehind.take('appendFile', '/d/a', 'xy')).toBeUndefined()
    expect(await known.answer('stat', '/d/a', async () => stat(5))).toEqual(stat(5))
    expect(writeBehind.take('appendFile', '/d/a', 'xy')).toBe(7)
    known.wrote('/d/a', 7) // as the proxy notes a posted write
    expect(writeBehind.take('appendFile', '/d/a', 'x'.repeat(94))).toBeUndefined() // 7 + 94 > 100
    // The run changed something while the host answered: the size it tells may predate that.
    let answer!: (value: unknown) => void
    let asked!: () => void
    const askedNow = new Promise<void>((done) => {
      asked = done
    })
    const late = known.answer(
      'stat',
      '/d/a',
      () =>
        new Promise((done) => {
          answer = done
          asked()
        }),
    )
    await askedNow
    known.changing('/d/a')
    answer(stat(1))
    await late
    expect(known.sizeOf('/d/a')).toBe(7)
    // A stat follows symlinks: of a path the run did not write, its size may be another file's.
    await known.answer('stat', '/d/b', async () => stat(1))
    expect(known.sizeOf('/d/b')).toBeUndefined()
    // An lstat is the entry's own; of a symlink it says nothing of a target.
    await known.answer('lstat', '/d/c', async () => stat(3))
    await known.answer('lstat', '/d/l', async () => stat(2, true))
    expect([known.sizeOf('/d/c'), known.sizeOf('/d/l')]).toEqual([3, undefined])

    // Stats fetched for a listing (from its second miss on) tell sizes too, a symlink's aside.
    const fetched = createStatPrefetch(async (paths) =>
      paths.map((p) => ({ ok: true as const, value: stat(p.length, p.endsWith('l')) })),
    )
    fetched.listed('/e', ['a', 'bb', 'l'], true)
    await fetched.answer('lstat', '/e/a', async () => stat(0))
    await fetched.answer('lstat', '/e/bb', async () => stat(0))
    expect([fetched.sizeOf('/e/bb'), fetched.sizeOf('/e/l')]).toEqual([5, undefined])
  })

  it('a change of mode or mtime: of an entry the run knows, in a real folder, with arguments the host takes', () => {
    const { known, writeBehind } = madeFolder(ALLOWANCE)
    const when = new Date(2020, 0, 1)
    known.changed('writeFile', '/d/a', '/d/a')
    expect(writeBehind.takeMetadata('chmod', '/d/a', ['/d/a', 0o600])).toBe(true)
    expect(writeBehind.takeMetadata('utimes', '/d/a', ['/d/a', when, when])).toBe(true)
    expect(writeBehind.takeMetadata('chmod', '/d', ['/d', 0o755])).toBe(true) // a folder the run made
    // Arguments the host would refuse or store wrongly: asked, so the shell sees its error.
    expect(writeBehind.takeMetadata('chmod', '/d/a', ['/d/a', 1.5])).toBe(false)
    expect(writeBehind.takeMetadata('chmod', '/d/a', ['/d/a', '644'])).toBe(false)
    expect(writeBehind.takeMetadata('utimes', '/d/a', ['/d/a', when, new Date(Number.NaN)])).toBe(false)
    expect(writeBehind.takeMetadata('utimes', '/d/a', ['/d/a', 0, 0])).toBe(false)
    // Entries the run does not know as real: absent, named only, a symlink, in a folder not known real.
    expect(writeBehind.takeMetadata('chmod', '/d/b', ['/d/b', 0o600])).toBe(false)
    const dirents = [
      { name: 'f', isFile: true, isDirectory: false, isSymbolicLink: false },
      { name: 'l', isFile: true, isDirectory: false, isSymbolicLink: true },
    ]
    known.listed('/e', dirents)
    expect(writeBehind.takeMetadata('chmod', '/e/f', ['/e/f', 0o600])).toBe(false) // /e may be a symlink
    // Listed at its real path (the host said so): a folder as real as one the run made.
    known.listed('/e', dirents, true)
    expect(writeBehind.takeMetadata('chmod', '/e/f', ['/e/f', 0o600])).toBe(true)
    expect(writeBehind.takeMetadata('chmod', '/e/l', ['/e/l', 0o600])).toBe(false)
    known.listed('/e', ['f'], true)
    expect(writeBehind.takeMetadata('chmod', '/e/f', ['/e/f', 0o600])).toBe(false) // kind unknown
    known.changed('mkdir', '/tmp', '/tmp')
    known.changed('writeFile', '/tmp/a', '/tmp/a')
    expect(writeBehind.takeMetadata('chmod', '/tmp/a', ['/tmp/a', 0o600])).toBe(false)
    expect(writeBehind.takeMetadata('chmod', '/', ['/', 0o755])).toBe(false)
    expect(madeFolder(undefined).writeBehind.takeMetadata('chmod', '/d', ['/d', 0o755])).toBe(false)
    writeBehind.stop()
    expect(writeBehind.takeMetadata('chmod', '/d/a', ['/d/a', 0o600])).toBe(false)
  })

  it('a change of mode or mtime keeps what is known of its folder; through a symlink it drops all', () => {
    const { known } = madeFolder(ALLOWANCE)
    known.listed('/d', [{ name: 'f', isFile: true, isDirectory: false, isSymbolicLink: false }], true)
    known.changing('/d/f')
    known.changed('utimes', '/d/f', '/d/f')
    expect(known.entryOf('/d/f')).toBe('file')
    expect(known.entryOf('/d/g')).toBe('absent')
    known.changing('/d/f')
    known.changed('chmod', '/d/f', '/elsewhere/f')
    expect(known.entryOf('/d/f')).toBeUndefined()
    expect(known.isRealFolder('/d')).toBe(false)
  })

  it('the host’s room after a call counts what was posted since that call was sent', () => {
    const { known, writeBehind } = madeFolder({ ...ALLOWANCE, rows: 3 })
    const sent = writeBehind.mark()
    expect(writeBehind.take('writeFile', '/d/a', 'x')).toBe(1)
    known.changed('writeFile', '/d/a', '/d/a')
    // The host ran the call (not the write after it) and has 2 rows left: 1 is left for the run.
    writeBehind.refresh({ bytes: 100, rows: 2 }, sent)
    expect(writeBehind.take('writeFile', '/d/b', 'x')).toBe(1)
    expect(writeBehind.take('writeFile', '/d/c', 'x')).toBeUndefined()
    writeBehind.stop()
    expect(writeBehind.take('writeFile', '/d/a', 'x')).toBeUndefined()
  })

  it('never too far ahead of the host: 4,096 calls or 16 MiB, until it answers a call sent after them', () => {
    const { known, writeBehind } = madeFolder({
      ...ALLOWANCE,
      bytes: 1 << 30,
      rows: 10_000,
      maxFileSize: 20 << 20,
    })
    known.changed('writeFile', '/d/a', '/d/a')
    for (let i = 0; i < 4096; i++) expect(writeBehind.take('writeFile', '/d/a', 'x')).toBe(1)
    expect(writeBehind.take('writeFile', '/d/a', 'x')).toBeUndefined()
    // The host answered a call sent after all of them: it ran them.
    writeBehind.answered(writeBehind.mark())
    const big = 'x'.repeat(10 << 20)
    expect(writeBehind.take('writeFile', '/d/a', big)).toBe(10 << 20)
    expect(writeBehind.take('writeFile', '/d/a', big)).toBeUndefined()
    const before = writeBehind.mark()
    writeBehind.answered(before)
    expect(writeBehind.take('writeFile', '/d/a', big)).toBe(10 << 20)
    // An answer to a call sent before that write says nothing of it.
    writeBehind.answered(before)
    expect(writeBehind.take('writeFile', '/d/a', big)).toBeUndefined()
  })
})

describe('write-behind: the messages', () => {
  it('posted writes go together, before the next call the worker waits for', async () => {
    const channel = new MessageChannel()
    const sync = new MessageChannel()
    const methods: FsMethod[] = ['mkdir', 'writeFile', 'appendFile', 'readFile', 'readdir', 'exists']
    const proxy = createFsProxy(
      channel.port2,
      sync.port2,
      new Int32Array(new SharedArrayBuffer(4)),
      methods,
      ALLOWANCE,
    )
    channel.port2.on('message', (m) => proxy.settle(m))
    const received: WorkerToHost[] = []
    channel.port1.on('message', (m: WorkerToHost) => {
      received.push(m)
      if (m.type !== 'fs') return
      const made = m.method === 'mkdir' ? { real: '/d', made: true } : {}
      channel.port1.postMessage({
        type: 'fs-result',
        id: m.id,
        ok: true,
        value: m.method === 'readFile' ? 'x' : undefined,
        ...made,
      })
    })
    try {
      await proxy.fs.mkdir('/d')
      for (let i = 0; i < 3; i++) await proxy.fs.writeFile(`/d/f${i}`, `v${i}`)
      await proxy.fs.appendFile('/d/f0', '!')
      expect(await proxy.fs.readFile('/d/f0')).toBe('x')
      expect(
        received.map((m) =>
          m.type === 'fs-posted'
            ? m.calls.map((c) => `${c.method} ${c.args[0]}`)
            : m.type === 'fs'
              ? `${m.method} ${m.args[0]}`
              : m.type,
        ),
      ).toEqual([
        'mkdir /d',
        ['writeFile /d/f0', 'writeFile /d/f1', 'writeFile /d/f2', 'appendFile /d/f0'],
        'readFile /d/f0',
      ])
    } finally {
      channel.port1.close()
      sync.port1.close()
    }
  })

  /** `fs` whose `writeFile` of `failing` throws ENOSPC (as if a peer filled the workspace meanwhile). */
  function failingAt(failing: string): { fs: IFileSystem; writes: string[] } {
    const fs = createFileSystem()
    const writes: string[] = []
    const wrapped = withMethods(fs, {
      writeFile: async (path: string, content: string) => {
        writes.push(path)
        if (path === failing && content !== '') throw new FsError('ENOSPC', 'write', path)
        return fs.writeFile(path, content)
      },
    })
    return { fs: wrapped, writes }
  }

  const job = (fs: IFileSystem, script: string) => ({
    fs,
    script,
    cwd: '/',
    env: {},
    limits: { maxCommandCount: 10_000, maxLoopIterations: 10_000, maxCallDepth: 100 },
    timeout: 30_000,
    writeBehind: {
      limits: {
        maxFileSize: 1 << 20,
        maxNameLength: 255,
        maxPathLength: 4096,
        maxPathDepth: 64,
        localRoots: ['tmp'],
      },
      room: () => ({ bytes: 1 << 30, rows: 1 << 20 }),
    },
  })

  it('calls after posted writes wait for them, on a filesystem whose writes take a while', async () => {
    const fs = createFileSystem()
    const slow = withMethods(fs, {
      writeFile: async (...args: Parameters<Workspace['writeFile']>) => {
        await pause(2)
        return fs.writeFile(...args)
      },
      appendFile: async (...args: Parameters<Workspace['appendFile']>) => {
        await pause(2)
        return fs.appendFile(...args)
      },
    })
    const script =
      'mkdir /d; for i in 1 2 3 4; do echo "v$i" > /d/f$i; done; cat /d/f4; ls /d | wc -l; ls \'/d/f*\'; echo /d/*; echo x >> /d/f1; cat /d/f1'
    const outcome = await runInWorker(job(slow, script))
    expect(outcome.stdout).toMatch(/^v4\n4\n(.|\n)*\/d\/f1 \/d\/f2 \/d\/f3 \/d\/f4\nv1\nx\n$/)
    const inProcess = await createJustBashBackend(createFileSystem(), {}, { inProcess: true }).run(script, [])
    expect(outcome).toMatchObject({ stdout: inProcess.stdout, stderr: '', exitCode: 0 })
  })

  it('a loop past the ahead limit (4,200 writes): everything lands, in order', async () => {
    const fs = createFileSystem()
    const outcome = await runInWorker(
      job(
        fs as unknown as IFileSystem,
        'mkdir /d; for i in $(seq 1 4200); do echo "$i" > /d/f; done; cat /d/f; ls /d',
      ),
    )
    expect(outcome).toMatchObject({ stdout: '4200\nf\n', stderr: '', exitCode: 0 })
    expect(await fs.readFile('/d/f')).toBe('4200\n')
  })

  it('a loop of posted writes hears its time limit within 128 writes, and its result waits for them', async () => {
    const fs = createFileSystem()
    let writes = 0
    // A host that takes a while per write: the worker runs far ahead of it.
    const slow = withMethods(fs, {
      writeFile: async (...args: Parameters<Workspace['writeFile']>) => {
        writes++
        await pause(1)
        return fs.writeFile(...args)
      },
    })
    // A worker started and warm: the time limit is the loop's, not the thread's start.
    await runInWorker(job(fs as unknown as IFileSystem, 'true'))
    const outcome = await runInWorker({
      ...job(slow, 'mkdir /d; i=0; while [ $i -lt 9000 ]; do i=$((i+1)); echo "$i" > /d/f$i; done; echo end'),
      timeout: 300,
    })
    // just-bash stopped at its signal (it says so), and its thread was not ended while the host
    // still ran the writes it had gone on from (that would say nothing and lose the output).
    expect(outcome).toMatchObject({ timedOut: true, stdout: '', stderr: 'bash: execution aborted\n' })
    // It heard the stop long before the 4,096 writes it may be ahead (each loop turn writes twice).
    expect(writes).toBeGreaterThan(0)
    expect(writes).toBeLessThan(4096)
  })

  it('a posted write that fails stops the script, says which write, and exits 1; what came before is there', async () => {
    const { fs, writes } = failingAt('/d/f3')
    const outcome = await runInWorker(
      job(fs, 'mkdir /d; for i in 1 2 3 4 5; do echo "x$i" > /d/f$i; done; cat /d/f1; echo after'),
    )
    expect(outcome.exitCode).toBe(1)
    expect(outcome.stderr).toContain("ENOSPC: no space left on device, write '/d/f3'")
    expect(outcome.stderr).toContain('bash: the script was stopped: a write it had gone on from failed')
    expect(outcome.stdout).not.toContain('after')
    expect(await fs.readFile('/d/f2')).toBe('x2\n')
    // The host ran every write the script had gone on from, in order.
    expect(writes.slice(0, 6)).toEqual(['/d/f1', '/d/f1', '/d/f2', '/d/f2', '/d/f3', '/d/f3'])
  })

  it('a posted change of mode that fails (a peer removed the file meanwhile) stops the script too', async () => {
    const fs = createFileSystem()
    const changed: string[] = []
    const racing = withMethods(fs, {
      chmod: async (path: string, mode: number) => {
        changed.push(path)
        if (path === '/d/f3') {
          await fs.rm(path)
          throw new FsError('ENOENT', 'chmod', path)
        }
        return fs.chmod(path, mode)
      },
    })
    const outcome = await runInWorker(
      job(
        racing,
        'mkdir /d; for i in 1 2 3 4 5; do echo "x$i" > /d/f$i; done; chmod 600 /d/*; cat /d/f1; echo after',
      ),
    )
    expect(outcome.exitCode).toBe(1)
    expect(outcome.stderr).toContain("ENOENT: no such file or directory, chmod '/d/f3'")
    expect(outcome.stderr).toContain('bash: the script was stopped: a write it had gone on from failed')
    expect(outcome.stdout).not.toContain('after')
    // Posted: the host ran them in order, and the first ones took effect.
    expect(changed.slice(0, 3)).toEqual(['/d/f1', '/d/f2', '/d/f3'])
    expect((await fs.stat('/d/f1')).mode & 0o777).toBe(0o600)
  })

  it('without write-behind the same failure is the shell’s own (a failed redirection ends the script)', async () => {
    const { fs } = failingAt('/d/f3')
    const { writeBehind: _, ...plain } = job(fs, 'mkdir /d; echo x > /d/f3; echo after')
    await expect(runInWorker(plain)).rejects.toMatchObject({ code: 'ENOSPC', path: '/d/f3' })
  })
})

describe('write-behind: a script sees what it sees in-process', () => {
  const names = ['/p/f0', '/p/f1', '/p/f2', '/p/s/g', '/p/l', '/q/f0', '/q/f1']
  const path = fc.constantFrom(...names)
  const word = fc.constantFrom('a', 'ab', 'é', 'line a', '')
  const step = fc.oneof(
    fc.tuple(word, path).map(([w, p]) => `echo "${w}" > ${p}`),
    fc.tuple(word, path).map(([w, p]) => `echo "${w}" >> ${p}`),
    fc.tuple(word, path).map(([w, p]) => `printf "${w}" > ${p}`),
    path.map((p) => `cat ${p}`),
    path.map((p) => `rm -f ${p}`),
    path.map((p) => `test -e ${p}; echo "e=$?"`),
    fc.tuple(path, path).map(([a, b]) => `mv ${a} ${b}`),
    fc.constant('mkdir -p /p/s'),
    fc.constant('rm -rf /p/s'),
    fc.constant('ln -s /p/f0 /p/l'),
    fc.constant('ln -s /p /q'),
    fc.constant('ls -l /p/ /q/ | cut -c1-30'),
    fc.constant('cat /q/*'),
    fc.constant('ls /p | tr "\\n" " "'),
    fc.constant('cat /p/*'),
    fc.constant('sed -i s/a/b/ /p/*'),
    fc.constant('for i in 1 2 3; do echo "$i" > /p/f$i; done'),
    path.map((p) => `touch ${p}`),
    fc.tuple(fc.constantFrom('600', '755', 'u+x'), path).map(([m, p]) => `chmod ${m} ${p}`),
    fc.constant('chmod 640 /p/*'),
    fc.constant('touch /p/* /q/*'),
    fc.constant('stat -c "%a %n" /p/* /q/*'),
    fc.constant('for f in /p/*; do echo z >> "$f"; done; wc -c /p/f0'),
  )

  /** Every path under `/p` with its content (or kind). */
  async function tree(fs: ReturnType<typeof createFileSystem>): Promise<Record<string, string>> {
    const out: Record<string, string> = {}
    for (const p of fs
      .getAllPaths()
      .filter((p) => p === '/p' || p.startsWith('/p/') || p === '/q')
      .sort()) {
      const s = await fs.lstat(p)
      const mode = (s.mode & 0o7777).toString(8)
      out[p] = s.isSymbolicLink
        ? `-> ${await fs.readlink(p)}`
        : s.isDirectory
          ? `dir ${mode}`
          : `${await fs.readFile(p)} ${mode}`
    }
    return out
  }

  it('random scripts of writes, appends, reads, moves, removals, touch and chmod: same output, same files and modes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(step, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 3 }),
        async (runs) => {
          const results = []
          for (const inProcess of [false, true]) {
            const fs = createFileSystem()
            const exec = createJustBashBackend(fs, {}, { inProcess })
            const outs: Partial<ExecResult>[] = []
            for (const steps of [['mkdir /p'], ...runs]) {
              const { stdout, stderr, exitCode } = await exec.run(steps.join('\n'), [])
              outs.push({ stdout, stderr, exitCode })
            }
            results.push({ outs, tree: await tree(fs) })
          }
          expect(results[0]).toEqual(results[1])
        },
      ),
      // WB_RUNS=4000 for a longer search (then pass --testTimeout).
      { numRuns: Number(process.env.WB_RUNS ?? 40) },
    )
  })
})
